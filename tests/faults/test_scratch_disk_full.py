"""A worker's scratch disk full: the upload is given back and retried, and done once there is room; nothing partial.

Real gunicorn, a private redis-server and a real Celery worker whose temporary directory (TMPDIR, where it copies
and unpacks each upload) is a 1 MiB tmpfs of this test, filled to the last byte. The ingest cannot even copy the
upload out of the database: that is a fault of the host, not of the upload, so the job is not failed as bad
content nor as an "internal error": it goes back to pending and is tried again (the task's retry, growing
pauses). The web keeps answering meanwhile. Once the filler is removed the next try ingests it: done, one run,
and no extraction directory left on the scratch disk.
"""

import pytest

from rig import client, processes
from rig.filesystems import fill
from tests.faults.conftest import needs_real_services
from tests.faults.scratch import tiny_filesystem
from tests.faults.stack import SUBMISSIONS, assert_each_upload_ended_and_ran_once, submission_archive

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scratch(tmp_path):
    needs_real_services()
    with tiny_filesystem(tmp_path / "scratch") as directory:
        yield directory


@pytest.fixture
def stack(scratch, stack):
    stack.start_web()
    stack.start_worker("full-scratch", TMPDIR=str(scratch))
    return stack


def test_an_upload_meeting_a_full_scratch_disk_is_retried_and_done_once_there_is_room(stack, scratch):
    filler = fill(scratch)
    status, answer = stack.upload("submission.tgz", submission_archive(SUBMISSIONS[3]))
    assert status == 202, answer
    upload_id = answer["id"]

    def tried_and_given_back():
        now = stack.status_of(upload_id)
        return now["status"] == "pending" and now["attempts"] >= 1 and now

    waiting = processes.wait_until(tried_and_given_back, timeout=30, what="a try that found the scratch disk full")
    assert waiting["error"] == ""  # not failed: neither the upload's fault nor an internal error
    assert client.http("GET", stack.base + "/healthz", timeout=10)[0] == 200  # the web answers all along
    assert "the scratch space of this worker" in stack.services[-1].log.read_text()  # the operator is told why

    filler.unlink()
    finals = stack.wait_until_finished([upload_id], timeout=60)
    assert finals[upload_id]["status"] == "done", finals
    assert finals[upload_id]["attempts"] >= 2
    assert_each_upload_ended_and_ran_once(stack, finals, sent=1)
    assert list(scratch.glob("ioboard-upload-*")) == []  # no copy, no half-unpacked archive left behind


def test_a_scratch_disk_full_at_every_try_fails_the_upload_with_a_message_naming_the_cause(tmp_path, monkeypatch):
    """In-process (the task's retries run at once, eagerly) on a real full tmpfs: once the retries are spent the
    job fails, and its message says what happened, that nothing was stored, and whose fault it was."""
    import hashlib
    import tempfile

    from django.core.files.base import ContentFile

    from apps.ingest.models import IngestJob
    from apps.ingest.tasks import ingest_upload_task
    from apps.results.models import Run, Upload

    data = submission_archive(SUBMISSIONS[4])
    upload = Upload(sha256=hashlib.sha256(data).hexdigest(), original_name="always-full.tgz", size=len(data))
    upload.file.save("always-full.tgz", ContentFile(data), save=True)
    job = IngestJob.objects.create(upload=upload)
    with tiny_filesystem(tmp_path / "scratch") as scratch:
        fill(scratch)
        monkeypatch.setattr(tempfile, "tempdir", str(scratch))
        # Each eager retry is a nested apply(), which raises its task's Retry unless told not to propagate.
        monkeypatch.setitem(ingest_upload_task.app.conf, "task_eager_propagates", False)
        ingest_upload_task.apply(args=[job.pk])
        assert list(scratch.glob("ioboard-upload-*")) == []

    job.refresh_from_db()
    assert job.status == "failed"
    assert job.attempts == ingest_upload_task.max_retries + 1
    assert job.error.startswith("always-full.tgz: not ingested: the scratch space of this worker is full"), job.error
    assert "No space left on device" in job.error
    assert "nothing was stored" in job.error
    assert str(tmp_path) not in job.error  # no server path in what the uploader reads
    assert Run.objects.count() == 0
