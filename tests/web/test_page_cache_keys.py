"""A page cached for one scheme or host is never served for another.

API pages hold absolute links built from the request (pagination's `next`), so a page rendered for
http://localhost served to a reader of https://testserver would send them to plain HTTP on another host.
"""

import pytest

from apps.results.services.freshness import bump_data_version
from apps.web.page_cache import CACHE_STATUS_HEADER
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

PAGE = "/api/v1/lists/historic/?page_size=1"


@pytest.fixture
def two_runs_and_the_page_cache(settings):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 60
    bump_data_version()
    RunFactory(phases=False)
    RunFactory(phases=False)


def test_the_same_page_over_http_then_https_is_two_entries(client, two_runs_and_the_page_cache):
    plain = client.get(PAGE, HTTP_ACCEPT="application/json")
    assert plain.json()["next"].startswith("http://testserver/")

    secure = client.get(PAGE, HTTP_ACCEPT="application/json", secure=True)

    assert secure[CACHE_STATUS_HEADER] == "miss"
    assert secure.json()["next"].startswith("https://testserver/")
    assert client.get(PAGE, HTTP_ACCEPT="application/json", secure=True)[CACHE_STATUS_HEADER] == "hit"


def test_the_same_page_for_another_host_is_another_entry(client, two_runs_and_the_page_cache):
    client.get(PAGE, HTTP_ACCEPT="application/json", HTTP_HOST="localhost")

    other = client.get(PAGE, HTTP_ACCEPT="application/json", HTTP_HOST="testserver")

    assert other[CACHE_STATUS_HEADER] == "miss"
    assert other.json()["next"].startswith("http://testserver/")
