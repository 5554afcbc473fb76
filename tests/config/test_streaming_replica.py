"""The replica router against a real PostgreSQL streaming replica: a primary and its hot standby of the test's own.

`.ci/replica` starts the pair (initdb, pg_basebackup -R, both on free loopback ports, as the postgres user), so
the shared server is never touched and the test can pause the replica's replay or stop it. gunicorn serves with
DATABASE_URL on the primary and DATABASE_REPLICA_URL on the replica. A row changed on the primary while the
replica's replay is paused tells who answered: the replica still shows the old name.

Runs where IOBOARD_REPLICA_TESTS=1 (`.ci/run` sets it; it needs PostgreSQL's server binaries and root or the
postgres user); elsewhere it skips with a notice.
"""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg
import pytest

import rig
from rig import client, processes, servers
from tests.conftest import REPO_ROOT

#: A replica further behind than this is skipped; it is read again once it catches up.
MAX_LAG_SECONDS = 4
#: Each gunicorn process re-checks the replica this often.
CHECK_SECONDS = 1

pytestmark = pytest.mark.skipif(
    os.environ.get("IOBOARD_REPLICA_TESTS") != "1",
    reason="streaming-replica tests run with IOBOARD_REPLICA_TESTS=1 (.ci/run sets it; "
    "they start their own PostgreSQL pair with .ci/replica)",
)


def _two_free_ports() -> int:
    while True:
        port = processes.free_port()
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port + 1))
            except OSError:
                continue
        return port


