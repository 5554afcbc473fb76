"""The embedded-vs-real switch: DATABASE_URL and REDIS_URL decide, nothing else."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'engine': settings.DATABASES['default']['ENGINE'], "
    "'eager': settings.CELERY_TASK_ALWAYS_EAGER, 'broker': settings.CELERY_BROKER_URL, "
    "'cache': settings.CACHES['default']['BACKEND'], 'debug': settings.DEBUG, "
    "'ssl_redirect': settings.SECURE_SSL_REDIRECT, 'cache_prefix': settings.IOBOARD_CACHE_PREFIX}))"
)


def probe_settings(**env) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "IOBOARD_CACHE_PREFIX"}
    }
    clean.update({"SECRET_KEY": "s" * 50, **env}, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=clean, cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_it_defaults_to_sqlite_eager_celery_and_local_memory_cache():
    found = probe_settings()
    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["eager"] is True
    assert found["broker"] == "memory://"
    assert found["cache"].endswith("LocMemCache")


def test_debug_is_off_unless_asked_for():
    assert probe_settings()["debug"] is False
    assert probe_settings(DEBUG="1")["debug"] is True


def test_it_switches_to_postgresql_and_redis_when_their_urls_are_set():
    found = probe_settings(DATABASE_URL="postgres://u@127.0.0.1:5432/x", REDIS_URL="redis://127.0.0.1:6379/3")
    assert found["engine"] == "django.db.backends.postgresql"
    assert found["eager"] is False
    assert found["broker"] == "redis://127.0.0.1:6379/3"
    assert found["cache"].endswith("RedisCache")


def test_the_cache_prefix_follows_the_database_unless_set():
    redis = "redis://127.0.0.1:6379/3"
    one = probe_settings(DATABASE_URL="postgres://u@127.0.0.1:5432/board_one", REDIS_URL=redis)
    two = probe_settings(DATABASE_URL="postgres://u@127.0.0.1:5432/board_two", REDIS_URL=redis)
    chosen = probe_settings(
        DATABASE_URL="postgres://u@127.0.0.1:5432/board_one", REDIS_URL=redis, IOBOARD_CACHE_PREFIX="site-a"
    )

    assert (one["cache_prefix"], two["cache_prefix"]) == ("ioboard:board_one", "ioboard:board_two")
    assert chosen["cache_prefix"] == "site-a"


def test_it_refuses_to_run_in_production_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env.update(DEBUG="0", DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "SECRET_KEY" in done.stderr


def test_ssl_redirect_is_on_in_production_and_can_be_turned_off():
    secret = "x" * 60
    assert probe_settings(DEBUG="0", SECRET_KEY=secret)["ssl_redirect"] is True
    assert probe_settings(DEBUG="0", SECRET_KEY=secret, SECURE_SSL_REDIRECT="0")["ssl_redirect"] is False


def test_a_malformed_flag_is_an_error_not_a_guess():
    env = {**os.environ, "DEBUG": "maybe", "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode != 0
    assert "DEBUG must be 0 or 1" in done.stderr


@pytest.mark.parametrize("extra", [{}, {"SECURE_SSL_REDIRECT": "1"}])
def test_check_deploy_is_clean_with_production_environment(extra):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(
        DEBUG="0",
        SECRET_KEY="k3y-" + "a1b2c3d4e5" * 6,
        ALLOWED_HOSTS="ioboard.example.org",
        DJANGO_SETTINGS_MODULE="config.settings",
        **extra,
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
