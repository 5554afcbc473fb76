import fnmatch
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


# The secrets compose cannot start without: each is interpolated as ${NAME:?message}, so `docker compose up`
# stops with the message instead of starting on a default or an empty value.
COMPOSE_SECRETS = {"SECRET_KEY", "POSTGRES_PASSWORD", "DATABASE_URL"}
REQUIRED = re.compile(r"\$\{(?P<name>[A-Z_]+):\?(?P<message>[^}]+)\}")


def compose_config(env: dict[str, str]) -> subprocess.CompletedProcess:
    if (
        not shutil.which("docker")
        or subprocess.run(["docker", "compose", "version"], capture_output=True, check=False).returncode != 0
    ):
        pytest.skip("docker compose is not installed on this machine")
    clean = {k: v for k, v in os.environ.items() if k not in COMPOSE_SECRETS}
    return subprocess.run(
        ["docker", "compose", "-f", str(DOCKER / "compose.yml"), "--env-file", os.devnull, "config", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        env={**clean, **env},
    )


def test_docker_compose_accepts_the_file_when_docker_compose_is_installed():
    done = compose_config({"SECRET_KEY": "k" * 50, "POSTGRES_PASSWORD": "pw", "DATABASE_URL": "postgres://db/x"})
    assert done.returncode == 0, done.stderr


def test_compose_refuses_to_start_without_its_secrets():
    """Every secret is required by interpolation (no `:-default`), and the app services get the key from it."""
    text = (DOCKER / "compose.yml").read_text()
    required = {match["name"] for match in REQUIRED.finditer(text)}
    assert required == COMPOSE_SECRETS
    assert not re.search(r"\$\{(SECRET_KEY|POSTGRES_PASSWORD|DATABASE_URL):?-", text)
    app = yaml.safe_load(text)["services"]["web"]
    assert REQUIRED.fullmatch(app["environment"]["SECRET_KEY"])
    assert REQUIRED.fullmatch(app["environment"]["DATABASE_URL"])


def test_docker_compose_stops_with_the_message_when_a_secret_is_missing():
    done = compose_config({"POSTGRES_PASSWORD": "pw", "DATABASE_URL": "postgres://db/x"})
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr


@pytest.mark.parametrize("path", [".env", "docker/.env"])
def test_the_env_file_is_neither_committed_nor_copied_into_the_image(path):
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=REPO_ROOT, check=False)
    assert ignored.returncode == 0, f"{path} is not git-ignored"
    patterns = [
        line.strip()
        for line in (REPO_ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert any(fnmatch.fnmatchcase(path, pattern) for pattern in patterns), f"{path} is copied into the image"


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
