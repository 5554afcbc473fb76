"""Anonymous reads and uploads are rate limited (rates "anon" and "uploads" in REST_FRAMEWORK)."""

import pytest
from django.core.cache.backends.locmem import LocMemCache
from rest_framework.throttling import SimpleRateThrottle

from apps.api.common.throttles import AnonReadThrottle, UploadRateThrottle
from tests.api.uploading import named_file

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def private_throttle_cache(monkeypatch):
    monkeypatch.setattr(SimpleRateThrottle, "cache", LocMemCache("throttle-test", {}))


def test_anonymous_reads_are_throttled(anonymous_client, monkeypatch):
    monkeypatch.setattr(AnonReadThrottle, "THROTTLE_RATES", {"anon": "2/min"})

    statuses = [anonymous_client.get("/api/v1/runs/").status_code for _ in range(3)]

    assert statuses == [200, 200, 429]


def test_uploads_are_throttled_per_user_apart_from_reads(alice_client, monkeypatch, private_storage):
    monkeypatch.setattr(UploadRateThrottle, "THROTTLE_RATES", {"uploads": "2/min"})

    statuses = [
        alice_client.post("/api/v1/uploads/", {"file": named_file(b"junk", "junk.tgz")}, format="multipart").status_code
        for _ in range(3)
    ]

    assert statuses == [400, 400, 429]
    assert alice_client.get("/api/v1/uploads/").status_code == 200


def test_uploads_are_counted_for_each_user_separately(alice_client, bob_client, monkeypatch, private_storage):
    monkeypatch.setattr(UploadRateThrottle, "THROTTLE_RATES", {"uploads": "1/min"})

    alice_client.post("/api/v1/uploads/", {"file": named_file(b"junk", "junk.tgz")}, format="multipart")

    assert (
        bob_client.post("/api/v1/uploads/", {"file": named_file(b"junk", "junk.tgz")}, format="multipart").status_code
        == 400
    )


def test_an_unreachable_cache_lets_requests_through(anonymous_client, monkeypatch):
    class UnreachableCache(LocMemCache):
        def get(self, *args, **kwargs):
            raise ConnectionRefusedError(111, "Connection refused")

        add = incr = get

    monkeypatch.setattr(SimpleRateThrottle, "cache", UnreachableCache("down", {}))

    assert anonymous_client.get("/api/v1/runs/").status_code == 200


def test_a_burst_of_100_custom_lists_meets_a_429(alice_client, monkeypatch, django_capture_on_commit_callbacks):
    """The production rate ("30/hour"): a script saving lists in a loop is stopped at the rate, per account."""
    from django.conf import settings

    from apps.api.common.throttles import CustomListRateThrottle
    from config.settings import REST_FRAMEWORK

    monkeypatch.setattr(
        CustomListRateThrottle,
        "THROTTLE_RATES",
        {"custom_lists": REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["custom_lists"]},
    )
    rate = int(REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["custom_lists"].split("/")[0])
    assert rate < settings.IOBOARD_CUSTOM_LISTS_PER_USER  # the throttle, not the cap, answers the burst

    with django_capture_on_commit_callbacks(execute=False):
        statuses = [
            alice_client.post("/api/v1/custom-lists/", {"equation": "score"}, format="json").status_code
            for _ in range(100)
        ]

    assert statuses == [201] * rate + [429] * (100 - rate)
