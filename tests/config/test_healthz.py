import os

import pytest


@pytest.mark.django_db
def test_healthz_reports_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["checks"]["database"] == "ok"


@pytest.mark.django_db
def test_healthz_checks_the_real_redis_when_configured(client, settings):
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set")
    settings.REDIS_URL = os.environ["REDIS_URL"]
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["checks"]["redis"] == "ok"


@pytest.mark.django_db
def test_healthz_answers_503_when_redis_does_not_answer(client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["redis"].startswith("error")
