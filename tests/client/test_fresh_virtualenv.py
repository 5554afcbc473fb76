"""The acceptance point of issue 37: the sample IO500 submission sent by `ioboard-submit` installed with pip into a
fresh virtualenv, against a live stack started through the rig (gunicorn and a real prefork Celery worker on the
test's PostgreSQL and Redis), prints the run's URL, which answers 200 to its owner.

The virtualenv is made with `python -m venv` and the client installed with `pip install ./client`, as the README
says, through the machine's ordinary pip configuration (its package index, as CI's). The client runs as a process of
its own with nothing of the project on its path. Submitted to edition sc26, the run is private until the release:
the same URL answers 404 to an anonymous reader.
"""

import re
import subprocess
import sys

import pytest
from django.conf import settings
from django.test import Client

from apps.results.models import ApiToken, Run
from rig import REPO_ROOT, client, processes, servers
from tests.api.uploading import DEMO_SUBMISSION
from tests.factories import UserFactory
from tests.faults.conftest import needs_real_services, served_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def live_stack(tmp_path):
    """The base URL of gunicorn with a Celery worker behind it; both stopped at the end. They share the test's
    SECRET_KEY, so a session the test opens for the owner is one the site reads."""
    needs_real_services()
    logs = tmp_path / "logs"
    logs.mkdir()
    env = served_env(tmp_path, SECRET_KEY=settings.SECRET_KEY, IOBOARD_UPLOAD_POLL_SECONDS="1")
    port = processes.free_port()
    stack = [
        servers.gunicorn(port, env=env, log_dir=logs, workers=1, threads=2),
        servers.celery_worker("submit-worker", env=env, log_dir=logs),
    ]
    try:
        base = f"http://127.0.0.1:{port}"
        servers.wait_until_serving(base, timeout=90)
        servers.wait_until_workers_ready(stack[1:], timeout=90)
        yield base
    finally:
        for service in stack:
            service.stop()


@pytest.fixture
def fresh_client(tmp_path) -> str:
    """The path of `ioboard-submit` in a new virtualenv where pip installed ./client and its dependencies."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    installed = subprocess.run(
        [str(venv / "bin" / "pip"), "install", str(REPO_ROOT / "client")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    assert subprocess.run([str(venv / "bin" / "pip"), "check"], timeout=120, check=False).returncode == 0
    return str(venv / "bin" / "ioboard-submit")


def test_a_submission_through_the_client_from_a_fresh_virtualenv_prints_its_run_url(live_stack, fresh_client, tmp_path):
    owner = UserFactory(username="submitter")
    _, token = ApiToken.issue(owner, "fresh virtualenv")

    finished = subprocess.run(
        [fresh_client, str(DEMO_SUBMISSION), "--server", live_stack, "--edition", "sc26"],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "IOBOARD_TOKEN": token},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert "done: 1 run(s) from submission-8.tar.gz" in finished.stdout
    urls = re.findall(rf"{re.escape(live_stack)}/runs/(\d+)/", finished.stdout)
    assert len(urls) == 1, finished.stdout
    run = Run.objects.get(pk=int(urls[0]))
    assert run.upload.uploader == owner
    assert run.upload.edition == "sc26"

    session = Client()
    session.force_login(owner)
    cookie = f"{settings.SESSION_COOKIE_NAME}={session.cookies[settings.SESSION_COOKIE_NAME].value}"
    url = f"{live_stack}/runs/{run.pk}/"
    status, page, _ = client.http("GET", url, headers={"Cookie": cookie})
    assert status == 200
    assert "sc26" in page.decode()
    assert client.http("GET", url)[0] == 404  # private until sc26 is released
