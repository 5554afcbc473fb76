"""Test settings: the real settings, plus knobs that only make sense under test."""

import os
import tempfile

os.environ.setdefault("DEBUG", "1")
# The settings hold no key; the tests' own, inherited by the workers and servers they start.
os.environ.setdefault("SECRET_KEY", "ioboard-tests-only-key-" + "t" * 40)

from config.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405
ALLOWED_HOSTS = ["localhost", "127.0.0.1", "testserver"]
MEDIA_ROOT = tempfile.mkdtemp(prefix="ioboard-test-media-")
SECURE_SSL_REDIRECT = False
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {
        "anon": "100000/min",
        "user": "100000/min",
        "uploads": "100000/min",
        "custom_lists": "100000/min",
        "pages": "100000/min",
        "exports": "100000/min",
    },
}
IOBOARD_PAGE_CACHE_SECONDS = 0  # tests roll back, so on_commit never bumps the data version; freshness tests turn it on

# A second alias on the same database, as a replica is configured (config/replica.py); the router is switched on
# only by the tests of the replica (tests/config/test_replica.py), so every other test reads the primary.
DATABASES["replica"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}  # noqa: F405
# The in-process test worker (tests/conftest.py) runs in pytest's own process: it keeps pytest's priority. Workers
# started as processes of their own run under config.settings, at its default.
IOBOARD_WORKER_NICE = 0
