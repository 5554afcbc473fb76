"""The container's health check passes against gunicorn running with the documented production settings.

docker/.env.example is what an operator copies: DEBUG off, the public host name only in ALLOWED_HOSTS, https
redirects on, behind a TLS proxy. The Dockerfile's HEALTHCHECK (docker/healthcheck.py) asks
http://127.0.0.1:8000/healthz from inside the container: plain HTTP, as host 127.0.0.1. Docker need not be
installed: the same command runs here against gunicorn started with those settings on an ephemeral port.
"""

import os
import subprocess
import sys
from urllib.parse import urlsplit, urlunsplit

import pytest

import rig
from rig import client, processes
from tests.conftest import REPO_ROOT

ENV_EXAMPLE = REPO_ROOT / "docker" / ".env.example"
PUBLIC_HOST = "ioboard.example.org"


def documented_environment() -> dict[str, str]:
    pairs = (
        line.split("=", 1)
        for line in ENV_EXAMPLE.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    )
    return {key.strip(): value.strip() for key, value in pairs}


def reachable_here(documented: dict[str, str], tmp_path) -> dict[str, str]:
    """The documented settings, with the database and Redis of this test run in place of the compose services
    (the maintenance database `postgres`, since /healthz only asks the server to answer)."""
    env = {**os.environ, **documented, "LOG_LEVEL": "WARNING", "DJANGO_SETTINGS_MODULE": "config.settings"}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    if os.environ.get("DATABASE_URL"):
        parts = urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(parts._replace(path="/postgres"))
    else:
        env["SQLITE_PATH"] = str(tmp_path / "healthcheck.sqlite3")
    if os.environ.get("REDIS_URL"):
        env["REDIS_URL"] = os.environ["REDIS_URL"]
    return env


@pytest.fixture(scope="module")
def production_gunicorn(tmp_path_factory):
    documented = documented_environment()
    assert documented["DEBUG"] == "0"
    assert documented["ALLOWED_HOSTS"] == PUBLIC_HOST
    assert "SECURE_SSL_REDIRECT" not in documented  # the redirect stays on, as documented
    log_dir = tmp_path_factory.mktemp("healthcheck")
    environment = {**reachable_here(documented, log_dir), "STATIC_ROOT": str(log_dir / "static")}
    # As the image does at build time: DEBUG=0 serves from the manifest, and the error pages need it too.
    processes.manage(["collectstatic", "--noinput", "-v", "0"], env=environment, timeout=600)
    port = processes.free_port()
    argv = [
        str(rig.VENV_BIN / "gunicorn"),
        "config.wsgi:application",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "1",
    ]
    server = processes.Service("gunicorn-healthcheck", argv, env=environment, log_dir=log_dir, raw_env=True)
    try:
        processes.wait_until(
            lambda: client.http("GET", f"http://127.0.0.1:{port}/healthz", timeout=2)[0] != 0,
            timeout=60,
            what="gunicorn with the documented settings",
        )
        yield port
    finally:
        server.stop()


def run_the_health_check(port: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "docker" / "healthcheck.py")],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, "IOBOARD_HEALTHCHECK_URL": f"http://127.0.0.1:{port}/healthz"},
    )


def test_the_dockerfile_runs_the_health_check_script():
    assert (
        'HEALTHCHECK --interval=30s --timeout=5s CMD ["python", "/app/docker/healthcheck.py"]'
        in (REPO_ROOT / "docker" / "Dockerfile").read_text()
    )


def test_the_health_check_passes_under_the_documented_settings(production_gunicorn):
    done = run_the_health_check(production_gunicorn)
    assert done.returncode == 0, done.stderr


def test_the_health_check_host_reaches_healthz_and_nothing_else(production_gunicorn):
    status, _, _ = client.http("GET", f"http://127.0.0.1:{production_gunicorn}/lists/io500/")
    assert status == 400


def test_the_public_host_is_still_sent_to_https(production_gunicorn):
    done = subprocess.run(
        [
            "curl",
            "-s",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code} %{redirect_url}",
            "-H",
            f"Host: {PUBLIC_HOST}",
            f"http://127.0.0.1:{production_gunicorn}/lists/io500/",
        ],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout == f"301 https://{PUBLIC_HOST}/lists/io500/"
