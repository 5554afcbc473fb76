"""kill -9 of a Celery worker in the middle of an ingest: the task is redelivered and exactly one run results.

A real worker subprocess on the real Redis and PostgreSQL takes the ingest task, stores the run
inside its transaction and then stalls (a wrapper slows it down at that exact point, so the kill
lands mid-ingest every time). The test kills the whole worker with SIGKILL, checks that nothing
of the half-done ingest is visible, starts a second, ordinary worker, and waits: the unacknowledged
message comes back (acks_late; Redis visibility timeout), the job is claimed again and ends done
with exactly one run.
"""

import hashlib
import time

import pytest
from django.core.files.base import ContentFile

from apps.ingest.models import IngestJob
from apps.ingest.tasks import ingest_upload_task
from apps.results.models import Run, Upload
from tests.api.uploading import DEMO_SUBMISSION, tar_gz_of
from tests.faults.conftest import celery_argv, needs_real_services, wait_for, worker_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

VISIBILITY_TIMEOUT = 2

# `celery worker` whose ingest stops, inside its transaction, right after the run and its rows are
# written: the marker file says "killable now", then it sleeps far longer than the test waits.
STALLING_WORKER = """
import os, sys, time
from pathlib import Path
import django
django.setup()
from apps.ingest.tools.io500 import pipeline as services
original = services.store_children
def stall(stored):
    stored = list(stored)
    original(stored)
    Path(os.environ["FAULT_MARKER"]).write_text(str(stored[0][0].pk))
    time.sleep(300)
services.store_children = stall
from celery.__main__ import main
sys.argv = ["celery", *sys.argv[1:]]
main()
"""


def stored_upload(media_root) -> Upload:
    data = tar_gz_of(DEMO_SUBMISSION)
    sha256 = hashlib.sha256(data).hexdigest()
    upload = Upload(sha256=sha256, original_name="demo.tgz", size=len(data))
    upload.file.save(f"{sha256}.tgz", ContentFile(data), save=True)
    return upload


def test_a_worker_killed_mid_ingest_has_its_task_redelivered_and_one_run_results(
    settings, tmp_path, fault_queue, workers
):
    needs_real_services()
    settings.MEDIA_ROOT = str(tmp_path / "media")
    upload = stored_upload(tmp_path / "media")
    job = IngestJob.objects.create(upload=upload)
    marker = tmp_path / "in-transaction"
    env = worker_env(
        tmp_path / "media",
        CELERY_VISIBILITY_TIMEOUT=str(VISIBILITY_TIMEOUT),
        IOBOARD_INGEST_CLAIM_SECONDS=str(VISIBILITY_TIMEOUT),
        FAULT_MARKER=str(marker),
    )

    first = workers.start(["-c", STALLING_WORKER, *celery_argv(fault_queue, "doomed")], env, tmp_path / "first.log")
    ingest_upload_task.apply_async((job.pk,), queue=fault_queue)
    wait_for(marker.exists, timeout=60, what="the first worker to be mid-ingest", worker=first)

    job.refresh_from_db()
    assert job.status == IngestJob.Status.PROCESSING
    assert job.attempts == 1
    first.kill9()
    # The killed transaction never committed: no run, no phases, nothing half-written.
    assert Run.objects.count() == 0

    time.sleep(VISIBILITY_TIMEOUT + 1)  # the message is now older than the visibility timeout
    second = workers.start(["-m", "celery", *celery_argv(fault_queue, "survivor")], env, tmp_path / "second.log")

    def finished():
        job.refresh_from_db()
        return job.status in (IngestJob.Status.DONE, IngestJob.Status.FAILED)

    wait_for(finished, timeout=60, what="the redelivered task to finish", worker=second)
    assert job.status == IngestJob.Status.DONE, job.error
    assert job.attempts == 2
    assert Run.objects.count() == 1
    run = Run.objects.get()
    assert run.upload_id == upload.pk
    assert list(job.runs.all()) == [run]
    assert run.phases.count() > 0
