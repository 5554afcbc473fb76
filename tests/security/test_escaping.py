"""Names that arrive with an upload are shown escaped on every page, in the browsable API and the API docs.

The upload goes through the real API and the real ingest (eager), carrying markup in its file name
and in the institution, system and file-system fields, so what the pages show is exactly what an
uploader could plant.
"""

import pytest
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape

from apps.results.models import Run
from tests.api.uploading import DEMO_SUBMISSION, client_with_token, named_file, tar_gz_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

FILE_NAME = '"><img src=x onerror=alert(1)>.tgz'
INSTITUTION = '<script>alert("institution")</script>'
SYSTEM = "<svg onload=alert('system')>"
FILESYSTEM = "<iframe src=javascript:alert(3)>"
NOTES = "</textarea><script>alert('notes')</script>"
PAYLOADS = [INSTITUTION, SYSTEM, FILESYSTEM, "<img src=x onerror=alert(1)>", "<script>alert('notes')</script>"]


@pytest.fixture
def planted(settings, tmp_path, celery_eager, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    alice = UserFactory(username="alice")
    client = client_with_token(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/uploads/",
            {
                "file": named_file(tar_gz_of(DEMO_SUBMISSION), FILE_NAME),
                "institution": INSTITUTION,
                "system": SYSTEM,
                "filesystem": FILESYSTEM,
                "notes": NOTES,
            },
            format="multipart",
        )
    assert response.status_code == 202, response.content[:500]
    run = Run.objects.select_related("system__institution", "upload").get()
    assert run.system.institution.name == INSTITUTION
    assert run.system.name == SYSTEM
    assert run.upload.original_name == FILE_NAME
    return run, client


def assert_escaped(content: bytes, where: str) -> None:
    text = content.decode("utf-8", errors="replace")
    for payload in PAYLOADS:
        assert payload not in text, f"{where} shows {payload!r} unescaped"


def page_urls(run) -> list[str]:
    candidates = [
        ("home", []),
        ("list", ["io500"]),
        ("list", ["historic"]),
        ("list", ["ten-node"]),
        ("run-detail", [run.pk]),
        ("run-upload", [run.pk]),
        ("system-detail", [run.system_id]),
        ("compare", []),
    ]
    urls = []
    for name, args in candidates:
        try:
            urls.append(reverse(name, args=args))
        except NoReverseMatch:
            continue
    urls.append(f"{reverse('compare')}?runs={run.pk}" if urls else "/")
    return urls


def test_uploaded_names_are_escaped_on_every_page(planted, client):
    run, _ = planted
    shown_somewhere = False
    for url in page_urls(run):
        response = client.get(url)
        assert response.status_code in (200, 400, 404), (url, response.status_code)
        if response.streaming:  # the kept upload itself: a download, never rendered by the browser
            assert response["Content-Disposition"].startswith("attachment"), url
            assert not set(response["Content-Disposition"]) & {"\r", "\n"}, url
            continue
        assert_escaped(response.content, url)
        shown_somewhere |= escape(INSTITUTION) in response.content.decode()
    assert shown_somewhere, "the planted institution name appears escaped on no page: the test proves nothing"


def test_the_run_page_shows_the_names_escaped(planted, client):
    run, _ = planted
    response = client.get(reverse("run-detail", args=[run.pk]))
    assert response.status_code == 200
    text = response.content.decode()
    assert escape(SYSTEM) in text
    assert_escaped(response.content, "run page")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/runs/",
        "/api/v1/runs/{run}/",
        "/api/v1/systems/{system}/",
        "/api/v1/uploads/{upload}/",
        "/api/v1/uploads/",
        "/api/v1/lists/historic/",
    ],
)
def test_the_browsable_api_escapes_uploaded_names(planted, path):
    run, client = planted
    url = path.format(run=run.pk, system=run.system_id, upload=run.upload_id)
    response = client.get(url, HTTP_ACCEPT="text/html")
    assert response.status_code == 200, (url, response.status_code)
    assert response["Content-Type"].startswith("text/html")
    assert_escaped(response.content, f"browsable {url}")


def test_json_answers_carry_the_raw_names_as_json_that_browsers_will_not_sniff_as_html(planted):
    run, client = planted
    response = client.get(f"/api/v1/uploads/{run.upload_id}/", HTTP_ACCEPT="application/json")
    assert response["Content-Type"] == "application/json"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert FILE_NAME in response.content.decode()  # JSON keeps the name as sent; only HTML needs escaping


@pytest.mark.parametrize("path", ["/api/v1/docs/", "/api/v1/redoc/", "/api/v1/schema/"])
def test_the_api_docs_render_without_any_uploaded_markup(planted, client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert_escaped(response.content, path)
