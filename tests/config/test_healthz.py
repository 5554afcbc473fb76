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


@pytest.mark.django_db
def test_an_anonymous_caller_learns_which_dependency_fails_but_not_why(client, settings):
    settings.REDIS_URL = "redis://ioboard-secret-host.internal:1/0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["checks"]["redis"] == "error"
    assert "ioboard-secret-host" not in response.content.decode()


@pytest.mark.django_db
def test_staff_see_why_a_dependency_fails(admin_client, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    check = admin_client.get("/healthz").json()["checks"]["redis"]
    assert check.startswith("error: ConnectionError")
    assert "127.0.0.1" in check or "Connection refused" in check


@pytest.mark.django_db
def test_the_health_check_host_is_answered_on_healthz_only(client, settings):
    settings.ALLOWED_HOSTS = ["ioboard.example.org"]
    settings.IOBOARD_HEALTHCHECK_HOSTS = ["127.0.0.1"]
    assert client.get("/healthz", HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/lists/io500/", HTTP_HOST="127.0.0.1:8000").status_code == 400
    assert client.get("/healthz", HTTP_HOST="evil.example:8000").status_code == 400


@pytest.mark.django_db
def test_healthz_is_not_redirected_to_https_but_pages_are(client, settings):
    settings.SECURE_SSL_REDIRECT = True
    assert client.get("/healthz").status_code == 200
    assert client.get("/lists/io500/").status_code == 301
