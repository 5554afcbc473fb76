"""The stack's servers: gunicorn (and what its access log says), Celery workers, a private Redis."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterable
from pathlib import Path

from rig import VENV_BIN
from rig.client import http
from rig.processes import Service, wait_until

#: A bench is one client (127.0.0.1) asking for thousands of pages: the per-client rate limits
#: (apps/web/rate_limits.py) would answer most of them 429. A bench's own env can set them lower.
UNLIMITED_READER = {"THROTTLE_ANON": "1000000/min", "THROTTLE_PAGES": "1000000/min", "THROTTLE_EXPORTS": "1000000/min"}


def gunicorn(
    port: int,
    *,
    env: dict,
    log_dir: Path,
    workers: int = 4,
    threads: int = 1,
    timeout: int = 60,
    launcher: list[str] | None = None,
) -> Service:
    """gunicorn serving the site; `launcher` runs it instead of the gunicorn script (a fault test's wrapper that
    changes the app before gunicorn starts, then calls gunicorn.app.wsgiapp.run with the same arguments)."""
    argv = [
        *(launcher or [str(VENV_BIN / "gunicorn")]),
        "config.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(workers),
        "--threads",
        str(threads),
        "--timeout",
        str(timeout),
        "--graceful-timeout",
        "5",
        "--access-logfile",
        "-",
        "--access-logformat",
        ACCESS_LOG_FORMAT,
    ]
    return Service(f"gunicorn-{port}", argv, env={**UNLIMITED_READER, **env}, log_dir=log_dir)


#: gunicorn's access line: method, path and query, status, and the microseconds from the request read to the
#: response written (`server_times`): the server's own time, with no client in it.
ACCESS_LOG_FORMAT = "access %(m)s %(U)s?%(q)s %(s)s %(D)s"


def server_times(log: Path, *, between: tuple[str, str]) -> list[tuple[str, int, float]]:
    """(path, status, seconds) of each GET gunicorn logged (ACCESS_LOG_FORMAT) between the requests for the
    two mark URLs `between` (path and query, e.g. "/healthz?mark=start"): a script sends them to bracket the
    requests it means."""
    times, inside = [], False
    for line in log.read_text(errors="replace").splitlines():
        fields = line.split()
        if len(fields) != 5 or fields[0] != "access":
            continue
        _, method, path, status, microseconds = fields
        path = path.removesuffix("?")
        if path == between[1] and inside:
            break
        if path == between[0]:
            inside = True
        elif inside and method == "GET":
            times.append((path, int(status), int(microseconds) / 1e6))
    return times


def celery_worker(
    name: str,
    *,
    env: dict,
    log_dir: Path,
    concurrency: int = 1,
    pool: str = "prefork",
    queues: str | None = None,
    nice: int = 0,
    launcher: list[str] | None = None,
) -> Service:
    """A real Celery worker; `nice` > 0 runs it at that lower CPU priority (`Service`), so that the web workers'
    requests run first when both want a CPU. `launcher` runs it instead of the celery script (a fault test's
    wrapper that changes the app, then calls celery's main with the same arguments)."""
    argv = [
        *(launcher or [str(VENV_BIN / "celery")]),
        "-A",
        "config",
        "worker",
        "--loglevel",
        "INFO",
        "--pool",
        pool,
        "--concurrency",
        str(concurrency),
        "--hostname",
        f"{name}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    if queues:
        argv += ["--queues", queues]
    return Service(name, argv, env=env, log_dir=log_dir, nice=nice)


def celery_beat(name: str, *, env: dict, log_dir: Path) -> Service:
    """The periodic tasks as deployed (`celery beat` with the settings' CELERY_BEAT_SCHEDULE: the sweep of stuck
    uploads among them), its schedule file kept in ``log_dir``. A stack without it leaves an ingest job whose worker
    was killed "processing" for good: Celery acknowledges a killed task's message, and only the sweep sends another."""
    argv = [str(VENV_BIN / "celery"), "-A", "config", "beat", "--loglevel", "INFO", "--schedule", str(log_dir / name)]
    return Service(name, argv, env=env, log_dir=log_dir)


def wait_until_serving(base: str, *, timeout: float = 60) -> None:
    """gunicorn takes requests once its /healthz answers 200 (every worker has imported the app by then)."""
    wait_until(lambda: http("GET", f"{base}/healthz", timeout=5)[0] == 200, timeout=timeout, what=f"{base}/healthz")


def wait_until_workers_ready(workers: Iterable[Service], *, timeout: float = 120) -> None:
    """Celery workers take tasks once each has logged "ready." (started together, they get ready together)."""
    for worker in workers:
        wait_until(
            lambda w=worker: "ready." in w.log.read_text(errors="replace"), timeout=timeout, what=f"{worker.name} ready"
        )


def private_redis(port: int, *, log_dir: Path) -> Service:
    argv = [
        shutil.which("redis-server") or "redis-server",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(log_dir),
    ]
    service = Service(f"redis-{port}", argv, log_dir=log_dir, raw_env=True, env=dict(os.environ))
    wait_until(lambda: redis_ping(port), timeout=20, what=f"redis on port {port}")
    return service


def redis_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def redis_cli(port: int, *command: str) -> str:
    """One command to a private redis-server of ours (FLUSHALL, LLEN ...); its answer as redis-cli prints it."""
    done = subprocess.run(
        [shutil.which("redis-cli") or "redis-cli", "-h", "127.0.0.1", "-p", str(port), *command],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.strip()
