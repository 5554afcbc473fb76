"""CSRF: forms and cookie-authenticated API writes need the token; token-authenticated API calls do not.

Django's test client skips CSRF checks unless told otherwise, so every client here is created with
``enforce_csrf_checks=True``, as a browser would be treated.
"""

import re

import pytest
from django.test import Client
from django.urls import NoReverseMatch, reverse

from apps.results.models import ApiToken, Upload
from tests.api.uploading import DEMO_SUBMISSION, named_file, tar_gz_of
from tests.conftest import REPO_ROOT
from tests.security.conftest import row_counts

pytestmark = pytest.mark.django_db

FORM = re.compile(r"<form\b[^>]*>.*?</form>", re.IGNORECASE | re.DOTALL)
POST_METHOD = re.compile(r"""method\s*=\s*["']?post""", re.IGNORECASE)


def csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)


def test_the_admin_login_form_refuses_a_post_without_the_csrf_token(world):
    response = csrf_client().post("/admin/login/", {"username": "staff", "password": "pw"})
    assert response.status_code == 403
    assert b"CSRF" in response.content


def test_the_admin_login_form_works_with_the_token_it_hands_out(world):
    client = csrf_client()
    page = client.get("/admin/login/")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content).group(1).decode()
    response = client.post(
        "/admin/login/", {"username": "staff", "password": "pw", "csrfmiddlewaretoken": token, "next": "/admin/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/admin/"


def test_an_admin_change_form_refuses_a_post_without_the_token(world):
    client = csrf_client()
    client.force_login(world.staff)
    before = world.system.name
    response = client.post(f"/admin/results/storagesystem/{world.system.pk}/change/", {"name": "renamed"})
    assert response.status_code == 403
    world.system.refresh_from_db()
    assert world.system.name == before


def test_a_logged_in_browser_session_cannot_upload_through_the_api_without_the_token(world, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    client = csrf_client()
    client.force_login(world.alice)
    before = row_counts()
    response = client.post("/api/v1/uploads/", {"file": named_file(tar_gz_of(DEMO_SUBMISSION), "run.tgz")})
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert row_counts() == before


def test_a_logged_in_browser_session_cannot_delete_through_the_api_without_the_token(world):
    client = csrf_client()
    client.force_login(world.alice)
    response = client.delete(f"/api/v1/uploads/{world.upload.pk}/")
    assert response.status_code == 403
    assert Upload.objects.filter(pk=world.upload.pk).exists()


def test_token_authentication_needs_no_csrf_token(world):
    client = csrf_client()
    _, key = ApiToken.issue(world.alice, "csrf")
    response = client.post("/api/v1/uploads/", {}, HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 400  # a validation error about the missing file, not a CSRF refusal


def html_pages(world) -> list[str]:
    """Every leaderboard page we can name with the world's objects (names that do not exist yet are skipped)."""
    candidates = [
        ("home", []),
        ("list", ["io500"]),
        ("list", ["ten-node"]),
        ("list", ["historic"]),
        ("edition-index", []),
        ("edition-detail", [world.edition.name]),
        ("edition-list", [world.edition.name, "io500"]),
        ("run-detail", [world.run.pk]),
        ("run-upload", [world.run.pk]),
        ("system-detail", [world.system.pk]),
        ("compare", []),
    ]
    pages = []
    for name, args in candidates:
        try:
            pages.append(reverse(name, args=args))
        except NoReverseMatch:
            continue
    return pages


def test_a_cross_site_post_to_any_page_is_refused(world):
    client = csrf_client()
    client.force_login(world.alice)
    before = row_counts()
    pages = html_pages(world)
    assert pages, "no leaderboard page could be named"
    answers = {page: client.post(page, {"anything": "1"}).status_code for page in pages}
    assert {page: code for page, code in answers.items() if code not in (403, 405)} == {}
    assert row_counts() == before


def test_every_post_form_in_the_templates_carries_the_csrf_token():
    missing = []
    templates = sorted((REPO_ROOT / "templates").rglob("*.html")) + sorted((REPO_ROOT / "apps").rglob("*.html"))
    for template in templates:
        for form in FORM.findall(template.read_text()):
            opening = form.split(">", 1)[0]
            if POST_METHOD.search(opening) and "{% csrf_token %}" not in form:
                missing.append(str(template.relative_to(REPO_ROOT)))
    assert missing == []
