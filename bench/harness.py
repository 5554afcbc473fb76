"""Shared plumbing for the bench/ scripts: machine facts, private databases, child processes, JSON output.

Every bench script measures in child processes (so each figure has its own peak RSS), prints a
Markdown table, and with ``--json FILE`` writes its figures for ``bench.report``, which regenerates
docs/performance.md as one current table. Everything talks to 127.0.0.1 only; every loop is bounded
in count and in time.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

REPO_ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = REPO_ROOT / ".venv" / "bin"
PYTHON = str(VENV_BIN / "python") if (VENV_BIN / "python").exists() else sys.executable
CORPUS = REPO_ROOT.parent / "shared" / "io500-corpus"
LOOPBACK = ("127.0.0.1", "localhost", "::1")
PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "postgres"


# ---------------------------------------------------------------- machine and command


def machine() -> dict:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory": memory,
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


def machine_line() -> str:
    m = machine()
    return f"{m['nproc']} CPUs ({m['cpu']}), {m['memory']} RAM, Linux {m['kernel']}, Python {m['python']}"


def service_versions() -> str:
    parts = []
    with contextlib.suppress(Exception):
        out = psql("SHOW server_version", capture=True).strip()
        parts.append(f"PostgreSQL {out}")
    with contextlib.suppress(Exception):
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True, timeout=10).stdout
        parts.append("Redis " + out.split("v=")[1].split()[0])
    return ", ".join(parts)


def this_command() -> str:
    """How this script was started, as something to paste back into a shell (from the repo root)."""
    argv = list(sys.argv)
    script = Path(argv[0]).resolve()
    if script.is_relative_to(REPO_ROOT / "bench"):
        module = "bench." + script.stem
        return " ".join([".venv/bin/python -m", module, *(shlex.quote(a) for a in argv[1:])])
    return " ".join(shlex.quote(a) for a in argv)


def now_utc() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


# ---------------------------------------------------------------- tables and the doc


def table(headers: Sequence[str], rows: Iterable[Sequence]) -> str:
    def cell(value) -> str:
        if isinstance(value, float):
            return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.1f}"
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def add_json_option(parser) -> None:
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures to FILE as JSON (bench.report reads them)"
    )


def write_json(path: Path | None, figures: dict) -> None:
    """The figures of one bench run, for ``bench.report``; nothing when no ``--json`` was given."""
    if path is not None:
        path.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")


# ---------------------------------------------------------------- statistics


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (p95 of 200 samples is the 190th smallest)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-fraction * len(ordered) // 1))))
    return ordered[rank - 1]


# ---------------------------------------------------------------- PostgreSQL


def require_loopback(url_or_host: str) -> None:
    from urllib.parse import urlsplit

    host = urlsplit(url_or_host).hostname if "://" in url_or_host else url_or_host
    if host not in LOOPBACK:
        raise SystemExit(f"refusing to talk to {host!r}: bench scripts only use 127.0.0.1/localhost")


def psql(sql: str, *, database: str = "postgres", port: int = PG_PORT, capture: bool = False) -> str:
    result = subprocess.run(
        [
            "psql",
            "-h",
            PG_HOST,
            "-p",
            str(port),
            "-U",
            PG_USER,
            "-d",
            database,
            "-qAtX",
            "-v",
            "ON_ERROR_STOP=1",
            "-c",
            sql,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"psql failed: {sql}: {result.stderr.strip()}")
    return result.stdout if capture else ""


def database_url(name: str, port: int = PG_PORT) -> str:
    return f"postgres://{PG_USER}@{PG_HOST}:{port}/{name}"


def fresh_database(name: str, port: int = PG_PORT) -> str:
    """Drop and re-create a database of ours, migrate it, return its URL."""
    if not name.startswith("ioboard_"):
        raise SystemExit(f"database names used by the bench scripts start with ioboard_, not {name!r}")
    psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', port=port)
    psql(f'CREATE DATABASE "{name}"', port=port)
    url = database_url(name, port)
    manage(["migrate", "--noinput", "-v", "0"], env={"DATABASE_URL": url}, timeout=600)
    return url


def drop_database(name: str, port: int = PG_PORT) -> None:
    with contextlib.suppress(Exception):
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', port=port)


# ---------------------------------------------------------------- child processes


def bench_env(extra: dict | None = None) -> dict:
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
        if env.get(key):
            require_loopback(env[key])
    return env


def manage(args: list[str], *, env: dict | None = None, timeout: float = 600, capture: bool = True) -> str:
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=REPO_ROOT,
        env=bench_env(env),
        capture_output=capture,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed ({result.returncode}): {result.stderr[-3000:]}")
    return result.stdout or ""


@dataclass
class Measured:
    returncode: int
    wall: float
    peak_rss_mib: float
    stdout: str
    stderr: str

    def json(self) -> dict:
        for line in reversed(self.stdout.strip().splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"child printed no JSON; stderr: {self.stderr[-3000:]}")


def run_measured(argv: list[str], *, env: dict | None = None, timeout: float = 3600, cwd: Path = REPO_ROOT) -> Measured:
    """Run a child to completion; its wall time and peak RSS (ru_maxrss of that child, via wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env=bench_env(env), stdout=out, stderr=err, text=True)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                child.kill()
                pid, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.02)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(child.returncode, wall, usage.ru_maxrss / 1024, out.read(), err.read())


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
            env=env if raw_env else bench_env(env),
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


