"""Acceptance (issue 40): 10,000 unique query strings leave the broker's keys and the rate limits intact.

On the real Redis of REDIS_URL (skipped without it). Pages are keyed on what their view reads, so a flood of
unknown parameters is one entry, not ten thousand; the broker's queue and the rate limit's counter, kept beside
them when CACHE_URL is not set (as here), are still there and still right afterwards.
"""

import os
import uuid

import pytest
import redis

from apps.api.common.throttles import AnonReadThrottle
from apps.results.services.freshness import bump_data_version
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

FLOOD = 10_000


@pytest.fixture
def redis_server():
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: no real Redis to flood")
    return redis.Redis.from_url(os.environ["REDIS_URL"])


@pytest.fixture
def queued_messages(redis_server):
    """A broker queue as kombu keeps one: a Redis list of messages."""
    queue = f"ioboard-test-queue-{uuid.uuid4().hex}"
    messages = [f"message {n}".encode() for n in range(3)]
    redis_server.rpush(queue, *messages)
    yield queue, messages
    redis_server.delete(queue)


def test_ten_thousand_unique_query_strings_leave_the_broker_and_the_throttles_intact(
    client, settings, monkeypatch, redis_server, queued_messages
):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 60
    bump_data_version()
    RunFactory(phases=False)
    monkeypatch.setattr(AnonReadThrottle, "THROTTLE_RATES", {"anon": f"{FLOOD + 1}/day"})
    reader = f"2001:db8::{uuid.uuid4().hex[:4]}"  # a client no earlier run of this test has counted
    keys_before = redis_server.dbsize()
    pages_before = set(redis_server.scan_iter(match="*:page:*"))  # earlier tests' pages in the same database

    answers = {client.get(f"/api/v1/lists/io500/?n{n}={n}", REMOTE_ADDR=reader).status_code for n in range(FLOOD)}

    assert answers == {200}
    assert len(set(redis_server.scan_iter(match="*:page:*")) - pages_before) == 1
    assert redis_server.dbsize() - keys_before < 10  # the page, the data version, the counters of each window
    queue, messages = queued_messages
    assert redis_server.lrange(queue, 0, -1) == messages
    assert client.get("/api/v1/lists/io500/?last=1", REMOTE_ADDR=reader).status_code == 200
    assert client.get("/api/v1/lists/io500/?last=2", REMOTE_ADDR=reader).status_code == 429
