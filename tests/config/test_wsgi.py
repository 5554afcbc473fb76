"""A served worker loads its pages' code and templates before the first request and freezes them for the garbage
collector (config/wsgi.py), so a full collection never walks them in the middle of a request."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

LOAD_THE_WORKER = """
import gc, json
import config.wsgi
from django.template import engines
loader = engines["django"].engine.template_loaders[0]
print(json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects()),
                  "compiled": sorted(name for name in loader.get_template_cache if name.endswith(".html"))}))
"""


def load_a_worker() -> dict:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "0", "SECRET_KEY": "k" * 50}
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "-c", LOAD_THE_WORKER],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_worker_freezes_nearly_everything_it_holds_before_serving():
    worker = load_a_worker()
    assert worker["frozen"] > 20 * worker["tracked"]


def test_every_template_is_compiled_before_the_first_request():
    templates = sorted(
        path.relative_to(REPO_ROOT / "templates").as_posix() for path in (REPO_ROOT / "templates").rglob("*.html")
    )
    assert load_a_worker()["compiled"] == templates
