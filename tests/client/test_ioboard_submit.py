"""ioboard-submit (client/) against a live server: gunicorn on a SQLite file with its ingest run in the web
process (eager Celery), started through the rig. The client runs as a user runs it, a process of its own.

Exit status: 0 done, 1 failed, 2 usage or connection; it prints the runs' URLs and every problem."""

import shutil
import subprocess

import pytest

from rig import PYTHON, REPO_ROOT
from rig.processes import free_port, manage
from rig.servers import gunicorn, wait_until_serving
from tests.api.uploading import DEMO_SUBMISSION

MAKE_TOKEN = (
    "from django.apps import apps; from django.contrib.auth import get_user_model; "
    "user = get_user_model().objects.create_user('submitter', 'submitter@example.org', 'pw'); "
    "print(apps.get_model('results', 'ApiToken').issue(user, 'client test')[1])"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(base URL, token) of a live site with one account."""
    root = tmp_path_factory.mktemp("client-server")
    env = {
        "SQLITE_PATH": str(root / "db.sqlite3"),
        "MEDIA_ROOT": str(root / "media"),
        "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "EMAIL_FILE_PATH": str(root / "mail"),
        "IOBOARD_UPLOAD_POLL_SECONDS": "1",
    }
    manage(["migrate", "--noinput", "-v", "0"], env=env)
    token = manage(["shell", "-c", MAKE_TOKEN], env=env).strip().splitlines()[-1]
    port = free_port()
    site = gunicorn(port, env=env, log_dir=root, workers=2)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_serving(base)
        yield base, token
    finally:
        site.stop()


def submit(*args: str, token: str | None = None, home=None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT / "client"), "HOME": str(home or "/nonexistent")}
    if token:
        env["IOBOARD_TOKEN"] = token
    if home:
        env["XDG_CONFIG_HOME"] = str(home)
    return subprocess.run(
        [PYTHON, "-m", "ioboard_submit", *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_a_folder_is_packed_uploaded_followed_and_its_run_printed(server):
    base, token = server
    finished = submit(str(DEMO_SUBMISSION), "--server", base, token=token)
    assert finished.returncode == 0, finished.stderr
    assert f"{base}/runs/" in finished.stdout
    assert "done: 1 run(s) from submission-8.tar.gz" in finished.stdout


def test_a_failed_ingest_prints_each_problem_and_exits_1(server, tmp_path):
    base, token = server
    folder = tmp_path / "broken"
    shutil.copytree(DEMO_SUBMISSION, folder)
    (folder / "ioboard.yaml").write_text("system: Wolf\nclient_nodes:\n  - 1\n  - 2\n")
    failed = submit(str(folder), "--server", base, token=token)
    assert failed.returncode == 1, failed.stderr
    assert "problem: ioboard.yaml:3: 'client_nodes' must be a single value" in failed.stdout


def test_a_refused_file_exits_1_with_the_servers_reason(server, tmp_path):
    base, token = server
    junk = tmp_path / "notes.tgz"
    junk.write_bytes(b"not an archive")
    refused = submit(str(junk), "--server", base, token=token)
    assert refused.returncode == 1
    assert "problem: file: notes.tgz" in refused.stdout


def test_no_wait_prints_where_to_follow_the_upload(server, tmp_path):
    base, token = server
    log = tmp_path / "ior.log"
    log.write_text("IOR-3.3.0: MPI Coordinated Test of Parallel I/O\nnothing else\n")
    queued = submit(str(log), "--server", base, "--kind", "ior", "--no-wait", token=token)
    assert queued.returncode == 0, queued.stderr
    assert f"uploaded: follow it at {base}/api/v1/uploads/" in queued.stdout


def test_the_token_and_server_come_from_the_config_file(server, tmp_path):
    base, token = server
    (tmp_path / "ioboard").mkdir()
    (tmp_path / "ioboard" / "config.toml").write_text(f'server = "{base}"\ntoken = "{token}"\n')
    log = tmp_path / "ior.log"
    log.write_text("IOR-3.3.0: MPI Coordinated Test of Parallel I/O, from the config\n")
    assert submit(str(log), "--kind", "ior", "--no-wait", home=tmp_path).returncode == 0


def test_a_wrong_token_a_dead_server_and_bad_usage_exit_2(server, tmp_path):
    base, _ = server
    wrong = submit(str(DEMO_SUBMISSION), "--server", base, token="0" * 40)
    assert wrong.returncode == 2
    assert "refused the token (401)" in wrong.stderr
    dead = submit(str(DEMO_SUBMISSION), "--server", f"http://127.0.0.1:{free_port()}", token="0" * 40)
    assert dead.returncode == 2
    assert "cannot reach" in dead.stderr
    assert submit("--server", base, token="0" * 40).returncode == 2  # no PATH
    assert submit(str(tmp_path / "absent"), "--server", base, token="0" * 40).returncode == 2
    assert submit(str(DEMO_SUBMISSION), "--server", base).returncode == 2  # no token anywhere
