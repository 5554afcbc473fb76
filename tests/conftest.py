"""Shared fixtures. Real services only: PostgreSQL and Redis come from DATABASE_URL/REDIS_URL."""

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
TEST_DATA = REPO_ROOT / "tests" / "data"


# Set by .ci/run: CI always has ../shared, so a corpus test that cannot find it is a failure, not a skip.
REQUIRE_SHARED = os.environ.get("IOBOARD_REQUIRE_SHARED") == "1"


def shared_path(*parts: str) -> Path:
    """A path inside ../shared: the test skips with a visible notice where it is absent (a bare clone),
    and fails there when IOBOARD_REQUIRE_SHARED=1 (CI)."""
    path = SHARED.joinpath(*parts)
    if not path.exists() and REQUIRE_SHARED:
        pytest.fail(f"{path} is absent, but IOBOARD_REQUIRE_SHARED=1: CI must run the corpus acceptance tests")
    if not path.exists():
        pytest.skip(f"{path} is absent (corpus tests run where ../shared is present)")
    return path


def shared_files(folder: str, pattern: str) -> list[Path]:
    """Files under ../shared/<folder> matching ``pattern``, for parametrizing at collection time.

    An absent folder gives no files and pytest skips the empty parameter set, so every module that
    parametrizes over it also has a test calling ``shared_path`` on the folder: that one fails in CI."""
    root = SHARED / folder
    return sorted(root.rglob(pattern)) if root.is_dir() else []


@pytest.fixture(autouse=True)
def shared_cache_tried_afresh():
    """A test that made the cache fail leaves the next test a cache that is tried again, not skipped."""
    yield
    from apps.results.services.freshness import forget_shared_cache_failure

    forget_shared_cache_failure()


@pytest.fixture
def celery_eager():
    """Run .delay() in-process for this test, whatever REDIS_URL says."""
    from config.celery import app

    previous = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield app
    app.conf.task_always_eager, app.conf.task_eager_propagates = previous


@pytest.fixture
def celery_worker_on_redis(transactional_db):
    """An in-process Celery worker on the real Redis broker; skipped without REDIS_URL."""
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: no real broker to test against")
    from celery.contrib.testing.worker import start_worker

    from config.celery import app

    app.conf.task_always_eager = False
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=30) as worker:
        yield worker
