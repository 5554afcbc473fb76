"""PostgreSQL restarted under a running gunicorn: requests fail cleanly and recover without restarting the app.

A private PostgreSQL instance (initdb in a temporary directory, on a free loopback port) serves a
gunicorn started for the test, so stopping it disturbs nobody, not even the test database. While
it is down /healthz answers 503 and a database page a 500, both at once; once it is back, both
answer 200 again from the very same gunicorn processes. Runs in the PostgreSQL pass of CI
(DATABASE_URL set) where the PostgreSQL server binaries are installed.
"""

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from rig import client, databases, processes, servers

pytestmark = pytest.mark.services


def can_run_private_postgres() -> bool:
    binaries = list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    as_root = os.geteuid() == 0 and shutil.which("runuser")
    return bool(binaries) and (as_root or os.environ.get("USER") == "postgres")


@pytest.fixture
def private_stack():
    if not os.environ.get("DATABASE_URL"):
        pytest.skip("DATABASE_URL is not set: the PostgreSQL fault test runs in the PostgreSQL pass")
    if not can_run_private_postgres():
        pytest.skip("no PostgreSQL server binaries, or not allowed to start a private instance")
    logs = Path(tempfile.mkdtemp(prefix="ioboard-test-pg-restart-"))
    pg = databases.PrivatePostgres()
    server = None
    try:
        url = databases.fresh_database("ioboard_restart", port=pg.port)
        port = processes.free_port()
        server = servers.gunicorn(
            port, env={"DATABASE_URL": url, "DB_CONN_MAX_AGE": "60"}, log_dir=logs, workers=2, timeout=30
        )
        base = f"http://127.0.0.1:{port}"
        processes.wait_until(
            lambda: client.http("GET", base + "/healthz", timeout=5)[0] == 200, timeout=60, what="gunicorn"
        )
        yield pg, server, base
    finally:
        if server:
            server.stop()
        pg.destroy()
        shutil.rmtree(logs, ignore_errors=True)


def answers(base: str) -> dict[str, tuple[int, float]]:
    found = {}
    for path in ("/healthz", "/api/v1/runs/"):
        status, _, seconds = client.http("GET", base + path, timeout=15, headers={"Accept": "application/json"})
        found[path] = (status, seconds)
    return found


def test_requests_fail_cleanly_while_postgresql_is_down_and_recover_after(private_stack):
    pg, server, base = private_stack
    pids = sorted([server.pid, *processes.children_of(server.pid)])
    assert {path: status for path, (status, _) in answers(base).items()} == {"/healthz": 200, "/api/v1/runs/": 200}

    pg.stop("fast")
    down = [answers(base) for _ in range(3)]
    pg.start()

    for sample in down:
        assert sample["/healthz"][0] == 503
        assert sample["/api/v1/runs/"][0] == 500
        assert max(seconds for _, seconds in sample.values()) < 5, sample  # fails fast, never hangs
    restarted = time.monotonic()
    processes.wait_until(
        lambda: all(status == 200 for status, _ in answers(base).values()),
        timeout=15,
        what="both URLs to answer 200 again",
    )
    assert time.monotonic() - restarted < 15
    # The same gunicorn master and workers served before, during and after: nothing was restarted.
    assert sorted([server.pid, *processes.children_of(server.pid)]) == pids
    health = json.loads(client.http("GET", base + "/healthz", timeout=15)[1])
    assert health["checks"]["database"] == "ok"
