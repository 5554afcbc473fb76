"""API fixtures: clients for anonymous, token-authenticated and staff users, private storage."""

import tempfile

import pytest
from rest_framework.test import APIClient

from tests.api.uploading import client_with_token
from tests.factories import UserFactory


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
