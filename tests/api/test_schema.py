"""The OpenAPI schema is valid, served offline, and every GET endpoint honours it (schemathesis)."""

import re

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from apps.results.models import ApiToken, ScalingPoint, ScalingSeries
from apps.results.services.editions import freeze_edition
from config.wsgi import application
from tests.api.uploading import uploaded_run
from tests.factories import AnomalyFactory, RunFactory, UserFactory
from tests.pages import cdn_hosts

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application)
# NUL characters in text parameters are refused with a 400 (PostgreSQL cannot store them), so they are
# not "valid data" for this API even though the schema's plain strings do not say so.
schema.config.generation.update(modes=[GenerationMode.POSITIVE], max_examples=50, allow_x00=False)
get_endpoints = schema.include(method="GET")


def test_the_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))

    assert "/api/v1/uploads/{id}/" in (tmp_path / "schema.yaml").read_text()


def test_the_schema_documents_every_endpoint_of_the_issue(client):
    paths = client.get("/api/v1/schema/?format=json").json()["paths"]

    assert {
        "/api/v1/runs/",
        "/api/v1/runs/{id}/",
        "/api/v1/runs/compare/",
        "/api/v1/systems/",
        "/api/v1/systems/{id}/",
        "/api/v1/lists/io500/",
        "/api/v1/lists/ten-node/",
        "/api/v1/lists/historic/",
        "/api/v1/editions/",
        "/api/v1/editions/{id}/",
        "/api/v1/scaling-series/",
        "/api/v1/scaling-series/{id}/",
        "/api/v1/uploads/",
        "/api/v1/uploads/{id}/",
    } <= set(paths)


def test_the_docs_page_loads_nothing_from_a_cdn(client):
    response = client.get("/api/v1/docs/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    assert not re.findall(r"https?://(?!testserver)[^\s\"']+\.(?:js|css)", page)
    assert cdn_hosts(page) == set()


def test_the_redoc_page_loads_nothing_from_a_cdn(client):
    page = client.get("/api/v1/redoc/").content.decode()

    assert "redoc" in page.lower()
    assert cdn_hosts(page) == set()


@pytest.fixture
def requests_keep_the_test_transaction():
    """The real WSGI handler closes connections per request, which kills the test transaction on
    PostgreSQL; Django's own test client disconnects the same signal handler."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def some_results(db):
    """Ranked, flagged and unscored runs, a frozen edition and an upload, so lists are not empty."""
    flagged = RunFactory(score_bw=50.0, score_md=100.0)
    AnomalyFactory(run=flagged)
    RunFactory()
    RunFactory(client_nodes=None, score_bw=None, score_total=None)
    freeze_edition("isc24", "io500")
    uploaded_run(UserFactory())
    series = ScalingSeries.objects.create(name="dne2")
    for mdt_count, rate in [(1, 10000.0), (2, 19000.0), (4, 20000.0)]:
        ScalingPoint.objects.create(
            series=series,
            mdt_count=mdt_count,
            tasks=64,
            operation="file_creation",
            max=rate,
            min=rate,
            mean=rate,
            source_file=f"dne2_{mdt_count}_mds/mdtest.out",
            log_hash=f"{mdt_count:064d}",
        )


@pytest.fixture
def staff_token(db):
    return ApiToken.issue(UserFactory(username="schema-staff", is_staff=True), "schema")[1]


@pytest.mark.django_db
@get_endpoints.parametrize()
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], deadline=None)
def test_no_get_endpoint_fails_or_breaks_its_schema(
    case, requests_keep_the_test_transaction, some_results, staff_token
):
    case.call_and_validate(headers={"Authorization": f"Token {staff_token}"})
