"""API fixtures: clients for anonymous, token-authenticated and staff users, private storage."""

import tempfile

import pytest
from rest_framework.test import APIClient

from apps.results.models import Run
from tests.api.embargo import EDITION
from tests.api.uploading import DEMO_SUBMISSION, client_with_token, named_file, tar_gz_of
from tests.factories import RunFactory, StorageSystemFactory, UserFactory


@pytest.fixture
def anonymous_client():
    return APIClient()


@pytest.fixture
def alice(db):
    return UserFactory(username="alice")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def staff(db):
    return UserFactory(username="staff", is_staff=True)


@pytest.fixture
def alice_client(alice):
    return client_with_token(alice)


@pytest.fixture
def bob_client(bob):
    return client_with_token(bob)


@pytest.fixture
def staff_client(staff):
    return client_with_token(staff)


@pytest.fixture
def private_storage(settings, tmp_path, monkeypatch):
    """MEDIA_ROOT and the temporary directory of this test only, to prove what is left behind."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return tmp_path


@pytest.fixture
def public_run(db):
    """A run anyone sees, so that the pages have rows and counts the embargoed run must not change."""
    return RunFactory(system=StorageSystemFactory(name="Quokka"), review_status="accepted")


@pytest.fixture
def embargoed(alice, staff, private_storage, celery_eager, django_capture_on_commit_callbacks):
    """Alice's upload of a real submission to edition sc26, accepted by staff: (run, upload id)."""
    owner = client_with_token(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(
            "/api/v1/uploads/",
            {
                "file": named_file(tar_gz_of(DEMO_SUBMISSION), "run.tgz"),
                "edition": EDITION,
                "institution": "Intel",
                "system": "Wolf",
                "filesystem": "DAOS",
            },
            format="multipart",
        )
    assert response.status_code == 202, response.content
    status = owner.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    assert status["edition"] == EDITION
    run = Run.objects.get(pk=status["runs"][0]["id"])
    with django_capture_on_commit_callbacks(execute=True):
        review = client_with_token(staff).post(f"/api/v1/runs/{run.pk}/review/", {"status": "accepted"})
    assert review.status_code == 200, review.content
    run.refresh_from_db()
    assert run.review_status == "accepted"
    assert run.system.name == "Wolf"
    return run, response.json()["id"]
