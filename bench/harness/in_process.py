"""Django set up in the benchmark's own process, for set-up and checks (never for timing)."""

from __future__ import annotations

import os

from rig.client import require_loopback
from rig.processes import child_env


def django_setup(database_url: str, redis_url: str | None = None) -> None:
    """Configure Django in this process against our database."""
    require_loopback(database_url)
    os.environ.pop("REDIS_URL", None)
    os.environ.update(child_env({"DATABASE_URL": database_url}))
    if redis_url:
        os.environ["REDIS_URL"] = redis_url
    import django

    django.setup()
