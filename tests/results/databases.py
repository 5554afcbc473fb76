"""Databases of a test's own beside the one pytest-django made, for commands run in other processes (an upgrade
from the previous release, a backup and its restore): PostgreSQL when DATABASE_URL names it, else SQLite files."""

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg


def postgres_url() -> str | None:
    url = os.environ.get("DATABASE_URL", "")
    return url if url.startswith("postgres") else None


@contextlib.contextmanager
def scratch_database(suffix: str, directory: Path) -> Iterator[str]:
    """An empty database named after the test's with `suffix`, dropped afterwards; its URL."""
    url = postgres_url()
    if url is None:
        yield f"sqlite:///{directory / f'{suffix}.sqlite3'}"
        return
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_{suffix}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def command_env(database_url: str, media_root: Path, **extra: str) -> dict:
    """Settings for manage.py in a process of its own: that database, eager tasks, DEBUG on (no static manifest)."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DATABASE_URL=database_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="1",
        ALLOWED_HOSTS="testserver",
        MEDIA_ROOT=str(media_root),
        PYTHONPATH="",
        **extra,
    )
    return env


def manage(tree: Path, env: dict, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if check:
        assert done.returncode == 0, f"manage.py {' '.join(args)[:80]}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done


#: `manage.py shell -c` this: one upload through the real receiving path (stored, ingested eagerly); prints its run.
LOAD_UPLOAD = """
import os
from pathlib import Path
from apps.ingest.uploads import receive_upload
archive = Path(os.environ["TEST_ARCHIVE"])
with archive.open("rb") as handle:
    received = receive_upload(handle, name=archive.name, kind="io500", uploader=None, metadata={})
received.job.refresh_from_db()
assert received.job.status == "done", received.job.error
print("RUN", received.job.runs.get().pk)
"""
