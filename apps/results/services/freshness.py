"""The data version: one number that every committed write to the results app changes.

Ranked lists are read far more often than results change: a page is read many times a minute, while a
new result arrives a few times a day, and even from the maintained list entries (apps.results.services.list_entries)
a rendered page costs several times `/healthz`, a cached one about what `/healthz` costs. So the
rendered list pages and API lists are cached under a key that includes one number, the *data
version*, which every committed write to the results app changes. A reader never sees a page older
than the last committed write it could have seen; there is no invalidation by pattern and no TTL
guessing.

The version lives in the shared cache (Redis). Every writer bumps it explicitly, on commit, once per
write: the writes of runs, systems and institutions in apps.results.services.runs, every other writing service
(editions, changes, reviews, series, studies, stacks, custom lists, uploads' deletion, the admin) with
``bump_data_version_on_commit`` at its end; no signal receiver does it behind a writer's back.
Without a shared cache (the embedded default, where each process has its own local memory) the page
cache stays off, since a `manage.py ingest` in another process could not tell the web server that
its pages are stale.

Keys carry ``IOBOARD_CACHE_PREFIX`` (one per deployment, derived from the database name unless
set), so two deployments sharing one Redis keep separate versions and pages. The page cache that
reads the version is web code: ``apps.web.page_cache``.

The cache is a convenience, never a dependency: every call on it goes through ``shared_cache_call``,
which answers a default when Redis refuses or does not answer (the cache's socket timeouts bound the
wait, `config/settings.py`), and then skips the cache in this process for
``IOBOARD_CACHE_RETRY_SECONDS``, so that a silent Redis costs one timeout, not one per call.
"""

import logging
import time

from django.conf import settings
from django.core.cache import cache, caches
from django.db import transaction

log = logging.getLogger(__name__)

#: Until when (time.monotonic) this process leaves the shared cache alone after a failed call.
_cache_skipped_until = 0.0


def shared_cache_available() -> bool:
    """False for a moment after a call on the cache failed in this process."""
    return time.monotonic() >= _cache_skipped_until


def note_shared_cache_failure(what: str) -> None:
    """A call on the cache failed: log it, and skip the cache here for IOBOARD_CACHE_RETRY_SECONDS."""
    global _cache_skipped_until
    _cache_skipped_until = time.monotonic() + settings.IOBOARD_CACHE_RETRY_SECONDS
    log.warning(
        "shared cache unreachable (%s); going without it for %ss",
        what,
        settings.IOBOARD_CACHE_RETRY_SECONDS,
        exc_info=True,
    )


def forget_shared_cache_failure() -> None:
    """Try the cache again at the next call (a test that pointed the cache elsewhere has put it back)."""
    global _cache_skipped_until
    _cache_skipped_until = 0.0


def shared_cache_call(operation: str, *args, default=None, alias: str = "default", **kwargs):
    """``caches[alias].<operation>(*args, **kwargs)``, or ``default`` when the cache fails or was failing a moment
    ago (any of them: they are one Redis, or two on one network)."""
    if not shared_cache_available():
        return default
    try:
        return getattr(caches[alias], operation)(*args, **kwargs)
    except Exception:
        note_shared_cache_failure(f"cache.{operation}")
        return default


def cache_key(*parts: str) -> str:
    """A cache key of this deployment: ``IOBOARD_CACHE_PREFIX`` first, so deployments sharing a cache never meet."""
    return ":".join((settings.IOBOARD_CACHE_PREFIX, *parts))


def data_version_key() -> str:
    return cache_key("data-version")


def current_data_version() -> int | None:
    """The version now, None while the cache is unreachable; a flushed cache starts a new one that no earlier
    page key can carry."""
    version = shared_cache_call("get", data_version_key())
    if version is None:
        shared_cache_call("add", data_version_key(), time.time_ns(), timeout=None)
        version = shared_cache_call("get", data_version_key())
    return version


def bump_data_version() -> None:
    """Never raises: it runs after a commit, when the write it reports can no longer be undone. A bump lost to an
    outage is bounded by the page timeout (IOBOARD_PAGE_CACHE_SECONDS)."""
    if not shared_cache_available():
        return
    try:
        try:
            cache.incr(data_version_key())
        except ValueError:  # no version yet (a fresh or flushed cache): start one
            cache.add(data_version_key(), time.time_ns(), timeout=None)
    except Exception:
        note_shared_cache_failure("the data version could not be bumped")


def bump_data_version_on_commit() -> None:
    """Bump once the current transaction commits (at once outside one): readers never see a page
    cached under the new version from data of the old."""
    transaction.on_commit(bump_data_version)
