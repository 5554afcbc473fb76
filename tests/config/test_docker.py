import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

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


def test_the_images_gunicorn_takes_its_worker_count_from_web_concurrency():
    """The image's command names no worker count, so WEB_CONCURRENCY (the image's ENV, or the host's .env) sets
    it, as docs/deployment.md says: about 2 x the host's cores."""
    dockerfile = (DOCKER / "Dockerfile").read_text()
    command = json.loads(re.search(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE).group(1))
    image_default = re.search(r"\bWEB_CONCURRENCY=(\d+)", dockerfile).group(1)
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent))

    for workers in (image_default, "7"):
        printed = subprocess.run(
            [gunicorn, *command[1:], "--print-config"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "WEB_CONCURRENCY": workers},
            cwd=REPO_ROOT,
        ).stdout
        assert re.search(rf"^workers\s+= {workers}$", printed, re.MULTILINE), printed
