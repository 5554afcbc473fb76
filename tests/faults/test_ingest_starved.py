"""A host too busy to give an ingest its CPU costs no user an answer; an upload that costs its time limit still fails.

A real prefork worker (the pool's timer raises the soft time limit) on the real Redis and PostgreSQL, with a soft
limit of 2 s. Its ingest is wrapped: "idle.tgz" sleeps (no CPU) past the limit on its first two tries, as an honest
upload does on a host that gives a niced worker no CPU, then ingests; "burn.tgz" spins on the CPU until the limit.
The idle one is given back, retried and done, one run; the burning one fails at its first try with the message of
a time limit, nothing stored. The share of the limit that counts as the upload's cost is lowered to a tenth here,
so that the burner, at niceness 0 on a shared test host, surely has it. The hard limit stays the last bound:
"stuck.tgz" ignores the soft limit on its first try (as C code does), is killed by the hard one, and the sweep's
message takes the job over once its claim has lapsed.
"""

import hashlib
import time
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone

from apps.ingest.models import IngestJob
from apps.ingest.tasks import ingest_upload_task, stuck_jobs
from apps.results.models import Run, Upload
from tests.api.uploading import DEMO_SUBMISSION, tar_gz_of
from tests.faults.conftest import needs_real_services, prefork_worker_argv, wait_for, worker_env

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

STAND_IN_WORKER = """
import os, sys, time
from pathlib import Path
import django
django.setup()
from celery.exceptions import SoftTimeLimitExceeded
from apps.ingest import tasks
real_ingest_upload = tasks.ingest_upload
def stand_in(upload):
    tries = Path(os.environ["TRIES"]) / upload.original_name
    tried = int(tries.read_text()) if tries.exists() else 0
    tries.write_text(str(tried + 1))
    if upload.original_name == "burn.tgz":
        while True:
            pass
    if upload.original_name == "stuck.tgz" and tried == 0:
        while True:
            try:
                time.sleep(60)
            except SoftTimeLimitExceeded:
                pass
    if upload.original_name == "idle.tgz" and tried < 2:
        time.sleep(60)
    return real_ingest_upload(upload)
tasks.ingest_upload = stand_in
from celery.__main__ import main
sys.argv = ["celery", *sys.argv[1:]]
main()
"""


def stored_job(name: str) -> IngestJob:
    data = tar_gz_of(DEMO_SUBMISSION)
    upload = Upload(sha256=hashlib.sha256(name.encode() + data).hexdigest(), original_name=name, size=len(data))
    upload.file.save(name, ContentFile(data), save=True)
    return IngestJob.objects.create(upload=upload)


#: What the test's process sends with its messages, the worker's own settings aside (a message carries the time
#: limits of its sender; a retry keeps them).
LIMITS = {"soft_time_limit": 2, "time_limit": 6}
#: The worker's IOBOARD_INGEST_CLAIM_SECONDS: past the hard limit, as in the settings.
CLAIM_SECONDS = 8


@pytest.fixture
def stand_in_worker(settings, tmp_path, fault_queue, workers):
    needs_real_services()
    settings.MEDIA_ROOT = str(tmp_path / "media")
    (tmp_path / "tries").mkdir()
    env = worker_env(
        tmp_path / "media",
        IOBOARD_INGEST_SOFT_TIME_LIMIT=str(LIMITS["soft_time_limit"]),
        IOBOARD_INGEST_TIME_LIMIT=str(LIMITS["time_limit"]),
        IOBOARD_INGEST_CLAIM_SECONDS=str(CLAIM_SECONDS),
        IOBOARD_INGEST_CPU_SHARE="0.1",
        TRIES=str(tmp_path / "tries"),
    )
    celery_args = prefork_worker_argv(fault_queue)[2:]  # without "-m celery": the stand-in runs celery's main
    worker = workers.start(["-c", STAND_IN_WORKER, *celery_args], env, tmp_path / "worker.log")
    wait_for(lambda: "ready" in worker.output(), timeout=60, what="the worker to start", worker=worker)
    return worker


def finished(job) -> bool:
    job.refresh_from_db()
    return job.status in (IngestJob.Status.DONE, IngestJob.Status.FAILED)


def test_a_starved_ingest_is_retried_and_done_while_one_burning_its_time_limit_fails(
    stand_in_worker, tmp_path, fault_queue
):
    idle, burning = stored_job("idle.tgz"), stored_job("burn.tgz")
    ingest_upload_task.apply_async((burning.pk,), queue=fault_queue, **LIMITS)
    ingest_upload_task.apply_async((idle.pk,), queue=fault_queue, **LIMITS)

    wait_for(
        lambda: finished(idle) and finished(burning), timeout=150, what="both jobs to finish", worker=stand_in_worker
    )
    assert (burning.status, burning.attempts) == ("failed", 1), burning.error
    assert burning.error == "ingest did not finish within 2 seconds"
    assert (tmp_path / "tries" / "burn.tgz").read_text() == "1"
    assert (idle.status, idle.error, idle.attempts) == ("done", "", 3)
    assert (tmp_path / "tries" / "idle.tgz").read_text() == "3"
    assert Run.objects.count() == 1
    assert Run.objects.get().upload_id == idle.upload_id


def test_an_ingest_the_hard_limit_kills_is_taken_over_by_the_sweep_once_its_claim_lapsed(stand_in_worker, fault_queue):
    stuck = stored_job("stuck.tgz")
    ingest_upload_task.apply_async((stuck.pk,), queue=fault_queue, **LIMITS)

    wait_for(lambda: "Hard time limit" in stand_in_worker.output(), timeout=60, what="the kill", worker=stand_in_worker)
    stuck.refresh_from_db()
    assert (stuck.status, stuck.attempts) == ("processing", 1)  # its message was acknowledged: the sweep's to find
    assert Run.objects.count() == 0

    time.sleep(max(0, CLAIM_SECONDS + 1 - (timezone.now() - stuck.started_at).total_seconds()))  # the claim lapses
    # The sweep (requeue_stuck_uploads) finds it; its message goes to the default queue, here to this test's worker.
    swept = list(stuck_jobs(timedelta(0)).values_list("pk", flat=True))
    assert swept == [stuck.pk]
    ingest_upload_task.apply_async((stuck.pk,), queue=fault_queue, **LIMITS)

    wait_for(lambda: finished(stuck), timeout=60, what="the swept job to finish", worker=stand_in_worker)
    assert (stuck.status, stuck.error, stuck.attempts) == ("done", "", 2)
    assert Run.objects.get().upload_id == stuck.upload_id
