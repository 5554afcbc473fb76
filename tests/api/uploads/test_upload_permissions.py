"""Who may upload, read uploads, and change or delete what an upload created."""

import pytest

from apps.ingest.models import IngestJob
from apps.results.models import Run, Upload
from tests.api.uploading import DEMO_SUBMISSION, named_file, stored_files, tar_gz_of, uploaded_run
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db


def test_anonymous_uploads_are_refused_with_401(anonymous_client):
    response = anonymous_client.post("/api/v1/uploads/", {"file": named_file(b"x", "run.tgz")}, format="multipart")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert Upload.objects.count() == 0


def test_anonymous_users_cannot_read_upload_status(anonymous_client, alice):
    run = uploaded_run(alice)

    assert anonymous_client.get(f"/api/v1/uploads/{run.upload_id}/").status_code == 401


def test_a_bad_token_is_refused_with_401_even_for_reads(anonymous_client):
    anonymous_client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")

    assert anonymous_client.get("/api/v1/runs/").status_code == 401


def test_a_logged_in_session_may_upload(alice, private_storage):
    from rest_framework.test import APIClient

    client = APIClient()
    assert client.login(username="alice", password="pw")

    response = client.post(
        "/api/v1/uploads/", {"file": named_file(tar_gz_of(DEMO_SUBMISSION), "run.tgz")}, format="multipart"
    )

    assert response.status_code == 202
    assert Upload.objects.get().uploader == alice


def test_the_uploader_reads_an_upload_by_id(alice_client, alice):
    run = uploaded_run(alice)

    response = alice_client.get(f"/api/v1/uploads/{run.upload_id}/")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == run.upload_id
    assert body["status"] == "done"
    assert body["error"] == ""
    assert body["uploader"] == "alice"
    assert [entry["id"] for entry in body["runs"]] == [run.pk]


def test_another_user_cannot_read_an_upload_by_its_sequential_id(bob_client, staff_client, alice):
    """Declarations and job errors are the uploader's: for another account the upload does not exist."""
    run = uploaded_run(alice)

    assert bob_client.get(f"/api/v1/uploads/{run.upload_id}/").status_code == 404
    assert bob_client.get(f"/api/v1/uploads/{run.upload_id + 1}/").status_code == 404
    assert staff_client.get(f"/api/v1/uploads/{run.upload_id}/").status_code == 200


def test_the_upload_list_shows_your_own_uploads_and_staff_see_all(alice_client, staff_client, alice, bob):
    mine = uploaded_run(alice, b"alice's")
    uploaded_run(bob, b"bob's")

    assert [item["id"] for item in alice_client.get("/api/v1/uploads/").json()["results"]] == [mine.upload_id]
    assert len(staff_client.get("/api/v1/uploads/").json()["results"]) == 2


def test_another_user_cannot_delete_an_upload(bob_client, alice):
    run = uploaded_run(alice)

    response = bob_client.delete(f"/api/v1/uploads/{run.upload_id}/")

    assert response.status_code == 404
    assert Run.objects.filter(pk=run.pk).exists()


@pytest.mark.parametrize("who", ["alice_client", "staff_client"])
def test_the_uploader_or_staff_delete_an_upload_with_its_runs_and_file(
    who, request, alice, private_storage, django_capture_on_commit_callbacks
):
    run = uploaded_run(alice)
    client = request.getfixturevalue(who)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.delete(f"/api/v1/uploads/{run.upload_id}/")

    assert response.status_code == 204
    assert not Run.objects.filter(pk=run.pk).exists()
    assert Upload.objects.count() == IngestJob.objects.count() == 0
    assert stored_files() == []


def test_another_user_cannot_delete_an_uploaded_run(bob_client, alice):
    run = uploaded_run(alice)

    assert bob_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 403
    assert Run.objects.filter(pk=run.pk).exists()


@pytest.mark.parametrize("who", ["alice_client", "staff_client"])
def test_the_uploader_or_staff_may_delete_an_uploaded_run(who, request, alice):
    run = uploaded_run(alice)

    assert request.getfixturevalue(who).delete(f"/api/v1/runs/{run.pk}/").status_code == 204
    assert not Run.objects.filter(pk=run.pk).exists()


def test_runs_ingested_without_an_upload_are_staff_only(alice_client, staff_client):
    run = RunFactory()

    assert alice_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 403
    assert staff_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 204


def test_anonymous_users_cannot_delete_runs(anonymous_client):
    run = RunFactory()

    assert anonymous_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 401


def test_runs_cannot_be_edited_through_the_api(staff_client):
    run = RunFactory()

    assert staff_client.patch(f"/api/v1/runs/{run.pk}/", {"score_total": 1}, format="json").status_code == 405
