"""Fault-test plumbing: Celery workers as real subprocesses on the real broker and database.

The workers read the database the test wrote (committed: these tests use transactional_db) and
listen on a queue named for the test only, so no other worker sharing the Redis instance can
take the test's messages, and the test's worker takes no one else's.
"""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from rig import databases
from tests.conftest import REPO_ROOT
from tests.faults.stack import Stack


def needs_real_services():
    if not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL")):
        pytest.skip("REDIS_URL and DATABASE_URL are not both set: no real broker and database to kill workers on")


def can_run_private_postgres() -> bool:
    binaries = list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    as_root = os.geteuid() == 0 and shutil.which("runuser")
    return bool(binaries) and (as_root or os.environ.get("USER") == "postgres")


def current_database_url() -> str:
    """The URL of the database the test is using (pytest-django's test_ copy), for subprocesses."""
    from django.db import connection

    db = connection.settings_dict
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def served_env(tmp_path: Path, **extra: str) -> dict:
    """The settings of a gunicorn and Celery worker pair on the test's database and broker, their files under
    tmp_path, with the static files collected (DEBUG off serves them from WhiteNoise's manifest). The worker keeps
    the web's priority, as in worker_env: these stacks are not about priority."""
    from rig import processes

    (tmp_path / "media").mkdir(exist_ok=True)
    env = {
        "DATABASE_URL": current_database_url(),
        "REDIS_URL": os.environ["REDIS_URL"],
        "MEDIA_ROOT": str(tmp_path / "media"),
        "STATIC_ROOT": str(tmp_path / "static"),
        "IOBOARD_WORKER_NICE": "0",
        **extra,
    }
    processes.manage(["collectstatic", "--noinput", "-v", "0"], env=env, timeout=600)
    return env


def worker_env(media_root: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE"}}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=current_database_url(),
        MEDIA_ROOT=str(media_root),
        DEBUG="1",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        # These specs are about recovery, not priority (tests/config/test_worker_priority.py): a worker at niceness
        # 19 in a session of its own would wait behind every other session of a busy CI host.
        IOBOARD_WORKER_NICE="0",
    )
    env.update(extra)
    return env


class WorkerProcess:
    """`celery -A config worker` (or a wrapper around it) in its own process group; killed by its pid."""

    def __init__(self, argv: list[str], env: dict, log: Path):
        self.log = log
        handle = open(log, "w")  # noqa: SIM115 - owned by the child
        self.process = subprocess.Popen(
            argv, cwd=REPO_ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
        )
        handle.close()

    def kill9(self):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()
            except ProcessLookupError:
                pass

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


def celery_argv(queue: str, name: str) -> list[str]:
    return [
        "-A",
        "config",
        "worker",
        "--pool",
        "solo",
        "--queues",
        queue,
        "--hostname",
        f"{name}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel",
        "INFO",
    ]


def prefork_worker_argv(queue: str) -> list[str]:
    """A worker as deployed (prefork, so the ingest task's time limits hold), one process, on ``queue``."""
    return [
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--pool",
        "prefork",
        "--concurrency",
        "1",
        "--queues",
        queue,
        "--hostname",
        f"prefork-{queue}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel",
        "INFO",
    ]


@pytest.fixture
def fault_queue():
    return f"ioboard-fault-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def workers():
    """Start workers with workers.start(argv, env, log); every one still running is stopped at the end."""
    started: list[WorkerProcess] = []

    class Starter:
        def start(self, argv, env, log) -> WorkerProcess:
            worker = WorkerProcess([sys.executable, *argv], env, log)
            started.append(worker)
            return worker

    yield Starter()
    for worker in started:
        worker.stop()


def wait_for(predicate, *, timeout: float, what: str, interval: float = 0.2, worker: WorkerProcess | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(
        f"timed out after {timeout} s waiting for {what}" + (f"\nworker output:\n{worker.output()}" if worker else "")
    )


@pytest.fixture
def alice_client(db):
    from tests.api.uploading import client_with_token
    from tests.factories import UserFactory

    return client_with_token(UserFactory(username="alice"))


@pytest.fixture
def private_storage(settings, tmp_path, monkeypatch):
    """MEDIA_ROOT and the temporary directory of this test only."""
    import tempfile

    settings.MEDIA_ROOT = str(tmp_path / "media")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return tmp_path


@pytest.fixture
def private_postgres():
    """A PostgreSQL instance of this test alone (rig.databases.PrivatePostgres), so that stopping and starting it
    disturbs no one, not even the test database; with the URL of a migrated database on it."""
    if not os.environ.get("DATABASE_URL"):
        pytest.skip("DATABASE_URL is not set: the PostgreSQL fault tests run in the PostgreSQL pass")
    if not can_run_private_postgres():
        pytest.skip("no PostgreSQL server binaries, or not allowed to start a private instance")
    pg = databases.PrivatePostgres()
    try:
        yield pg, databases.fresh_database("ioboard_faults", port=pg.port)
    finally:
        pg.destroy()


@pytest.fixture
def stack(tmp_path):
    """A Stack (tests/faults/stack.py) on the test's own database (transactional_db), with an uploader's token;
    the test starts the web and the workers it needs, and every one is stopped at the end."""
    needs_real_services()
    from apps.results.models import ApiToken
    from tests.factories import UserFactory

    stack = Stack(tmp_path, current_database_url())
    try:
        _, stack.token = ApiToken.issue(UserFactory(username="uploader"), "faults")
        yield stack
    finally:
        stack.close()
