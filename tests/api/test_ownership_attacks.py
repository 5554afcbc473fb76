"""An ordinary account probing published runs: what it uploads never takes over, deletes or renames what the
operator or another account stored (apps.results.services.ownership). Each test is an attack from issue #22."""

import io
import shutil
import tarfile

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command

from apps.ingest.models import IngestJob
from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import ReviewStatus, Run, Upload
from tests.api.uploading import DEMO, DEMO_SUBMISSION, client_with_token, named_file
from tests.api.uploads.test_upload_end_to_end import upload_and_wait

pytestmark = pytest.mark.django_db

#: Where the demo submission sits in the public archive: its run's `source_path`, public in the run API.
PUBLISHED_AT = "Intel/Wolf/DAOS/2020/submission-8"
#: A sidecar above the result directory: it names the system without changing the result files' hash.
RENAMING_SIDECAR = b"institution: Attacker Inc\nsystem: Stolen\nfilesystem: DAOS\n"
#: Another real submission, for a run the operator never stored.
OTHER_SUBMISSION = DEMO / "TACC" / "Frontera" / "DAOS" / "2020" / "submission-13"


def archive(entries: dict[str, object]) -> bytes:
    """A .tar.gz of {path in the archive: a folder to add whole, or the bytes of a file}."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as packed:
        for name, content in entries.items():
            if isinstance(content, bytes):
                info = tarfile.TarInfo(name)
                info.size = len(content)
                packed.addfile(info, io.BytesIO(content))
            else:
                packed.add(content, arcname=name)
    return buffer.getvalue()


#: The published run's files at their public path, with a renaming sidecar and a planted page around them.
PLANTED = {PUBLISHED_AT: DEMO_SUBMISSION, "Intel/ioboard.yaml": RENAMING_SIDECAR, "evil.html": b"<script>x</script>"}


def upload(client, data: bytes, capture, name: str = "run.tgz") -> dict:
    """Upload and ingest (eager Celery, at commit); the upload's status as the API answers it."""
    with capture(execute=True):
        response = client.post("/api/v1/uploads/", {"file": named_file(data, name)}, format="multipart")
    assert response.status_code == 202, response.content
    return client.get(response.json()["status_url"]).json()


def snapshot(run: Run) -> tuple:
    run = Run.objects.select_related("system__institution").get(pk=run.pk)
    return (
        run.upload_id,
        run.system.institution.name,
        run.system.name,
        run.system.filesystem,
        run.review_status,
        run.score_total,
    )


@pytest.fixture
def operator_run(tmp_path) -> Run:
    """The demo submission as `manage.py ingest` stores the public archive: no upload, accepted."""
    shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)
    summary = ingest_path(tmp_path / "archive")
    assert not summary.failed
    run = Run.objects.get(pk=summary.created[0])
    assert (run.source_path, run.system.name) == (PUBLISHED_AT, "Wolf")
    return run


def test_another_accounts_upload_of_the_operators_files_is_already_published_and_changes_nothing(
    operator_run, bob_client, anonymous_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    before = snapshot(operator_run)
    status = upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks)

    assert status["status"] == "failed"
    assert "already published" in status["error"]
    assert f"run {operator_run.pk} of the operator" in status["error"]
    assert status["runs"] == []
    assert snapshot(operator_run) == before
    assert anonymous_client.get(f"/runs/{operator_run.pk}/upload/").status_code == 404  # no attacker's archive


def test_a_non_owner_cannot_delete_a_published_run(
    operator_run, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks)

    response = bob_client.delete(f"/api/v1/runs/{operator_run.pk}/")

    assert response.status_code == 403
    assert Run.objects.filter(pk=operator_run.pk).exists()


def test_reprocessing_never_lets_an_attackers_sidecar_rename_the_operators_run(
    operator_run, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks)
    before = snapshot(operator_run)

    call_command("ingest", "--reprocess")

    assert snapshot(operator_run) == before


def test_another_accounts_upload_of_an_uploaded_run_leaves_it_with_its_uploader(
    alice, bob_client, anonymous_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    alices_archive = archive({PUBLISHED_AT: DEMO_SUBMISSION})
    alices = upload(client_with_token(alice), alices_archive, django_capture_on_commit_callbacks)
    run = Run.objects.get(pk=alices["runs"][0]["id"])
    before = snapshot(run)
    original = anonymous_client.get(f"/runs/{run.pk}/upload/")

    bobs = upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks, name="mine.tgz")

    assert bobs["status"] == "failed"
    assert f"already published, this upload changes nothing: {PUBLISHED_AT} is run {run.pk} of upload" in bobs["error"]
    assert "by alice" in bobs["error"]
    assert snapshot(run) == before
    served = anonymous_client.get(f"/runs/{run.pk}/upload/")
    assert b"".join(served.streaming_content) == b"".join(original.streaming_content) == alices_archive
    assert bob_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 403
    assert bob_client.delete(f"/api/v1/uploads/{bobs['id']}/").status_code == 204  # his own upload: only that goes
    assert snapshot(run) == before


