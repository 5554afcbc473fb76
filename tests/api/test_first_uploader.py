"""The first uploader of a published result (issue #40, item 2): an account that uploads a public archive folder
before the operator's bulk ingest does not keep the run. `manage.py ingest` of the files the operator holds takes
the run over (owner: the operator, accepted as reviewed) and says so in its output, for staff to look at the
account's upload."""

import io
import shutil

import pytest
from django.core.management import call_command

from apps.results.models import ReviewStatus, Run, Upload
from tests.api.test_ownership_attacks import PLANTED, PUBLISHED_AT, archive, snapshot, upload
from tests.api.uploading import DEMO_SUBMISSION

pytestmark = pytest.mark.django_db


@pytest.fixture
def uploaded_first(bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks) -> Run:
    """The demo submission at its public path, uploaded by bob (with a renaming sidecar) before the operator."""
    status = upload(bob_client, archive(PLANTED), django_capture_on_commit_callbacks, name="first.tgz")
    assert status["status"] == "done", status["error"]
    run = Run.objects.select_related("system").get(pk=status["runs"][0]["id"])
    assert (run.source_path, run.system.name, run.upload.uploader.username) == (PUBLISHED_AT, "Stolen", "bob")
    return run


def operator_ingest(tmp_path) -> tuple[str, str]:
    shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)
    out, err = io.StringIO(), io.StringIO()
    call_command("ingest", str(tmp_path / "archive"), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_operators_ingest_takes_over_a_run_an_account_uploaded_first(uploaded_first, tmp_path):
    bobs_upload = uploaded_first.upload

    out, _ = operator_ingest(tmp_path)

    run = Run.objects.select_related("system__institution").get(pk=uploaded_first.pk)
    assert run.upload_id is None
    assert run.review_status == ReviewStatus.ACCEPTED
    assert (run.system.institution.name, run.system.name) == ("Intel", "Wolf")  # the operator's files, not bob's
    assert Run.objects.count() == 1
    assert f"took over run {run.pk} ({PUBLISHED_AT}) from upload {bobs_upload.pk} (first.tgz) by bob" in out
    assert "taken over 1" in out


def test_after_the_takeover_the_first_uploader_can_neither_delete_the_run_nor_take_it_with_his_upload(
    uploaded_first, bob_client, tmp_path
):
    operator_ingest(tmp_path)
    before = snapshot(uploaded_first)
    bobs_upload = Upload.objects.get(uploader__username="bob")

    assert bob_client.delete(f"/api/v1/runs/{uploaded_first.pk}/").status_code == 403
    jobs = bob_client.get("/api/v1/uploads/").json()["results"]
    assert bob_client.delete(f"/api/v1/uploads/{jobs[0]['id']}/").status_code == 204

    assert not Upload.objects.filter(pk=bobs_upload.pk).exists()
    assert snapshot(uploaded_first) == before


def test_the_operators_second_ingest_finds_its_run_unchanged_and_takes_nothing(uploaded_first, tmp_path):
    operator_ingest(tmp_path)
    shutil.rmtree(tmp_path / "archive")

    out, _ = operator_ingest(tmp_path)

    assert "took over" not in out
    assert "created 0, updated 0, unchanged 1" in out
