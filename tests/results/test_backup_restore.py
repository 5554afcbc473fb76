"""Backup and restore as docs/deployment.md describes it: `pg_dump -Fc` of a site with data and uploads, `pg_restore`
into a fresh database, and `manage.py restore_check` proving the restore whole: every page type and API answer as
before, and every run's raw file downloads (uploads live in the database, so the dump holds them).

PostgreSQL only (DATABASE_URL naming it, pg_dump and pg_restore on PATH); elsewhere it skips with a notice.
"""

import shutil
import subprocess

import psycopg
import pytest

from bench.load.uploads import pack
from tests.api.uploading import DEMO
from tests.conftest import REPO_ROOT
from tests.results.databases import LOAD_UPLOAD, command_env, manage, postgres_url, scratch_database


@pytest.fixture
def databases(tmp_path):
    if postgres_url() is None or not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("backup and restore need PostgreSQL (DATABASE_URL) and pg_dump/pg_restore")
    with scratch_database("backup", tmp_path) as site, scratch_database("restored", tmp_path) as restored:
        yield site, restored


def test_a_restored_dump_serves_every_answer_as_before_and_every_raw_file(databases, tmp_path):
    site, restored = databases
    archive = pack(DEMO / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8", DEMO, tmp_path / "kept.tar.gz", copy=1)
    env = command_env(site, tmp_path / "site-media", TEST_ARCHIVE=str(archive))
    manage(REPO_ROOT, env, "migrate", "--noinput", "-v", "0")
    manage(REPO_ROOT, env, "load_demo")
    manage(REPO_ROOT, env, "shell", "-c", LOAD_UPLOAD)
    answers = tmp_path / "answers.json"
    manage(REPO_ROOT, env, "restore_check", "snapshot", str(answers))
    dump = tmp_path / "site.dump"

    subprocess.run(["pg_dump", "-Fc", "--no-owner", "-f", str(dump), site], check=True, timeout=600)
    subprocess.run(["pg_restore", "--no-owner", "--exit-on-error", "-d", restored, str(dump)], check=True, timeout=600)
    restored_env = command_env(restored, tmp_path / "restored-media")
    checked = manage(REPO_ROOT, restored_env, "restore_check", "compare", str(answers))

    assert " answers as before; every run's raw file downloads" in checked.stdout
    assert not any((tmp_path / "restored-media").rglob("*"))  # the raw files came from the database
    with psycopg.connect(restored, autocommit=True) as connection:
        system = connection.execute("SELECT min(id) FROM results_storagesystem").fetchone()[0]
        connection.execute("UPDATE results_storagesystem SET name = name || ' (garbled)' WHERE id = %s", (system,))
        connection.execute("DELETE FROM results_uploadblob")
    garbled = manage(REPO_ROOT, restored_env, "restore_check", "compare", str(answers), check=False)
    assert garbled.returncode == 1
    assert f"/systems/{system}/:" in garbled.stderr
    assert "/upload/: 404, not upload" in garbled.stderr
