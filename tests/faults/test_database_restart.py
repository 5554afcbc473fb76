"""PostgreSQL restarted under a running gunicorn: requests fail cleanly and recover without restarting the app.

A private PostgreSQL instance (initdb in a temporary directory, on a free loopback port) serves a
gunicorn started for the test, so stopping it disturbs nobody, not even the test database. While
it is down /healthz answers 503 and a database page a 500, both at once; once it is back, both
answer 200 again from the very same gunicorn processes. Runs in the PostgreSQL pass of CI
(DATABASE_URL set) where the PostgreSQL server binaries are installed.
"""

import json
import time

import pytest

from rig import client, processes, servers

pytestmark = pytest.mark.services


@pytest.fixture
def private_stack(private_postgres, tmp_path):
    pg, url = private_postgres
    port = processes.free_port()
    server = servers.gunicorn(
        port, env={"DATABASE_URL": url, "DB_CONN_MAX_AGE": "60"}, log_dir=tmp_path, workers=2, timeout=30
    )
    try:
        base = f"http://127.0.0.1:{port}"
        servers.wait_until_serving(base)
        yield pg, server, base
    finally:
        server.stop()


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
