import shutil
import subprocess

import pytest
import yaml

from tests.conftest import REPO_ROOT

DOCKER = REPO_ROOT / "docker"


def test_compose_runs_postgres_redis_web_worker_and_a_one_shot_migrate():
    compose = yaml.safe_load((DOCKER / "compose.yml").read_text())
    services = compose["services"]
    assert {"db", "redis", "web", "worker", "migrate"} <= set(services)
    assert services["migrate"]["command"][-2:] == ["migrate", "--noinput"]
    assert services["web"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert "celery" in services["worker"]["command"]


def test_the_image_runs_as_a_non_root_user_and_collects_static_at_build():
    dockerfile = (DOCKER / "Dockerfile").read_text()
    assert "\nUSER ioboard" in dockerfile
    assert "collectstatic --noinput" in dockerfile
    assert "gunicorn" in dockerfile


def test_docker_compose_accepts_the_file_when_docker_compose_is_installed():
    if (
        not shutil.which("docker")
        or subprocess.run(["docker", "compose", "version"], capture_output=True, check=False).returncode != 0
    ):
        pytest.skip("docker compose is not installed on this machine")
    done = subprocess.run(
        ["docker", "compose", "-f", str(DOCKER / "compose.yml"), "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
