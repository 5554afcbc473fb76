"""Anonymous writes are refused on every unsafe API method, and nobody edits another user's data.

The API operations are enumerated from the OpenAPI schema, so an endpoint added later is covered
without touching this file; every unsafe method is tried on every path, documented or not.
"""

import re

import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.security.conftest import field_snapshot, row_counts

pytestmark = pytest.mark.django_db

UNSAFE = ("post", "put", "patch", "delete")
# Refused (401/403), or the method does not exist there at all (405): never a 2xx or 3xx.
REFUSED = {401, 403, 405}


def api_paths() -> list[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(schema["paths"])


def concrete(path: str, ids: dict) -> str:
    """Fill {id}-style parameters with the id of the world's object of the resource the path names."""
    resource = path.removeprefix("/api/v1/").split("/")[0]
    return re.sub(r"\{[^}]+\}", lambda _: str(ids.get(resource, 1)), path)


def test_the_schema_lists_the_write_endpoints_this_file_guards():
    paths = api_paths()
    assert "/api/v1/uploads/" in paths
    assert "/api/v1/uploads/{id}/" in paths
    assert "/api/v1/runs/{id}/" in paths


@pytest.mark.parametrize("method", UNSAFE)
def test_anonymous_writes_are_refused_on_every_api_path(world, method):
    client = APIClient()
    before, snapshot = row_counts(), field_snapshot(world)
    answers = {}
    for path in api_paths():
        url = concrete(path, world.ids())
        response = getattr(client, method)(url, {"name": "x", "score_total": 1}, format="json")
        answers[url] = response.status_code
    allowed = {url: code for url, code in answers.items() if code not in REFUSED}
    assert allowed == {}, f"anonymous {method.upper()} was not refused"
    assert row_counts() == before
    assert field_snapshot(world) == snapshot


def test_anonymous_writes_answer_401_with_the_token_challenge(world):
    response = APIClient().delete(f"/api/v1/runs/{world.run.pk}/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


@pytest.mark.parametrize("method", UNSAFE)
def test_another_user_cannot_change_or_delete_alices_upload_or_run(world, bob_client, method):
    before, snapshot = row_counts(), field_snapshot(world)
    for url in (
        f"/api/v1/uploads/{world.upload.pk}/",
        f"/api/v1/runs/{world.run.pk}/",
        f"/api/v1/systems/{world.system.pk}/",
        f"/api/v1/editions/{world.edition.pk}/",
    ):
        response = getattr(bob_client, method)(url, {"original_name": "pwned", "score_total": 1}, format="json")
        assert response.status_code in {403, 404, 405}, (method, url, response.status_code)
    assert row_counts() == before
    assert field_snapshot(world) == snapshot


def test_the_owner_is_refused_too_where_no_write_exists(world):
    """Alice owns the upload, but runs, uploads and systems have no update endpoint at all."""
    from tests.api.uploading import client_with_token

    alice = client_with_token(world.alice)
    snapshot = field_snapshot(world)
    for url in (f"/api/v1/uploads/{world.upload.pk}/", f"/api/v1/runs/{world.run.pk}/"):
        assert alice.patch(url, {"original_name": "renamed"}, format="json").status_code == 405
        assert alice.put(url, {"original_name": "renamed"}, format="json").status_code == 405
    assert field_snapshot(world) == snapshot


def test_another_user_does_not_see_alices_uploads_in_the_list(world, bob_client):
    assert bob_client.get("/api/v1/uploads/").json()["results"] == []


def test_a_non_staff_user_cannot_use_the_admin_to_edit_anything(world, client):
    client.force_login(world.bob)
    snapshot = field_snapshot(world)
    response = client.post(f"/admin/results/run/{world.run.pk}/change/", {"score_total": "1"})
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    assert field_snapshot(world) == snapshot
