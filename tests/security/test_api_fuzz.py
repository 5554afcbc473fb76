"""Schemathesis over the whole API: every operation, valid and invalid input, signed in: never a 5xx.

tests/api/test_schema.py checks the GET endpoints against their documented responses. This file
covers every operation, including the writes (POST an upload, DELETE a run or an upload) sent with
a staff token so they get past authentication and reach the code that parses and acts on input, in
both generation modes: positive (what the schema allows) and negative (what it forbids: wrong
types, missing fields, bad files). The only property asserted is the one that must hold for any
input: the server answers, and never with a server error.
"""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from apps.results.models import ApiToken
from config.wsgi import application
from tests.factories import AnomalyFactory, RunFactory, UploadFactory, UserFactory

schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], max_examples=15)

pytestmark = pytest.mark.django_db


@pytest.fixture
def requests_keep_the_test_transaction():
    """The real WSGI handler closes connections per request, which would end the test transaction on
    PostgreSQL; disconnect that handler for the test, as Django's own test client does."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def fuzz_world(db, settings, tmp_path, celery_eager):
    """Objects for ids to hit (1..n), a private MEDIA_ROOT for accepted uploads, and a staff token."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    staff = UserFactory(username="fuzz-staff", is_staff=True)
    for _ in range(3):
        AnomalyFactory(run=RunFactory(upload=UploadFactory(uploader=staff)))
    RunFactory(client_nodes=None, score_bw=None, score_total=None)
    return ApiToken.issue(staff, "fuzz")[1]


@schema.parametrize()
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much],
    deadline=None,
)
def test_no_operation_answers_with_a_server_error(case, requests_keep_the_test_transaction, fuzz_world):
    response = case.call(headers={"Authorization": f"Token {fuzz_world}"})
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path} answered {response.status_code}\n"
        f"query={case.query} body={str(case.body)[:300]}\n{response.text[:1000]}"
    )