def gunicorn(port: int, *, env: dict, log_dir: Path, workers: int = 4, threads: int = 1, timeout: int = 60) -> Service:
    argv = [
        str(VENV_BIN / "gunicorn"),
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
    return Service(f"gunicorn-{port}", argv, env=env, log_dir=log_dir)


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
) -> Service:
    """A real Celery worker; `nice` > 0 runs it at that lower CPU priority (`Service`), so that the web workers'
    requests run first when both want a CPU."""
    argv = [
        str(VENV_BIN / "celery"),
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


def wait_until(predicate, *, timeout: float, interval: float = 0.2, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            value = predicate()
            if value:
                return value
        time.sleep(interval)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


class Answer(NamedTuple):
    status: int
    body: bytes
    seconds: float
    headers: Mapping[str, str]  # http.client's: names looked up in any case


def http_answer(
    method: str, url: str, *, headers: dict | None = None, data: bytes | None = None, timeout: float = 30
) -> Answer:
    """The whole answer, its headers included; a refused or timed-out request is status 0 rather than an exception."""
    require_loopback(url)
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})  # noqa: S310 - http only
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - loopback only
            body = response.read()
            return Answer(response.status, body, time.perf_counter() - started, response.headers)
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.read(), time.perf_counter() - started, error.headers)
    except (urllib.error.URLError, OSError, TimeoutError):
        return Answer(0, b"", time.perf_counter() - started, {})


def http(
    method: str, url: str, *, headers: dict | None = None, data: bytes | None = None, timeout: float = 30
) -> tuple[int, bytes, float]:
    """(status, body, seconds) of `http_answer`."""
    status, body, seconds, _ = http_answer(method, url, headers=headers, data=data, timeout=timeout)
    return status, body, seconds


