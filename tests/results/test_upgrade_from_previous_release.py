"""A database made by the previous release (the last tag; without one, the commit main had when this test was
written), with data, brought forward by `migrate` alone: every list serves the same entries as before, and an
upload the old release kept under MEDIA_ROOT is moved into the storage and downloads byte for byte.

The old release runs from its own tree (`git archive`) on the same virtualenv, on a database of its own: a
PostgreSQL database beside the test's when DATABASE_URL names PostgreSQL, else a SQLite file. Before the upgrade
one list's entries are deleted, as in a database whose runs were written around the maintained entries: the
post_migrate step (apps.results.apps.rebuild_missing_lists) must refill it, and leave the others as migrated.
"""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

from bench.load_uploads import pack
from tests.api.uploading import DEMO
from tests.conftest import REPO_ROOT

#: The commit main had at the start of the round that added this test; a tag, once there is one, is used instead.
FALLBACK_RELEASE = "3355351"
REFILLED_LIST = "historic"

LOAD = """
from pathlib import Path
from apps.ingest.uploads import receive_upload
import os
archive = Path(os.environ["UPGRADE_ARCHIVE"])
with archive.open("rb") as handle:
    received = receive_upload(handle, name=archive.name, kind="io500", uploader=None, metadata={})
received.job.refresh_from_db()
assert received.job.status == "done", received.job.error
print("RUN", received.job.runs.get().pk)
"""

SNAPSHOT = """
import json
from django.test import Client
from apps.results.models.list_kinds import LIST_KINDS
client = Client()
lists = {}
for slug in LIST_KINDS:
    answer = client.get(f"/api/v1/lists/{slug}/", {"page_size": 100}, HTTP_ACCEPT="application/json")
    lists[slug] = [answer.status_code, answer.json()]
print("SNAPSHOT" + json.dumps(lists, sort_keys=True))
"""


def previous_release() -> str:
    tags = subprocess.run(
        ["git", "describe", "--tags", "--abbrev=0"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return tags.stdout.strip() or FALLBACK_RELEASE


@pytest.fixture
def old_tree(tmp_path) -> Path:
    release = previous_release()
    tree = tmp_path / "previous-release"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", release], cwd=REPO_ROOT, capture_output=True, check=False)
    if archive.returncode:
        pytest.skip(f"the previous release {release} is not in this clone (a shallow one?): no upgrade to test")
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    return tree


@pytest.fixture
def upgrade_database(tmp_path):
    """A database of its own for the upgrade: PostgreSQL beside the test's, or a SQLite file."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        yield f"sqlite:///{tmp_path / 'upgrade.sqlite3'}"
        return
    parts = urlsplit(url)
    name = f"{parts.path.lstrip('/')}_upgrade"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(tree: Path, env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, (
        f"{tree.name}: manage.py {' '.join(args)[:80]}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    )
    return done.stdout


def snapshot(tree: Path, env: dict) -> dict:
    line = next(line for line in manage(tree, env, "shell", "-c", SNAPSHOT).splitlines() if line.startswith("SNAPSHOT"))
    return json.loads(line.removeprefix("SNAPSHOT"))


def test_a_database_of_the_previous_release_migrated_forward_serves_the_same_lists_and_its_uploads(
    old_tree, upgrade_database, tmp_path
):
    archive = pack(DEMO / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8", DEMO, tmp_path / "kept.tar.gz", copy=1)
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env.update(
        DATABASE_URL=upgrade_database,
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="1",
        ALLOWED_HOSTS="testserver",
        MEDIA_ROOT=str(tmp_path / "old-media"),
        UPGRADE_ARCHIVE=str(archive),
        PYTHONPATH="",
    )
    manage(old_tree, env, "migrate", "--noinput", "-v", "0")
    manage(old_tree, env, "load_demo")
    run_id = int(manage(old_tree, env, "shell", "-c", LOAD).split()[-1])
    before = snapshot(old_tree, env)
    assert all(status == 200 for status, _ in before.values())
    assert len(before[REFILLED_LIST][1]["results"]) > 0
    manage(
        old_tree,
        env,
        "shell",
        "-c",
        f"from apps.results.models import ListEntry; ListEntry.objects.filter(kind={REFILLED_LIST!r}).delete()",
    )
    assert snapshot(old_tree, env)[REFILLED_LIST][1]["results"] == []  # what `migrate` alone served until now

    migrated = manage(REPO_ROOT, env, "migrate", "--noinput")

    assert f"Rebuilt the lists that had no entries: {REFILLED_LIST}" in migrated
    assert snapshot(REPO_ROOT, env) == before
    download = f"""
from django.test import Client
import hashlib
print("SHA", hashlib.sha256(b"".join(Client().get("/runs/{run_id}/upload/").streaming_content)).hexdigest())
"""
    assert (
        manage(REPO_ROOT, env, "shell", "-c", download).split()[-1] == hashlib.sha256(archive.read_bytes()).hexdigest()
    )
