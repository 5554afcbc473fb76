"""Where uploads are kept: PostgreSQL by default, an S3-compatible bucket when IOBOARD_S3_BUCKET is set."""

import json
import os
import subprocess
import sys

from tests.conftest import REPO_ROOT

PROBE = """
import json, django
django.setup()
from django.core.files.storage import storages
default_storage = storages["default"]
print(json.dumps({
    "class": f"{type(default_storage).__module__}.{type(default_storage).__name__}",
    "bucket": getattr(default_storage, "bucket_name", None),
    "endpoint": getattr(default_storage, "endpoint_url", None),
    "prefix": getattr(default_storage, "location", None),
    "overwrite": getattr(default_storage, "file_overwrite", None),
    "acl": getattr(default_storage, "default_acl", None),
}))
"""


def storage_with(**env) -> dict:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("IOBOARD_S3_", "DATABASE_URL", "REDIS_URL"))}
    clean.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    done = subprocess.run([sys.executable, "-c", PROBE], env=clean, cwd=REPO_ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_uploads_are_kept_in_the_database_by_default():
    assert storage_with()["class"] == "apps.results.storage.DatabaseStorage"


def test_a_bucket_named_in_the_environment_takes_the_uploads_privately_and_never_overwrites():
    found = storage_with(
        IOBOARD_S3_BUCKET="ioboard-uploads",
        IOBOARD_S3_ENDPOINT_URL="http://minio.internal:9000",
        IOBOARD_S3_PREFIX="site-a",
        IOBOARD_S3_ACCESS_KEY_ID="key",
        IOBOARD_S3_SECRET_ACCESS_KEY="secret",
    )
    assert found == {
        "class": "storages.backends.s3.S3Storage",
        "bucket": "ioboard-uploads",
        "endpoint": "http://minio.internal:9000",
        "prefix": "site-a",
        "overwrite": False,
        "acl": "private",
    }
