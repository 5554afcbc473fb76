"""Shared fixtures. Real services only: PostgreSQL and Redis come from DATABASE_URL/REDIS_URL."""

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"
TEST_DATA = REPO_ROOT / "tests" / "data"


def shared_path(*parts: str) -> Path:
    """A path inside ../shared, skipping the test cleanly when that folder is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (corpus tests run where ../shared is present)")
    return path


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
