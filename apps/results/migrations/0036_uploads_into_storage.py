"""Move the uploads kept under MEDIA_ROOT (before 0035) into the configured storage: PostgreSQL's UploadBlob
rows by default, or the S3 bucket (docs/deployment.md).

Idempotent: a file already in the storage is left alone, so a migration interrupted half-way runs again. A
file missing on disk is reported, not fatal: its upload's row stays, and its download answers 404 as it did
before.
"""

from django.db import migrations

from apps.results.storage import move_media_into_storage


def move_uploads(apps, schema_editor):
    moved, missing = move_media_into_storage(apps.get_model("results", "Upload"), apps.get_model("results", "UploadBlob"))
    if moved or missing:
        print(f"\n  uploads moved from MEDIA_ROOT into the storage: {moved}; missing on disk: {len(missing)}")
    for name in missing:
        print(f"  missing under MEDIA_ROOT: {name}")


class Migration(migrations.Migration):
    dependencies = [("results", "0035_upload_blobs")]

    operations = [migrations.RunPython(move_uploads, migrations.RunPython.noop, elidable=True)]
