"""The page cache cannot be filled by a reader: one entry per page whatever parameters no view reads are added,
no entry for a page past IOBOARD_PAGE_CACHE_MAX_BYTES, and its entries in their own cache (CACHES["pages"],
CACHE_URL), never among the broker's queues, the data version or the rate limits' counters."""

import pytest
from django.core.cache import caches

from apps.results.services.freshness import bump_data_version
from apps.web.page_cache import CACHE_STATUS_HEADER
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def page_cache_on(settings):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 60
    caches["pages"].clear()
    bump_data_version()
    RunFactory(phases=False)
    RunFactory(phases=False)


def cache_status(client, url: str) -> str:
    response = client.get(url, HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return response[CACHE_STATUS_HEADER]


@pytest.mark.parametrize("page", ["/lists/io500/", "/api/v1/lists/io500/"])
def test_parameters_no_view_reads_share_the_pages_entry(client, page_cache_on, page):
    assert cache_status(client, f"{page}?utm_source=a") == "miss"
    assert cache_status(client, f"{page}?utm_source=b&x=1") == "hit"
    assert cache_status(client, page) == "hit"


def test_the_order_of_the_parameters_makes_no_new_entry(client, page_cache_on):
    assert cache_status(client, "/lists/io500/?sort=-bw&per_page=25") == "miss"
    assert cache_status(client, "/lists/io500/?per_page=25&sort=-bw") == "hit"
    assert cache_status(client, "/lists/io500/?per_page=25&sort=bw") == "miss"


def test_a_parameter_no_view_reads_never_reaches_the_page(client, page_cache_on):
    answer = client.get("/api/v1/lists/io500/?page_size=1&planted=yes").json()

    assert answer["next"] == "http://testserver/api/v1/lists/io500/?page=2&page_size=1"


def test_a_page_past_the_size_cap_is_not_kept(client, page_cache_on, settings):
    settings.IOBOARD_PAGE_CACHE_MAX_BYTES = 200

    assert cache_status(client, "/api/v1/lists/io500/") == "miss"
    assert cache_status(client, "/api/v1/lists/io500/") == "miss"


def test_pages_are_kept_in_the_pages_cache(client, page_cache_on):
    caches["pages"].clear()
    assert cache_status(client, "/api/v1/lists/io500/") == "miss"

    caches["pages"].clear()

    assert cache_status(client, "/api/v1/lists/io500/") == "miss"