def multipart(fields: dict, file_field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = "ioboard" + os.urandom(12).hex()
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
        "Content-Type: application/gzip\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def django_setup(database_url: str, redis_url: str | None = None) -> None:
    """Configure Django in this process against our database (for set-up and checks, not for timing)."""
    require_loopback(database_url)
    os.environ.pop("REDIS_URL", None)
    os.environ.update(bench_env({"DATABASE_URL": database_url}))
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    sys.path.insert(0, str(REPO_ROOT))
    import django

    django.setup()


def create_token_user(username: str, *, staff: bool = False) -> str:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": staff})
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


class PrivatePostgres:
    """A throw-away PostgreSQL instance (initdb in a temporary directory) on a free loopback port.

    Fault scenarios stop and start it at will without disturbing the shared cluster other people's
    tests run on. Runs as the ``postgres`` user when started as root (PostgreSQL refuses root).
    """

    def __init__(self):
        import pwd

        versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parts[-3]))
        if not versions:
            raise SystemExit("no PostgreSQL server binaries under /usr/lib/postgresql")
        self.bin = versions[-1].parent
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="ioboard-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"  # inside the instance's own directory, which postgres owns
        self.as_postgres: list[str] = []
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.as_postgres = ["runuser", "-u", "postgres", "--"]
        self._run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", PG_USER, "-A", "trust", "-E", "UTF8", "--no-sync"],
            timeout=180,
        )
        self.start()

    def _run(self, argv: list[str], timeout: float = 120) -> None:
        result = subprocess.run(
            [*self.as_postgres, *argv], capture_output=True, text=True, timeout=timeout, check=False
        )
        if result.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {result.stderr.strip()} {result.stdout.strip()}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self._run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                "-o",
                options,
                "-w",
                "-t",
                "60",
                "start",
            ]
        )

    def stop(self, mode: str = "fast") -> None:
        self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop"])

    def destroy(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


def parse_like_the_ingest(root: Path, overrides: dict | None = None) -> list:
    """What ``ingest_upload`` does before touching the database: find the result sets below root and
    parse each (ParsedRun or ParseError). Kept in one place so the benches follow the service's API."""
    from apps.ingest.tools.io500.pipeline import parse_io500_tree, survey_tree

    return list(parse_io500_tree(root, survey_tree(root)[0], overrides))


def expected_run_identities(archive: Path) -> tuple[set[str], list[str]]:
    """The run identities the ingest of an archive must produce, and its parse failures (Django set up)."""
    from apps.ingest.core.archive import open_input
    from apps.ingest.core.common import archive_caps
    from apps.ingest.parsers.records import ParseError
    from apps.results.models import Run

    identities, failures = set(), []
    with open_input(archive, **archive_caps()) as root:
        for item in parse_like_the_ingest(root):
            if isinstance(item, ParseError):
                failures.append(str(item))
            else:
                identities.add(Run.make_identity(item.record.content_hash, item.record.source_path))
    return identities, failures


INGEST_SUMMARY_LINE = re.compile(r"(\d+) logs stored \((\d+) points\), (\d+) updated, (\d+) unchanged, (\d+) failed")


def ingest_child_env(database_url: str) -> dict:
    """The environment of a timed ``manage.py`` child: DEBUG off (no query log), a throw-away key."""
    env = {key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "0",
            "SECRET_KEY": os.urandom(32).hex(),
            "DATABASE_URL": database_url,
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def timed_manage(args: list[str], env: dict, timeout: float = 900) -> tuple[float, str]:
    """Run ``manage.py args`` in a child; its wall time (start-up included) and its output."""
    started = time.perf_counter()
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(
            f"manage.py {' '.join(args)} failed ({result.returncode}):\n{result.stdout[-2000:]}"
            f"\n{result.stderr[-2000:]}"
        )
    return wall, result.stdout


def ingest_counts(report: str) -> dict[str, int]:
    """The counts of a log-by-log ingest report (``manage.py ingest --kind ior|mdtest``)."""
    match = INGEST_SUMMARY_LINE.search(report)
    if not match:
        raise SystemExit(f"unexpected ingest report:\n{report[-2000:]}")
    return dict(zip(("stored", "points", "updated", "unchanged", "failed"), map(int, match.groups()), strict=True))


@dataclass
class LogIngestTimings:
    """A first ingest of generated logs, the same ingest again (all unchanged), and any commands after."""

    logs: int
    size_mib: float
    database: str
    first_wall: float
    second_wall: float
    first: dict[str, int]
    second: dict[str, int]
    after: dict[str, tuple[float, str]]


def time_log_ingest(
    *,
    kind: str,
    generate: Callable[[Path, int], int],
    logs: int,
    postgres: str | None,
    target: list[str],
    after: dict[str, list[str]] | None = None,
) -> LogIngestTimings:
    """Generate ``logs`` logs with their manifest.csv into a temporary folder and time ``manage.py ingest
    --kind KIND FOLDER TARGET --manifest FOLDER/manifest.csv`` twice, then each command of ``after``, against
    an empty, migrated database (a temporary SQLite file, or the fresh PostgreSQL database ``postgres``).
    Exits if the first ingest did not store every log or the second found any log changed."""
    with tempfile.TemporaryDirectory(prefix=f"ioboard-bench-{kind}-") as scratch:
        folder = Path(scratch) / "logs"
        folder.mkdir()
        count = generate(folder, logs)
        size_mib = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 2**20
        if postgres:
            database = "PostgreSQL " + psql("SHOW server_version", capture=True).strip()
            url = fresh_database(postgres)
        else:
            database = "SQLite (embedded default)"
            url = f"sqlite:///{Path(scratch) / 'bench.sqlite3'}"
        env = ingest_child_env(url)
        try:
            if not postgres:
                timed_manage(["migrate", "--noinput", "-v", "0"], env)
            command = ["ingest", "--kind", kind, str(folder), *target, "--manifest", str(folder / "manifest.csv")]
            first_wall, first_report = timed_manage(command, env)
            second_wall, second_report = timed_manage(command, env)
            after_runs = {name: timed_manage(args, env) for name, args in (after or {}).items()}
        finally:
            if postgres:
                drop_database(postgres)
    first, second = ingest_counts(first_report), ingest_counts(second_report)
    if first["stored"] != count or first["failed"] or second["unchanged"] != count or second["points"]:
        raise SystemExit(f"unexpected outcome: first {first}, second {second}")
    return LogIngestTimings(
        logs=count,
        size_mib=size_mib,
        database=database,
        first_wall=first_wall,
        second_wall=second_wall,
        first=first,
        second=second,
        after=after_runs,
    )
