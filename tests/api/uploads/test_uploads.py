"""POST /api/v1/uploads/: accepted uploads are kept and queued once; refused ones leave nothing behind."""

import pytest

from apps.ingest.models import IngestJob
from apps.results.models import Run, Upload
from tests.api.hostile_archives import ESCAPE_NAME, HOSTILE_UPLOADS
from tests.api.uploading import DEMO_SUBMISSION, DEMO_SUBMISSION_SCORE, files_under, named_file, stored_files, tar_gz_of

pytestmark = pytest.mark.django_db

UPLOADS = "/api/v1/uploads/"


def upload(client, data: bytes, name: str = "run.tgz", **fields):
    return client.post(UPLOADS, {"file": named_file(data, name), **fields}, format="multipart")


def test_an_accepted_upload_answers_202_with_where_to_poll(alice_client, private_storage):
    data = tar_gz_of(DEMO_SUBMISSION)

    response = upload(alice_client, data, institution="Intel", system="Wolf")

    assert response.status_code == 202, response.json()
    body = response.json()
    stored = Upload.objects.get()
    assert body == {
        "id": stored.pk,
        "sha256": stored.sha256,
        "status": "pending",
        "status_url": f"http://testserver/api/v1/uploads/{stored.pk}/",
    }
    assert stored.original_name == "run.tgz"
    assert stored.size == len(data)
    assert stored.uploader.username == "alice"
    assert stored.declared_metadata == {"institution": "Intel", "system": "Wolf"}
    assert IngestJob.objects.get().upload == stored


def test_the_original_file_is_kept_before_any_processing(alice_client, private_storage):
    data = tar_gz_of(DEMO_SUBMISSION)

    upload(alice_client, data)

    stored = Upload.objects.get()
    assert IngestJob.objects.get().status == "pending"
    assert stored.file.name == f"uploads/{stored.created_at:%Y/%m}/{stored.sha256}.tgz"
    assert stored.file.open("rb").read() == data


def test_the_ingest_is_enqueued_once_the_upload_is_committed(
    alice_client, private_storage, django_capture_on_commit_callbacks, monkeypatch
):
    from apps.ingest.tasks import ingest_upload_task

    enqueued = []
    monkeypatch.setattr(ingest_upload_task, "delay", lambda job_pk: enqueued.append(job_pk))
    with django_capture_on_commit_callbacks() as callbacks:
        upload(alice_client, tar_gz_of(DEMO_SUBMISSION))
        assert enqueued == []
    for callback in callbacks:
        callback()
    assert enqueued == [IngestJob.objects.get().pk]


def test_an_upload_is_ingested_to_done_with_the_right_score(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice_client, tar_gz_of(DEMO_SUBMISSION))

    status = alice_client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    assert status["error"] == ""
    assert len(status["runs"]) == 1
    run = Run.objects.get(pk=status["runs"][0]["id"])
    assert run.score_total == pytest.approx(DEMO_SUBMISSION_SCORE, rel=1e-6)
    assert run.upload_id == response.json()["id"]


def test_polling_an_unfinished_upload_reads_its_job_alone_and_a_done_one_its_runs_too(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks, django_assert_num_queries
):
    """Every uploader at a deadline polls its uploads until they are done: a poll of an unfinished one reads the
    token and the job, nothing else (a job's runs are set with its outcome, so it has none before)."""
    with django_capture_on_commit_callbacks() as queued:
        answer = upload(alice_client, tar_gz_of(DEMO_SUBMISSION)).json()
    with django_assert_num_queries(2):
        status = alice_client.get(answer["status_url"]).json()
    assert (status["status"], status["runs"]) == ("pending", [])

    for enqueue_ingest in queued:
        enqueue_ingest()
    with django_assert_num_queries(3):
        status = alice_client.get(answer["status_url"]).json()
    assert status["status"] == "done", status["error"]
    assert [run["id"] for run in status["runs"]] == [Run.objects.get(upload_id=answer["id"]).pk]
    assert status["runs"][0]["system"]["name"]


def test_an_unfinished_upload_tells_its_poller_when_to_ask_again_and_a_finished_one_does_not(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks, settings
):
    """Retry-After (seconds, RFC 9110) on the 202 and on every status while the ingest is pending: a client that
    honours it does not poll back-to-back. Once the outcome is final there is nothing to wait for."""
    settings.IOBOARD_UPLOAD_POLL_SECONDS = 7
    data = tar_gz_of(DEMO_SUBMISSION)
    with django_capture_on_commit_callbacks() as queued:
        accepted = upload(alice_client, data)
    pending = alice_client.get(accepted.json()["status_url"])

    assert (accepted.status_code, accepted["Retry-After"]) == (202, "7")
    assert (pending.json()["status"], pending["Retry-After"]) == ("pending", "7")

    for enqueue_ingest in queued:
        enqueue_ingest()
    done = alice_client.get(accepted.json()["status_url"])
    uploaded_again = upload(alice_client, data)

    assert done.json()["status"] == "done"
    assert "Retry-After" not in done
    assert (uploaded_again.status_code, uploaded_again.json()["status"]) == (200, "done")
    assert "Retry-After" not in uploaded_again


