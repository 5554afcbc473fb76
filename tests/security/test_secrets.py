"""Secrets come from the environment only: no key, password or token is written in the code.

The one literal allowed is the development key, which settings use only while DEBUG is on.
"""

import json
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

DEV_KEY = "ioboard-development-only-key-never-use-in-production"
SCANNED = ["config", "apps", "manage.py"]
SECRET_ASSIGNMENT = re.compile(
    r"""(?ix)\b[\w.]*(secret|passw(or)?d|pwd|token|api[_-]?key|private[_-]?key|credential|auth[_-]?key)[\w.]*\b
        ['"]?\s*[:=]\s*(?P<quote>['"])(?P<value>[^'"\n]{4,})(?P=quote)"""
)
URL_CREDENTIALS = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@'\"]+:(?P<value>[^\s/@'\"{}$]+)@")
KEY_MATERIAL = re.compile(
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----|\bAKIA[0-9A-Z]{16}\b|\bghp_[A-Za-z0-9]{36}\b|"
    r"\bsk_live_[A-Za-z0-9]{16,}"
)
# Values that name a setting rather than being one (os.environ["SECRET_KEY"], "SECRET_KEY_FILE").
NOT_SECRETS = re.compile(r"^(SECRET_KEY|[A-Z_]+_FILE)$")


def scanned_files():
    for entry in SCANNED:
        path = REPO_ROOT / entry
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            if "migrations" in file.parts or file.suffix not in {
                ".py",
                ".yml",
                ".yaml",
                ".toml",
                ".cfg",
                ".ini",
                ".json",
                ".env",
                ".txt",
                ".html",
            }:
                continue
            yield file


def findings() -> list[str]:
    found = []
    for file in scanned_files():
        for number, line in enumerate(file.read_text(errors="replace").splitlines(), start=1):
            where = f"{file.relative_to(REPO_ROOT)}:{number}"
            for match in SECRET_ASSIGNMENT.finditer(line):
                value = match.group("value")
                if value != DEV_KEY and not NOT_SECRETS.match(value):
                    found.append(f"{where}: {line.strip()}")
            if URL_CREDENTIALS.search(line) or KEY_MATERIAL.search(line):
                found.append(f"{where}: {line.strip()}")
    return found


def test_no_secret_is_written_in_the_code():
    assert findings() == []


def test_the_scan_would_catch_a_hard_coded_secret(tmp_path, monkeypatch):
    planted = tmp_path / "config"
    planted.mkdir()
    (planted / "settings.py").write_text(
        'SECRET_KEY = "x8#kq!v2m@r7"\nDATABASE_PASSWORD = "hunter"\n'
        'DATABASE_URL = "postgres://ioboard:s3cret@db:5432/ioboard"\nEMAIL_HOST_PASSWORD="abcd1234"\n'
    )
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    assert len(findings()) == 4


def test_the_settings_hold_no_key_at_all_make_run_brings_its_own():
    """No default key outside `make run`: a settings file that holds one gives it to any deployment that forgot
    its own. `make run` (DEBUG on, on the loopback) passes the development key; nothing else names it."""
    assert DEV_KEY not in (REPO_ROOT / "config" / "settings.py").read_text()
    makefile = (REPO_ROOT / "Makefile").read_text()
    assert re.search(rf"^run: export SECRET_KEY = {DEV_KEY}$", makefile, re.MULTILINE)
    assert makefile.count(DEV_KEY) == 1


PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'key': settings.SECRET_KEY, 'db': settings.DATABASES['default'].get('PASSWORD', '')}))"
)


def probe(**env) -> dict:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "SECRET_KEY_FILE"}
    }
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=clean, cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_in_production_the_key_comes_from_the_environment():
    key = "k" * 20 + "-from-the-environment-" + "z" * 20
    assert probe(DEBUG="0", SECRET_KEY=key, SECURE_SSL_REDIRECT="0")["key"] == key


def test_in_production_the_key_can_come_from_a_secrets_file(tmp_path):
    secret = tmp_path / "secret_key"
    secret.write_text("from-a-docker-secret-file-" + "q" * 30 + "\n")
    found = probe(DEBUG="0", SECRET_KEY_FILE=str(secret), SECURE_SSL_REDIRECT="0")
    assert found["key"] == "from-a-docker-secret-file-" + "q" * 30


def test_the_database_password_comes_only_from_database_url():
    key = "k" * 50
    assert probe(SECRET_KEY=key, DATABASE_URL="postgres://ioboard:from-env-pw@127.0.0.1:5432/x")["db"] == "from-env-pw"
    assert probe(SECRET_KEY=key)["db"] in ("", None)


@pytest.mark.parametrize("env", [{"DEBUG": "0"}, {"DEBUG": "0", "SECRET_KEY": ""}, {}, {"DEBUG": "1"}])
def test_without_a_key_it_refuses_to_start_instead_of_using_the_development_key(env):
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "SECRET_KEY_FILE", "DEBUG"}}
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=clean, cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode != 0
    assert DEV_KEY not in done.stdout
    assert "SECRET_KEY (or SECRET_KEY_FILE) must be set" in done.stderr