class Pair:
    """The primary and its replica, by connection: what the test does to them."""

    def __init__(self, directory, port: int, database: str):
        self.directory, self.database = directory, database
        self.env = {**os.environ, "IOBOARD_REPLICA_DIR": str(directory), "IOBOARD_REPLICA_PORT": str(port)}
        self.primary_url = f"postgres://postgres@127.0.0.1:{port}/{database}"
        self.replica_url = f"postgres://postgres@127.0.0.1:{port + 1}/{database}"

    def script(self, *args: str) -> str:
        done = subprocess.run(
            [str(REPO_ROOT / ".ci" / "replica"), *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def sql(self, url: str, statement: str, params=()):
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as connection:
            rows = connection.execute(statement, params)
            return rows.fetchall() if rows.description else None

    def rename(self, system_id: int, name: str) -> None:
        self.sql(self.primary_url, "UPDATE results_storagesystem SET name = %s WHERE id = %s", (name, system_id))

    def replayed_everything(self) -> bool:
        primary_lsn = self.sql(self.primary_url, "SELECT pg_current_wal_lsn()")[0][0]
        return self.sql(self.replica_url, "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", (primary_lsn,))[0][0]

    def pause_replay(self) -> None:
        """Replay stops after everything written so far has been replayed."""
        processes.wait_until(self.replayed_everything, timeout=30, what="the replica to catch up")
        self.sql(self.replica_url, "SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.sql(self.replica_url, "SELECT pg_wal_replay_resume()")


@pytest.fixture(scope="module")
def pair():
    if not shutil.which("runuser") and os.geteuid() != 0:
        pytest.fail("IOBOARD_REPLICA_TESTS=1 needs root (the servers run as the postgres user)")
    # Not under pytest's own temporary directory, which only root may enter: the postgres user writes here.
    directory = Path(tempfile.mkdtemp(prefix="ioboard-replica-pair-"))
    pair = Pair(directory, _two_free_ports(), f"ioboard_{uuid.uuid4().hex[:8]}")
    pair.script("start")
    try:
        pair.sql(pair.primary_url.rsplit("/", 1)[0] + "/postgres", f"CREATE DATABASE {pair.database}")
        env = processes.child_env({"DATABASE_URL": pair.primary_url})
        subprocess.run(
            [str(rig.PYTHON), "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
            timeout=600,
        )
        subprocess.run(
            [str(rig.PYTHON), "manage.py", "seed_synthetic", "--runs", "30"],
            cwd=REPO_ROOT,
            env=env,
            check=True,
            timeout=600,
            capture_output=True,
        )
        yield pair
    finally:
        pair.script("stop")
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture(scope="module")
def site(pair, tmp_path_factory):
    """gunicorn on the pair; (base URL, an API token, a system's id)."""
    log_dir = tmp_path_factory.mktemp("replica-gunicorn")
    env = processes.child_env(
        {
            "DATABASE_URL": pair.primary_url,
            "DATABASE_REPLICA_URL": pair.replica_url,
            "IOBOARD_REPLICA_MAX_LAG_SECONDS": str(MAX_LAG_SECONDS),
            "IOBOARD_REPLICA_CHECK_SECONDS": str(CHECK_SECONDS),
            "IOBOARD_REPLICA_CONNECT_TIMEOUT": "2",
        }
    )
    token = subprocess.run(
        [
            str(rig.PYTHON),
            "manage.py",
            "shell",
            "-c",
            "from rig.databases import create_token_user; print(create_token_user('replica-reader'))",
        ],
        cwd=REPO_ROOT,
        env=env,
        check=True,
        timeout=120,
        capture_output=True,
        text=True,
    ).stdout.split()[-1]
    system_id = pair.sql(pair.primary_url, "SELECT min(id) FROM results_storagesystem")[0][0]
    port = processes.free_port()
    server = servers.gunicorn(port, env=env, log_dir=log_dir, workers=1, threads=4)
    base = f"http://127.0.0.1:{port}"
    try:
        processes.wait_until(
            lambda: client.http("GET", f"{base}/healthz", timeout=2)[0] == 200,
            timeout=90,
            what="gunicorn on the replica pair",
        )
        yield base, token, system_id
    finally:
        server.stop()


def system_name(base: str, system_id: int, **headers) -> str:
    status, body, _ = client.http(
        "GET", f"{base}/api/v1/systems/{system_id}/", headers={"Accept": "application/json", **headers}, timeout=20
    )
    assert status == 200, body[:300]
    return json.loads(body)["name"]


@pytest.fixture
def replay_paused_after_a_rename(pair, site):
    """The replica stops replaying; then the primary renames a system. Yields (old name, new name)."""
    _, _, system_id = site
    pair.resume_replay()
    old = f"before-{uuid.uuid4().hex[:6]}"
    pair.rename(system_id, old)
    processes.wait_until(
        lambda: (
            pair.sql(pair.replica_url, "SELECT name FROM results_storagesystem WHERE id = %s", (system_id,)) == [(old,)]
        ),
        timeout=30,
        what="the replica to show the rename",
    )
    pair.pause_replay()
    new = f"after-{uuid.uuid4().hex[:6]}"
    pair.rename(system_id, new)
    try:
        yield old, new
    finally:
        pair.resume_replay()


def test_the_pair_is_a_streaming_primary_and_hot_standby(pair):
    assert pair.sql(pair.replica_url, "SELECT pg_is_in_recovery()") == [(True,)]
    assert pair.sql(pair.primary_url, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'") == [(1,)]


def test_the_script_leaves_a_running_pair_as_it_is(pair):
    before = pair.sql(pair.replica_url, "SELECT pg_postmaster_start_time()")
    assert "REPLICA_DATABASE_URL=" in pair.script("start")
    assert pair.sql(pair.replica_url, "SELECT pg_postmaster_start_time()") == before


def test_anonymous_readers_read_the_replica_and_an_api_client_the_primary(site, replay_paused_after_a_rename):
    base, token, system_id = site
    old, new = replay_paused_after_a_rename
    assert system_name(base, system_id) == old  # the replica, not yet replayed
    assert system_name(base, system_id, Authorization=f"Token {token}") == new  # the primary


def test_a_browser_that_just_wrote_reads_its_write_from_the_primary(site, replay_paused_after_a_rename):
    base, _, system_id = site
    _, new = replay_paused_after_a_rename
    status, _, _ = client.http("POST", f"{base}/api/v1/uploads/", timeout=20)
    assert status in (401, 403)
    # client.http keeps no cookies: carry the pin cookie the write set, as the browser would.
    with_pin = subprocess.run(
        ["curl", "-s", "-c", "-", "-o", "/dev/null", "-X", "POST", f"{base}/api/v1/uploads/"],
        capture_output=True,
        text=True,
        timeout=20,
        check=True,
    ).stdout
    assert "ioboard_primary" in with_pin
    assert system_name(base, system_id, Cookie="ioboard_primary=1") == new


def test_a_lagging_replica_is_left_for_the_primary_within_the_lag_bound(site, replay_paused_after_a_rename):
    base, _, system_id = site
    _, new = replay_paused_after_a_rename
    started = time.monotonic()
    processes.wait_until(
        lambda: system_name(base, system_id) == new,
        timeout=MAX_LAG_SECONDS + CHECK_SECONDS + 20,
        interval=0.25,
        what="readers to leave the lagging replica",
    )
    assert time.monotonic() - started <= MAX_LAG_SECONDS + CHECK_SECONDS + 10


def test_a_replica_that_is_down_costs_readers_no_answer(pair, site):
    base, _, system_id = site
    pair.resume_replay()
    processes.wait_until(pair.replayed_everything, timeout=30, what="the replica to catch up")
    pair.script("stop", "replica")
    try:
        started = time.monotonic()
        statuses = [client.http("GET", f"{base}/api/v1/systems/{system_id}/", timeout=20)[0] for _ in range(20)]
        elapsed = time.monotonic() - started
        assert statuses == [200] * 20
        assert elapsed < 15  # one connect attempt per check interval at most, not one per request
    finally:
        pair.script("start")