def test_a_failed_upload_has_no_retry_after(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks, tmp_path
):
    not_a_result = tmp_path / "not-a-result"
    not_a_result.mkdir()
    (not_a_result / "README.txt").write_text("no IO500 result here\n")
    with django_capture_on_commit_callbacks(execute=True):
        accepted = upload(alice_client, tar_gz_of(not_a_result))

    failed = alice_client.get(accepted.json()["status_url"])

    assert failed.json()["status"] == "failed", failed.json()
    assert "Retry-After" not in failed


def test_the_same_bytes_uploaded_again_return_the_existing_upload(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    data = tar_gz_of(DEMO_SUBMISSION)
    with django_capture_on_commit_callbacks(execute=True):
        first = upload(alice_client, data, name="first.tgz")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        again = upload(alice_client, data, name="again.tgz")

    assert again.status_code == 200
    assert again.json()["id"] == first.json()["id"]
    assert again.json()["status"] == "done"
    assert callbacks == []
    assert Upload.objects.count() == IngestJob.objects.count() == Run.objects.count() == 1
    assert stored_files() == [Upload.objects.get().file.name]


def test_another_accounts_same_bytes_are_its_own_upload_never_the_first_accounts(
    alice_client, bob_client, bob, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """Deduplication is per account (issue #40): answering another account's upload would tell bob alice's
    upload id and status, and let him poll (and try to delete) it. His bytes are his upload, ingested as his."""
    data = tar_gz_of(DEMO_SUBMISSION)
    with django_capture_on_commit_callbacks(execute=True):
        alices = upload(alice_client, data, name="first.tgz").json()

    with django_capture_on_commit_callbacks(execute=True):
        bobs = upload(bob_client, data, name="again.tgz")

    assert bobs.status_code == 202, bobs.json()
    assert bobs.json()["id"] != alices["id"]
    assert Upload.objects.get(pk=bobs.json()["id"]).uploader == bob
    assert bob_client.get(bobs.json()["status_url"]).json()["status"] == "failed"  # already published by alice
    assert Upload.objects.get(pk=alices["id"]).runs.count() == 1
    assert stored_files() == sorted(u.file.name for u in Upload.objects.all())


def test_bytes_uploaded_under_another_kind_do_not_block_the_real_upload(alice_client, private_storage):
    """An account's bytes sent first as the wrong kind (a campaign archive as IO500, or the reverse) are another
    upload: the upload of the right kind is received and queued, not answered with the wrong one."""
    data = tar_gz_of(DEMO_SUBMISSION)
    wrong = upload(alice_client, data, kind="stack")

    right = upload(alice_client, data, kind="io500")

    assert wrong.status_code == 202, wrong.json()
    assert right.status_code == 202, right.json()
    assert right.json()["id"] != wrong.json()["id"]
    assert Upload.objects.get(pk=right.json()["id"]).kind == "io500"


def test_mdtest_logs_are_accepted_with_kind_mdtest(alice_client, private_storage):
    log = b"-- started at 05/03/2019 10:00:00 --\n\nmdtest-1.9.3 was launched with 16 total task(s)\n"

    response = upload(alice_client, log, name="mdtest.out", kind="mdtest", series="dne2 scaling")

    assert response.status_code == 202, response.json()
    assert Upload.objects.get().kind == "mdtest"
    assert Upload.objects.get().declared_metadata == {"series": "dne2 scaling"}


def test_a_bare_log_is_refused_as_an_io500_upload(alice_client, private_storage):
    response = upload(alice_client, b"mdtest-1.9.3 was launched with 16 total task(s)\n", name="mdtest.out")

    assert response.status_code == 400
    assert "unknown magic bytes" in response.json()["file"][0]


@pytest.mark.parametrize("hostile", HOSTILE_UPLOADS, ids=str)
def test_a_hostile_or_broken_archive_is_refused_naming_the_problem(hostile, alice_client, private_storage, settings):
    for name, value in hostile.settings.items():
        setattr(settings, name, value)

    response = upload(alice_client, hostile.data, name=hostile.name)

    assert response.status_code == 400
    message = response.json()["file"][0]
    assert hostile.problem in message
    assert Upload.objects.count() == IngestJob.objects.count() == 0
    assert files_under(private_storage) == []
    assert not (private_storage.parent / ESCAPE_NAME).exists()


def test_an_oversized_request_is_refused_before_it_is_read(alice_client, private_storage, settings):
    settings.IOBOARD_UPLOAD_MAX_BYTES = 1000

    response = alice_client.post(UPLOADS, data=b"x" * 200_000, content_type="multipart/form-data; boundary=b")

    assert response.status_code == 400
    assert response.json() == {"file": ["request body of 200000 bytes is over the upload size cap of 1000 bytes"]}


def test_an_empty_file_is_refused(alice_client, private_storage):
    response = upload(alice_client, b"", name="empty.tgz")

    assert response.status_code == 400
    assert "empty" in response.json()["file"][0]


def test_a_missing_file_is_refused(alice_client, private_storage):
    response = alice_client.post(UPLOADS, {"institution": "Intel"}, format="multipart")

    assert response.status_code == 400
    assert response.json()["file"] == ["No file was submitted."]


def test_an_unknown_kind_is_refused(alice_client, private_storage):
    response = upload(alice_client, tar_gz_of(DEMO_SUBMISSION), kind="lammps")

    assert response.status_code == 400
    assert "kind" in response.json()
