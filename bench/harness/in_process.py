"""Django set up in the benchmark's own process, for set-up and checks (never for timing), and the services a
benchmark runs against the database it set up."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rig import servers
from rig.client import require_loopback
from rig.databases import drop_database
from rig.processes import Service, child_env, free_port


def django_setup(database_url: str, redis_url: str | None = None) -> None:
    """Configure Django in this process against our database."""
    require_loopback(database_url)
    os.environ.pop("REDIS_URL", None)
    os.environ.update(child_env({"DATABASE_URL": database_url}))
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    import django

    django.setup()


@contextlib.contextmanager
def django_on_private_redis(database_url: str, scratch_prefix: str) -> Iterator[tuple[Path, str]]:
    """A scratch folder and a Redis of the benchmark's own logging into it, with Django set up in this process
    against ``database_url`` and that Redis: yields (the folder, the Redis URL) for the servers the benchmark
    starts; at the end (after the benchmark has stopped those) the Redis is stopped and the folder removed."""
    scratch = Path(tempfile.mkdtemp(prefix=scratch_prefix))
    redis_port = free_port()
    redis = servers.private_redis(redis_port, log_dir=scratch)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    try:
        django_setup(database_url, redis_url)
        yield scratch, redis_url
    finally:
        redis.stop()
        shutil.rmtree(scratch, ignore_errors=True)


@contextlib.contextmanager
def services_on(database: str, *, keep_database: bool) -> Iterator[list[Service]]:
    """The services a benchmark starts against ``database`` (it appends each as it starts it): on a failure
    each one's last log lines are printed; whatever happens all are stopped, the last started first, and the
    database is dropped unless ``keep_database``."""
    services: list[Service] = []
    try:
        yield services
    except Exception:
        for service in services:
            print(f"--- {service.name} (last lines)\n{service.tail()}")
        raise
    finally:
        for service in reversed(services):
            service.stop()
        if not keep_database:
            from django.db import connections

            connections.close_all()
            drop_database(database)
