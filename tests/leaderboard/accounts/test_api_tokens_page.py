"""The "API tokens" page: a named token shown once as text, when each was last used, "Revoke", an expiry."""

import re

import pytest
from rest_framework.test import APIClient

from apps.results.models import ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_in(client):
    user = UserFactory(username="ada")
    client.force_login(user)
    return client, user


def new_key(html: str) -> str:
    return re.search(r'<code id="new-token">([0-9a-f]{40})</code>', html).group(1)


def test_the_account_page_links_to_the_tokens_page(signed_in):
    client, _ = signed_in
    assert 'href="/account/tokens/">API tokens</a>' in client.get("/account/").content.decode()


def test_a_new_token_is_shown_once_and_works_on_the_api(signed_in):
    client, _ = signed_in
    created = client.post("/account/tokens/", {"name": "cluster login node", "expires_in": "30"})
    key = new_key(created.content.decode())
    assert created["Cache-Control"] == "no-store"
    again = client.get("/account/tokens/").content.decode()
    assert key not in again
    assert "cluster login node" in again
    assert key[:8] in again
    assert APIClient().get("/api/v1/uploads/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200


def test_the_page_shows_last_use_and_expiry(signed_in):
    client, _ = signed_in
    key = new_key(client.post("/account/tokens/", {"name": "ci", "expires_in": "30"}).content.decode())
    assert "<td>never</td>" in client.get("/account/tokens/").content.decode()  # not used yet
    APIClient().get("/api/v1/uploads/", HTTP_AUTHORIZATION=f"Token {key}")
    token = ApiToken.objects.get(name="ci")
    shown = client.get("/account/tokens/").content.decode()
    assert token.last_used_at.strftime("%Y-%m-%d %H:%M") in shown
    assert token.expires_at.strftime("%Y-%m-%d") in shown


def test_revoke_ends_a_token(signed_in):
    client, _ = signed_in
    key = new_key(client.post("/account/tokens/", {"name": "old", "expires_in": ""}).content.decode())
    token = ApiToken.objects.get(name="old")
    assert ">Revoke</button>" in client.get("/account/tokens/").content.decode()
    client.post(f"/account/tokens/{token.pk}/revoke/")
    assert "<td>revoked</td>" in client.get("/account/tokens/").content.decode()
    assert APIClient().get("/api/v1/uploads/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 401


def test_another_accounts_token_cannot_be_revoked(signed_in):
    client, _ = signed_in
    token, _ = ApiToken.issue(UserFactory(username="bob"), "bob's")
    assert client.post(f"/account/tokens/{token.pk}/revoke/").status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None
