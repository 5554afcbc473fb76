"""The read replica: anonymous read-only requests read from the "replica" alias, everything else from the primary.

The test settings point a second alias at the same database (a test mirror), as a replica would be; the tests
commit their rows, so the second connection sees them as a replica would after replaying them.
"""

import pytest
from django.db import connections
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from apps.results.models import Run
from config.replica import PIN_COOKIE, ReplicaRouter, _reads_from_replica
from tests.factories import RunFactory, UserFactory

pytestmark = [
    pytest.mark.django_db(transaction=True, databases=["default", "replica"]),  # committed: seen by both
    pytest.mark.usefixtures("router_on"),
]


@pytest.fixture
def router_on():
    with override_settings(DATABASE_ROUTERS=["config.replica.ReplicaRouter"]):
        yield


def queries_on_each_alias(client, method, url, **extra):
    with (
        CaptureQueriesContext(connections["default"]) as primary,
        CaptureQueriesContext(connections["replica"]) as replica,
    ):
        response = getattr(client, method)(url, **extra)
    return response, len(primary), len(replica)


def test_outside_a_request_reads_and_writes_go_to_the_primary():
    router = ReplicaRouter()
    assert router.db_for_read(Run) == "default"
    assert router.db_for_write(Run) == "default"
    assert router.allow_migrate("replica", "results") is False
    token = _reads_from_replica.set(True)
    try:
        assert router.db_for_read(Run) == "replica"
        assert router.db_for_write(Run) == "default"
    finally:
        _reads_from_replica.reset(token)


@pytest.mark.parametrize("url", ["/lists/io500/", "/api/v1/lists/io500/", "/api/v1/runs/"])
def test_anonymous_reads_are_served_by_the_replica(client, url):
    run = RunFactory()
    response, primary, replica = queries_on_each_alias(client, "get", url)
    assert response.status_code == 200
    assert str(run.pk) in response.content.decode()
    assert replica > 0
    assert primary == 0


def test_a_signed_in_reader_reads_the_primary_to_see_their_own_writes(client):
    RunFactory()
    client.force_login(UserFactory())
    response, primary, replica = queries_on_each_alias(client, "get", "/lists/io500/")
    assert response.status_code == 200
    assert (primary > 0, replica) == (True, 0)


def test_an_api_client_with_a_token_reads_the_primary(client):
    response, _, replica = queries_on_each_alias(client, "get", "/api/v1/uploads/", HTTP_AUTHORIZATION="Token nonsense")
    assert response.status_code == 401
    assert replica == 0


def test_a_browser_that_wrote_is_pinned_to_the_primary_for_a_while(client):
    response = client.post("/api/v1/uploads/")
    assert response.status_code in (401, 403)
    assert response.cookies[PIN_COOKIE]["max-age"] == 10
    response, primary, replica = queries_on_each_alias(client, "get", "/lists/io500/")
    assert (response.status_code, replica) == (200, 0)
    assert primary > 0
