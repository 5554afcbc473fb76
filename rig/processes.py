"""Child processes of ours: their environment, a long-running service stopped by its process group, waiting."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from rig import PYTHON, REPO_ROOT
from rig.client import require_loopback


def child_env(extra: dict | None = None) -> dict:
    """Production-like settings: DEBUG off (no query log), a throw-away key made now, loopback only."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "0",
            "SECRET_KEY": os.urandom(32).hex(),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "SECURE_SSL_REDIRECT": "0",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra or {})
    for key in ("DATABASE_URL", "REDIS_URL"):
        if env.get(key) and not env[key].startswith("sqlite:"):  # a SQLite file is local by nature
            require_loopback(env[key])
    return env


def manage(args: list[str], *, env: dict | None = None, timeout: float = 600, capture: bool = True) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=REPO_ROOT,
        env=child_env(env),
        capture_output=capture,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed ({result.returncode}): {result.stderr[-3000:]}")
    return result.stdout or ""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def peak_rss_mib(pid: int) -> float:
    """VmHWM of a running process (its peak resident set so far)."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def children_of(pid: int) -> list[int]:
    with contextlib.suppress(OSError):
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return []


def wait_until(predicate, *, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            value = predicate()
            if value:
                return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


class Service:
    """A long-running child (gunicorn, a celery worker, redis) we started and will stop by its pid."""

    def __init__(
        self,
        name: str,
        argv: list[str],
        *,
        env: dict | None = None,
        log_dir: Path,
        raw_env: bool = False,
        nice: int = 0,
    ):
        """`nice` > 0: the service runs at that lower CPU priority, its processes (`nice -n`) and its session.

        Each service runs in a session of its own (to be stopped as one process group), and where the kernel
        groups tasks by session (sched_autogroup) the scheduler shares the CPUs between sessions first, so a
        process's own niceness only ranks it within its session; the session's niceness
        (/proc/PID/autogroup) ranks it against the web workers."""
        self.name, self.argv = name, [*(["nice", "-n", str(nice)] if nice else []), *argv]
        self.log = log_dir / f"{name}.log"
        handle = open(self.log, "w")  # noqa: SIM115 - owned by the process for its lifetime
        self.process = subprocess.Popen(
            self.argv,
            cwd=REPO_ROOT,
            env=env if raw_env else child_env(env),
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        handle.close()
        if nice:
            with contextlib.suppress(OSError):  # no autogroups on this kernel: the processes' niceness is enough
                Path(f"/proc/{self.process.pid}/autogroup").write_text(str(nice))

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill9(self) -> None:
        """SIGKILL the whole process group (the service and the children it forked): a crash, not a shutdown."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self, timeout: float = 20) -> None:
        if self.process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill9()

    def tail(self, lines: int = 40) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""
