"""API tokens: kept hashed, sent as `Token <key>` or `Bearer <key>`; revoked, expired or unknown ones answer 401."""

import hashlib
import importlib
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from apps.results.models import ApiToken

pytestmark = pytest.mark.django_db
MINE = "/api/v1/uploads/"  # answers 200 to a signed-in account, 401 to anyone else


def get_with(header: str):
    return APIClient().get(MINE, HTTP_AUTHORIZATION=header)


def test_a_token_signs_requests_as_token_or_bearer(alice):
    _, key = ApiToken.issue(alice, "laptop")
    assert get_with(f"Token {key}").status_code == 200
    assert get_with(f"Bearer {key}").status_code == 200


def test_only_the_keys_sha256_is_kept(alice):
    token, key = ApiToken.issue(alice, "laptop")
    stored = ApiToken.objects.values_list("digest", flat=True).get(pk=token.pk)
    assert stored == hashlib.sha256(key.encode()).hexdigest()
    assert not ApiToken.objects.filter(digest=key).exists()


def test_a_revoked_token_answers_401(alice):
    token, key = ApiToken.issue(alice, "laptop")
    token.revoke()
    assert get_with(f"Token {key}").status_code == 401


def test_an_expired_token_answers_401(alice):
    _, key = ApiToken.issue(alice, "laptop", expires_at=timezone.now() - timedelta(seconds=1))
    assert get_with(f"Token {key}").status_code == 401


def test_an_unknown_token_answers_401_and_names_the_scheme(alice):
    answer = get_with("Token " + "0" * 40)
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == "Token"


def test_a_token_of_an_inactive_account_answers_401(alice):
    _, key = ApiToken.issue(alice, "laptop")
    alice.is_active = False
    alice.save()
    assert get_with(f"Token {key}").status_code == 401


def test_use_is_recorded_on_the_token(alice):
    token, key = ApiToken.issue(alice, "laptop")
    get_with(f"Token {key}")
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_tokens_handed_out_before_keep_working_hashed(alice):
    """Migration 0037 moves each DRF token into ApiToken by its hash and deletes the plain key."""
    from django.apps import apps
    from rest_framework.authtoken.models import Token

    migration = importlib.import_module("apps.results.migrations.0037_accounts_and_hashed_api_tokens")
    old_key = Token.objects.create(user=alice).key
    migration.hash_drf_tokens(apps, None)
    assert not Token.objects.exists()
    assert get_with(f"Token {old_key}").status_code == 200