def test_the_same_account_uploading_its_run_again_finds_it_unchanged(
    alice, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    client = client_with_token(alice)
    first = upload(client, archive({PUBLISHED_AT: DEMO_SUBMISSION}), django_capture_on_commit_callbacks)
    run = Run.objects.get(pk=first["runs"][0]["id"])

    again = upload(
        client,
        archive({PUBLISHED_AT: DEMO_SUBMISSION, "README": b"repacked"}),
        django_capture_on_commit_callbacks,
        name="repacked.tgz",
    )

    assert again["status"] == "done", again["error"]
    assert [entry["id"] for entry in again["runs"]] == [run.pk]
    assert Run.objects.get(pk=run.pk).upload_id == first["id"]  # still the upload that stored it
    assert Run.objects.count() == 1


def test_deleting_an_attackers_upload_leaves_the_operators_run(
    operator_run, bob, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    status = upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks)

    assert bob_client.delete(f"/api/v1/uploads/{status['id']}/").status_code == 204

    assert Run.objects.filter(pk=operator_run.pk, upload__isnull=True).exists()
    assert not Upload.objects.filter(uploader=bob).exists()


def test_a_trusted_uploader_naming_the_operators_system_waits_as_a_claim_until_staff_accept_it(
    operator_run,
    alice,
    staff_client,
    anonymous_client,
    private_storage,
    celery_eager,
    django_capture_on_commit_callbacks,
):
    alice.user_permissions.add(Permission.objects.get(codename="publish_without_review"))
    claiming = archive(
        {
            "Intel/Wolf/DAOS/2021/submission-99": OTHER_SUBMISSION,
            "Intel/ioboard.yaml": b"storage_vendor: Attacker Storage\n",
        }
    )

    status = upload(client_with_token(alice), claiming, django_capture_on_commit_callbacks)

    assert status["status"] == "done", status["error"]
    run = Run.objects.get(pk=status["runs"][0]["id"])
    assert run.system_id == operator_run.system_id
    assert run.review_status == ReviewStatus.SUBMITTED  # though alice may publish without review
    assert "names the existing system" in run.system_claim
    assert "the operator" in run.system_claim
    assert run.system.storage_vendor == ""  # a claim does not describe the claimed system
    assert staff_client.get(f"/api/v1/runs/{run.pk}/review/").json()["system_claim"] == run.system_claim
    rows = anonymous_client.get("/api/v1/lists/io500/").json()["results"]
    assert [row["run"] for row in rows] == [operator_run.pk]

    accepted = staff_client.post(f"/api/v1/runs/{run.pk}/review/", {"status": "accepted"}, format="json")

    assert accepted.status_code == 200
    rows = anonymous_client.get("/api/v1/lists/full/").json()["results"]
    assert sorted(row["run"] for row in rows) == sorted([operator_run.pk, run.pk])


def test_a_trusted_uploader_naming_its_own_system_is_published_at_once(
    alice, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    alice.user_permissions.add(Permission.objects.get(codename="publish_without_review"))
    client = client_with_token(alice)
    upload(
        client, archive({"Alice Lab/Own/DAOS/2020/submission-1": DEMO_SUBMISSION}), django_capture_on_commit_callbacks
    )

    second = upload(
        client, archive({"Alice Lab/Own/DAOS/2020/submission-2": OTHER_SUBMISSION}), django_capture_on_commit_callbacks
    )

    run = Run.objects.get(pk=second["runs"][0]["id"])
    assert (run.review_status, run.system_claim) == (ReviewStatus.ACCEPTED, "")


def test_the_job_of_an_already_published_upload_links_no_run(
    operator_run, bob, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks)

    job = IngestJob.objects.get(upload__uploader=bob)
    assert job.status == IngestJob.Status.FAILED
    assert not job.runs.exists()


@pytest.mark.services
def test_through_the_real_worker_a_second_accounts_upload_is_already_published(
    celery_worker_on_redis, alice_client, bob_client, private_storage
):
    alices = upload_and_wait(alice_client, archive({PUBLISHED_AT: DEMO_SUBMISSION}), "wolf.tgz")
    run = Run.objects.get(pk=alices["runs"][0]["id"])
    before = snapshot(run)

    bobs = upload_and_wait(bob_client, archive(PLANTED), "mine.tgz")

    assert bobs["status"] == "failed"
    assert "already published" in bobs["error"]
    assert snapshot(run) == before
    assert bob_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 403


def test_the_published_files_refiled_with_a_sidecar_inside_wait_as_a_flagged_duplicate(
    operator_run, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """A sidecar inside the result directory changes its files' hash, so the copy is no longer "already
    published": it is the attacker's own run of its own new system, and must not pass review as a new result.
    It waits as submitted, flagged as the same result as the operator's run, which keeps its place."""
    before = snapshot(operator_run)
    inside = {PUBLISHED_AT: DEMO_SUBMISSION, f"{PUBLISHED_AT}/ioboard.yaml": RENAMING_SIDECAR}

    status = upload(bob_client, archive(inside), django_capture_on_commit_callbacks)

    assert status["status"] == "done", status["error"]
    (copy,) = Run.objects.filter(pk__in=[run["id"] for run in status["runs"]]).select_related("system")
    assert (copy.system.name, copy.review_status) == ("Stolen", ReviewStatus.SUBMITTED)
    (duplicate,) = copy.anomalies.filter(rule="duplicate_result")
    assert f"another system: {PUBLISHED_AT}" in duplicate.message
    assert snapshot(operator_run) == before
