"""Rate limits a client cannot choose: keyed on the real client, counted atomically, on pages and exports too, and
before the page cache answers.

A client behind no proxy is its socket's address, whatever `X-Forwarded-For` it sends; behind
IOBOARD_TRUSTED_PROXIES proxies (DRF's NUM_PROXIES), it is the address the outermost trusted proxy added.
"""

import sys
import threading

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.test import RequestFactory
from rest_framework.throttling import SimpleRateThrottle

from apps.api.common.throttles import AnonReadThrottle
from apps.results.services.freshness import bump_data_version
from apps.web.page_cache import CACHE_STATUS_HEADER
from apps.web.rate_limits import ExportThrottle, PageThrottle
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

MID_WINDOW = 60 * 1_000_000 + 30.0


@pytest.fixture(autouse=True)
def private_throttle_cache(monkeypatch):
    counters = LocMemCache("rate-limit-test", {})
    counters.clear()  # local-memory caches of one name share their entries
    monkeypatch.setattr(SimpleRateThrottle, "cache", counters)
    # One instant, mid-window: a test's requests never straddle two windows of a fixed-window count.
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: MID_WINDOW)


def statuses(client, url: str, times: int, **headers) -> list[int]:
    return [client.get(url, **headers).status_code for _ in range(times)]


def test_a_new_forwarded_for_header_is_no_new_bucket(client, monkeypatch):
    monkeypatch.setattr(AnonReadThrottle, "THROTTLE_RATES", {"anon": "2/min"})

    answers = [client.get("/api/v1/runs/", HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code for n in range(3)]

    assert answers == [200, 200, 429]


def test_behind_a_trusted_proxy_the_client_is_the_address_the_proxy_added(client, monkeypatch, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    monkeypatch.setattr(AnonReadThrottle, "THROTTLE_RATES", {"anon": "2/min"})

    spoofed = [client.get("/api/v1/runs/", HTTP_X_FORWARDED_FOR=f"6.6.6.{n}, 192.0.2.1").status_code for n in range(3)]

    assert spoofed == [200, 200, 429]
    assert client.get("/api/v1/runs/", HTTP_X_FORWARDED_FOR="192.0.2.2").status_code == 200


def test_list_pages_are_rate_limited_per_client(client, monkeypatch):
    monkeypatch.setattr(PageThrottle, "THROTTLE_RATES", {"pages": "2/min"})

    assert statuses(client, "/lists/io500/", 3) == [200, 200, 429]
    refused = client.get("/runs/1/")
    assert refused.status_code == 429
    assert 0 < int(refused["Retry-After"]) <= 60
    assert statuses(client, "/lists/io500/", 1, REMOTE_ADDR="192.0.2.9") == [200]
    assert statuses(client, "/healthz", 3) == [200, 200, 200]


def test_exports_have_their_own_lower_limit(client, monkeypatch):
    monkeypatch.setattr(ExportThrottle, "THROTTLE_RATES", {"exports": "1/min"})

    assert statuses(client, "/lists/io500/export.csv", 2) == [200, 429]
    assert statuses(client, "/lists/historic/export.json", 1) == [429]
    assert statuses(client, "/lists/io500/", 1) == [200]


@pytest.fixture
def page_cache_on(settings):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 60
    bump_data_version()
    RunFactory(phases=False)


def test_a_cached_api_page_is_counted_before_the_cache_answers(client, monkeypatch, page_cache_on):
    monkeypatch.setattr(AnonReadThrottle, "THROTTLE_RATES", {"anon": "2/min"})

    answers = [client.get("/api/v1/lists/io500/") for _ in range(3)]

    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert answers[1][CACHE_STATUS_HEADER] == "hit"
    assert answers[2].json()["detail"].startswith("Request was throttled")


def test_a_cached_list_page_is_counted_before_the_cache_answers(client, monkeypatch, page_cache_on):
    monkeypatch.setattr(PageThrottle, "THROTTLE_RATES", {"pages": "2/min"})

    answers = [client.get("/lists/io500/") for _ in range(3)]

    assert [answer.status_code for answer in answers] == [200, 200, 429]
    assert answers[1][CACHE_STATUS_HEADER] == "hit"


def test_concurrent_requests_never_pass_the_rate_together(monkeypatch):
    """Eight clients at once from one address: exactly the rate is let through, however the threads interleave."""
    monkeypatch.setattr(AnonReadThrottle, "THROTTLE_RATES", {"anon": "100/min"})
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads change places as often as they can
    request = RequestFactory().get("/api/v1/runs/", REMOTE_ADDR="192.0.2.50")
    request.user = None
    allowed = []
    start = threading.Barrier(8)

    def client():
        start.wait()
        allowed.extend(AnonReadThrottle().allow_request(request, None) for _ in range(40))

    threads = [threading.Thread(target=client) for _ in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch_interval)

    assert allowed.count(True) == 100
    assert len(allowed) == 320
