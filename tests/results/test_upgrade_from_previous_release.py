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
import subprocess
from pathlib import Path

import pytest

from bench.load.uploads import pack
from tests.api.uploading import DEMO
from tests.conftest import REPO_ROOT
from tests.results.databases import LOAD_UPLOAD, command_env, manage, scratch_database

#: The commit main had at the start of the round that added this test; a tag, once there is one, is used instead.
FALLBACK_RELEASE = "3355351"
REFILLED_LIST = "historic"

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
    with scratch_database("upgrade", tmp_path) as url:
        yield url


def snapshot(tree: Path, env: dict) -> dict:
    line = next(
        line for line in manage(tree, env, "shell", "-c", SNAPSHOT).stdout.splitlines() if line.startswith("SNAPSHOT")
    )
    return json.loads(line.removeprefix("SNAPSHOT"))


def test_a_database_of_the_previous_release_migrated_forward_serves_the_same_lists_and_its_uploads(
    old_tree, upgrade_database, tmp_path
):
    archive = pack(DEMO / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8", DEMO, tmp_path / "kept.tar.gz", copy=1)
    env = command_env(upgrade_database, tmp_path / "old-media", TEST_ARCHIVE=str(archive))
    manage(old_tree, env, "migrate", "--noinput", "-v", "0")
    manage(old_tree, env, "load_demo")
    run_id = int(manage(old_tree, env, "shell", "-c", LOAD_UPLOAD).stdout.split()[-1])
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

    migrated = manage(REPO_ROOT, env, "migrate", "--noinput").stdout

    assert f"Rebuilt the lists that had no entries: {REFILLED_LIST}" in migrated
    assert snapshot(REPO_ROOT, env) == before
    download = f"""
from django.test import Client
import hashlib
print("SHA", hashlib.sha256(b"".join(Client().get("/runs/{run_id}/upload/").streaming_content)).hexdigest())
"""
    assert (
        manage(REPO_ROOT, env, "shell", "-c", download).stdout.split()[-1]
        == hashlib.sha256(archive.read_bytes()).hexdigest()
    )
