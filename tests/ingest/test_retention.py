"""Failed uploads' stored files are removed after IOBOARD_FAILED_UPLOAD_RETENTION_DAYS (issue #40, item 7): the
Upload row stays with its job's message, so its uploader can still read why it failed; anything that stored rows
keeps its file. Run daily by the beat schedule (apps.ingest.tasks.remove_expired_failed_uploads) and on demand
by `manage.py remove_failed_uploads`."""

import io
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone

from apps.ingest.models import IngestJob
from apps.ingest.retention import remove_failed_upload_files
from apps.results.models import Upload
from tests.api.uploading import stored_files, uploaded_run
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


def upload_that(status: str, days_ago: float, content: bytes = b"bytes") -> Upload:
    upload = Upload(sha256=content.hex().ljust(64, "0"), original_name="x.tgz", size=len(content), uploader=None)
    upload.file.save("x.tgz", ContentFile(content), save=True)
    finished = timezone.now() - timedelta(days=days_ago)
    IngestJob.objects.create(
        upload=upload, status=status, error="x.tgz: result.txt:3: not a number", finished_at=finished
    )
    return upload


def test_a_failed_uploads_file_goes_after_the_retention_period_and_its_message_stays(media):
    retention = settings.IOBOARD_FAILED_UPLOAD_RETENTION_DAYS
    old = upload_that("failed", retention + 1, b"old")
    recent = upload_that("failed", retention - 1, b"recent")
    done = upload_that("done", retention + 30, b"done")

    removed = remove_failed_upload_files()

    assert removed == [old.pk]
    assert stored_files() == sorted(Upload.objects.get(pk=pk).file.name for pk in (recent.pk, done.pk))
    kept = Upload.objects.get(pk=old.pk)
    assert not kept.file
    assert kept.jobs.get().error == "x.tgz: result.txt:3: not a number"
    assert remove_failed_upload_files() == []  # idempotent


def test_an_upload_whose_last_job_failed_but_that_stored_runs_keeps_its_file(media):
    run = uploaded_run(UserFactory())
    run.upload.jobs.update(status="failed", finished_at=timezone.now() - timedelta(days=365))

    assert remove_failed_upload_files() == []
    assert Upload.objects.get(pk=run.upload_id).file


def test_the_command_reports_what_it_removed_and_the_beat_schedule_runs_it_daily(media):
    old = upload_that("failed", settings.IOBOARD_FAILED_UPLOAD_RETENTION_DAYS + 1)
    out = io.StringIO()

    call_command("remove_failed_uploads", stdout=out)

    assert f"removed the files of 1 failed upload(s): [{old.pk}]" in out.getvalue()
    tasks = {entry["task"]: entry["schedule"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert tasks["apps.ingest.tasks.remove_expired_failed_uploads"] <= 24 * 3600
