"""PostgreSQL databases of ours: the shared cluster's ``ioboard_*`` databases and a throw-away instance."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from rig.processes import free_port, manage

PG_HOST, PG_PORT, PG_USER = "127.0.0.1", 5432, "postgres"


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


def database_prefix() -> str:
    """IOBOARD_BENCH_DATABASE_PREFIX, "ioboard_bench" unless set: engineers sharing one PostgreSQL server each give
    their own, so no two benchmark runs seed, measure or drop one another's databases."""
    return os.environ.get("IOBOARD_BENCH_DATABASE_PREFIX", "ioboard_bench")


def fresh_database(name: str, port: int = PG_PORT) -> str:
    """Drop and re-create a database of ours (named ioboard_… or with our database_prefix()), migrate it, return
    its URL."""
    ours = ("ioboard_", f"{database_prefix()}_")
    if not name.startswith(ours):
        raise SystemExit(f"database names used by the bench scripts start with {' or '.join(ours)}, not {name!r}")
    psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', port=port)
    psql(f'CREATE DATABASE "{name}"', port=port)
    url = database_url(name, port)
    manage(["migrate", "--noinput", "-v", "0"], env={"DATABASE_URL": url}, timeout=600)
    return url


def drop_database(name: str, port: int = PG_PORT) -> None:
    with contextlib.suppress(Exception):
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', port=port)


def create_token_user(username: str, *, staff: bool = False) -> str:
    """An account and its API token, in the database of the Django this process has set up."""
    from django.apps import apps  # type: ignore[import-untyped]
    from django.contrib.auth import get_user_model  # type: ignore[import-untyped]

    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": staff})
    _, key = apps.get_model("results", "ApiToken").issue(user, "rig")
    return key


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
