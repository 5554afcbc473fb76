"""Readers first: a Celery worker, started as deployed, runs at the lowest CPU priority (issue 39).

Real `celery worker` processes (prefork, so the pool's process is a child of the worker's) are started and
their priority is read from /proc, as `ps -o ni,cls` would show it: nothing here asks the code under test.
"""

import os
import subprocess
from pathlib import Path

import pytest

from rig import PYTHON, REPO_ROOT
from rig.processes import child_env, children_of, wait_until
from rig.servers import celery_worker, wait_until_workers_ready

SCHED_IDLE = 5  # linux/sched.h


def stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat from its third field on (after the command name, which may hold spaces)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def niceness(pid: int) -> int:
    return int(stat_fields(pid)[16])  # field 19 of proc(5)


def policy(pid: int) -> int:
    return int(stat_fields(pid)[38])  # field 41 of proc(5)


def autogroup_nice(pid: int | str) -> int | None:
    """The niceness of the process's session as the scheduler groups it ("/autogroup-113 nice 0").

    None for a process in the kernel's root group (a container's first session, or autogroups off), which
    prints nothing there and whose weight no process can change.
    """
    words = Path(f"/proc/{pid}/autogroup").read_text().split()
    return int(words[-1]) if words else None


def services_env(**extra: str) -> dict:
    """The worker's broker and database: the real ones when set, else the embedded defaults (memory broker)."""
    return {key: os.environ[key] for key in ("DATABASE_URL", "REDIS_URL") if os.environ.get(key)} | extra


def pool_processes(worker_pid: int) -> list[int]:
    """The prefork pool's processes: the children of the worker's main process."""
    return wait_until(lambda: children_of(worker_pid), timeout=60, what="the worker's pool processes")


@pytest.fixture
def started(tmp_path):
    """Start workers with started(name, **env); each is stopped at the end."""
    services = []

    def start(name: str, **env: str):
        worker = celery_worker(name, env=services_env(**env), log_dir=tmp_path, queues=f"priority-{name}")
        services.append(worker)
        wait_until_workers_ready([worker])
        return worker

    yield start
    for service in services:
        service.stop()


def test_a_worker_and_its_pool_run_at_niceness_19_by_default_in_a_session_of_their_own(started):
    worker = started("niced")

    assert niceness(worker.pid) == 19
    assert [niceness(pid) for pid in pool_processes(worker.pid)] == [19]
    assert autogroup_nice(worker.pid) == 19  # its session's weight against the web's sessions
    assert os.getpriority(os.PRIO_PROCESS, 0) == 0  # the test's own process keeps its priority


def test_sched_idle_is_asked_for_by_a_setting(started):
    worker = started("idle", IOBOARD_WORKER_SCHED_IDLE="1")

    assert policy(worker.pid) == SCHED_IDLE
    assert [policy(pid) for pid in pool_processes(worker.pid)] == [SCHED_IDLE]


def test_niceness_0_leaves_the_worker_at_the_priority_it_started_with(started):
    worker = started("as-started", IOBOARD_WORKER_NICE="0")

    assert niceness(worker.pid) == 0
    assert autogroup_nice(worker.pid) == 0


def test_a_worker_started_in_the_callers_session_leaves_that_sessions_priority_alone(tmp_path):
    """A worker run from a shell shares the shell's session: lowering the session would starve the shell."""
    before = autogroup_nice("self")
    log = tmp_path / "worker.log"
    argv = [PYTHON, "-m", "celery", "-A", "config", "worker", "--pool", "prefork", "--concurrency", "1"]
    argv += [
        "--queues",
        "priority-shell",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
        "--loglevel",
        "INFO",
    ]
    with open(log, "w") as output:
        worker = subprocess.Popen(argv, cwd=REPO_ROOT, env=child_env(services_env()), stdout=output, stderr=output)
    try:
        wait_until(lambda: "ready." in log.read_text(errors="replace"), timeout=120, what="the worker ready")

        assert niceness(worker.pid) == 19
        assert autogroup_nice(worker.pid) == before == autogroup_nice("self")
    finally:
        worker.terminate()
        worker.wait(timeout=30)
