"""Celery tasks: run the ingest of an upload, and sweep up jobs whose message was lost.

Tasks are acknowledged late, so a worker that dies mid-ingest has its message redelivered. That is
safe because a job is claimed with a conditional UPDATE (a finished job is never run again) and
the ingest service finds the runs it already stored instead of creating new ones.

This module is the life of an upload's job (claim, attempts, the outcome the uploader reads, the sweep of
lost messages), next to `apps.ingest.uploads`, which creates the job and queues it on commit. The ingest
itself, `apps.ingest.pipelines.ingest_upload`, stays free of Celery: the `ingest` command runs it
in-process. Found by autodiscovery (config.celery), each task is registered under its dotted path, the name
it always had, and retried as every task is (config.celery.RetriedTask); the ingest keeps tighter time limits
of its own.
"""

import logging
import re
import tempfile
import time
from contextlib import suppress
from datetime import timedelta

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready
from celery.utils.time import get_exponential_backoff_interval
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.ingest.core.archive import SCRATCH_PREFIX, ScratchSpaceFull, sweep_orphaned_scratch
from apps.ingest.core.common import IngestError
from apps.ingest.models import IngestJob
from apps.ingest.pipelines import ingest_upload
from apps.ingest.retention import remove_failed_upload_files
from apps.results.services.list_entries import analyze_after_bulk_write
from apps.results.services.notifications import notify_upload_outcome
from config.celery import TRANSIENT_ERRORS

logger = logging.getLogger(__name__)

#: An extraction directory (apps.ingest.core.archive.open_input) and the slash after it, wherever the temp dir is.
SCRATCH_PATH = re.compile(rf"(?:/[^\s:'\"]*)?/{re.escape(SCRATCH_PREFIX)}[^/\s:'\"]*/?")

# A job that keeps killing its worker, or timing out, is given up rather than retried forever.
MAX_ATTEMPTS = 10


class IngestStarved(Exception):
    """The soft time limit ended an attempt that had had less than IOBOARD_INGEST_CPU_SHARE of it in CPU time: the
    host kept a niced worker waiting, the upload did not cost it. A fault of the server, retried like a full scratch
    space; the upload that costs its time limit in CPU still fails as before."""

    def __init__(self, cpu_seconds: float):
        super().__init__(
            f"the server was too busy to ingest it (stopped at its limit of {settings.IOBOARD_INGEST_SOFT_TIME_LIMIT} "
            f"seconds having had {cpu_seconds:.1f} s of CPU)"
        )


@shared_task(
    bind=True,
    soft_time_limit=settings.IOBOARD_INGEST_SOFT_TIME_LIMIT,
    time_limit=settings.IOBOARD_INGEST_TIME_LIMIT,
)
def ingest_upload_task(self, job_pk: int, resuming: int | None = None) -> None:
    """Ingest the upload of one job and record the outcome on the job. Running it twice is harmless.

    A fault of the database, the broker or this worker's scratch space stops the attempt, not the upload: the job is
    given back and the task retried later (the task's own retry policy). The retry carries the attempt it held
    (`resuming`), so it takes its own claim back even when giving it back failed (the database was away), instead of
    leaving the job "processing" until the claim lapses and the sweep comes by. A host too busy to give the ingest
    its CPU within the soft time limit is such a fault too (IngestStarved). Once the retries are spent, a scratch
    space still full or a host still too busy fails the job with a message naming the cause; a database still away
    leaves it to the sweep."""
    job = IngestJob.objects.select_related("upload").filter(pk=job_pk).first()
    if job is None or not job.claim(resuming=resuming):
        return
    try:
        ingest_claimed_job(job)
    except (ScratchSpaceFull, IngestStarved) as error:
        logger.warning(
            "ingest of job %s, attempt %s: %s (scratch: %s)", job.pk, job.attempts, error, tempfile.gettempdir()
        )
        if self.request.retries >= self.max_retries:
            record_failure(
                job,
                f"{job.upload.original_name}: not ingested: {error}, each of the {self.request.retries + 1} times it "
                "was tried; nothing was stored. The upload is kept: this is a fault of the server, not of the upload, "
                "and the site's administrators can ingest it again once the server has room for it",
            )
            return
        job.release()
        raise self.retry(exc=error, kwargs={"resuming": job.attempts}, countdown=retry_pause(self)) from error
    except TRANSIENT_ERRORS as error:
        with suppress(*TRANSIENT_ERRORS):  # the database may still be away: the retry resumes this claim then
            job.release()
        raise self.retry(exc=error, kwargs={"resuming": job.attempts}, countdown=retry_pause(self)) from error


def retry_pause(task) -> int:
    """The pause before the next try: the task's own backoff (config.celery.RetriedTask), growing and jittered."""
    return get_exponential_backoff_interval(
        factor=task.retry_backoff,
        retries=task.request.retries,
        maximum=task.retry_backoff_max,
        full_jitter=task.retry_jitter,
    )


def ingest_claimed_job(job: IngestJob) -> None:
    """The ingest of a job this worker has claimed, to its outcome; a transient fault is raised to the task.

    The soft time limit is wall-clock, but the budget is what the upload cost: the CPU time of this worker process
    over the attempt (user and system, `time.process_time`; a prefork pool process runs one task at a time, and
    the whole process, not one thread, so that no work handed to a thread escapes the count)."""
    if job.attempts > MAX_ATTEMPTS:
        record_failure(job, f"gave up after {MAX_ATTEMPTS} attempts (the ingest crashed or timed out each time)")
        return
    cpu_at_start = time.process_time()
    try:
        runs = ingest_upload(job.upload)
    except IngestError as error:
        record_failure(job, str(error))
    except SoftTimeLimitExceeded as limit:
        cpu_seconds = time.process_time() - cpu_at_start
        if cpu_seconds < settings.IOBOARD_INGEST_CPU_SHARE * settings.IOBOARD_INGEST_SOFT_TIME_LIMIT:
            raise IngestStarved(cpu_seconds) from limit
        record_failure(job, f"ingest did not finish within {settings.IOBOARD_INGEST_SOFT_TIME_LIMIT} seconds")
    except (*TRANSIENT_ERRORS, ScratchSpaceFull):
        raise
    except Exception:
        logger.exception("ingest of upload %s (job %s) crashed", job.upload_id, job.pk)
        record_failure(
            job,
            f"internal error while ingesting {job.upload.original_name} (job {job.pk}); "
            "the details are in the server log",
        )
    else:
        record_success(job, runs)
        analyze_after_bulk_write(len(runs))  # an archive of hundreds of runs is a bulk load


def record_success(job: IngestJob, runs) -> None:
    with transaction.atomic():
        if job.finish(IngestJob.Status.DONE):
            job.runs.set(runs)
            notify_upload_outcome(job.upload, failed=False)


def record_failure(job: IngestJob, message: str) -> None:
    """The message the uploader reads: what failed, naming the file and line, without where we unpacked it."""
    with transaction.atomic():
        if job.finish(IngestJob.Status.FAILED, error=without_server_paths(message)):
            notify_upload_outcome(job.upload, failed=True, error=job.error)


def without_server_paths(message: str) -> str:
    """Paths as the uploader knows them: inside the archive, not in the scratch or media directory of a worker."""
    message = SCRATCH_PATH.sub("", message)
    return message.replace(str(settings.MEDIA_ROOT).rstrip("/") + "/", "")


def stuck_jobs(older_than: timedelta):
    """Jobs whose message was lost: pending for too long, or processing past any time limit."""
    cutoff = timezone.now() - older_than
    return IngestJob.objects.filter(
        Q(status=IngestJob.Status.PENDING, created_at__lt=cutoff)
        | Q(status=IngestJob.Status.PROCESSING, started_at__lt=cutoff)
    )


def requeue_jobs(older_than: timedelta) -> list[int]:
    """Enqueue the stuck jobs again; a duplicate message is harmless, the claim lets one through."""
    job_pks = list(stuck_jobs(older_than).values_list("pk", flat=True))
    for job_pk in job_pks:
        ingest_upload_task.delay(job_pk)
    return job_pks


@worker_ready.connect
def requeue_when_a_worker_starts(**kwargs) -> None:
    """A worker starting is when Redis has often just come back: enqueue every job that has not finished, whatever
    its age (an upload kept while the broker was away waits for no one). Duplicates are dropped by the claim."""
    try:
        requeued = requeue_jobs(timedelta(0))
    except Exception:  # a worker must start even so; the periodic sweep comes next
        logger.exception("worker start: the unfinished ingest jobs could not be enqueued")
        return
    if requeued:
        logger.warning("worker start: enqueued %d unfinished ingest jobs: %s", len(requeued), requeued)


@shared_task
def requeue_stuck_uploads() -> int:
    """Periodic sweep (CELERY_BEAT_SCHEDULE): re-enqueue uploads stuck for IOBOARD_STUCK_UPLOAD_MINUTES."""
    requeued = requeue_jobs(timedelta(minutes=settings.IOBOARD_STUCK_UPLOAD_MINUTES))
    if requeued:
        logger.warning("re-enqueued %d stuck ingest jobs: %s", len(requeued), requeued)
    orphans = sweep_orphaned_scratch(older_than_seconds=2 * settings.CELERY_TASK_TIME_LIMIT)
    if orphans:
        logger.warning("removed %d extraction directories of killed workers", len(orphans))
    return len(requeued)


@shared_task(name="apps.ingest.tasks.remove_expired_failed_uploads")
def remove_expired_failed_uploads() -> int:
    """Daily (CELERY_BEAT_SCHEDULE): remove failed uploads' files past their retention (apps.ingest.retention)."""
    return len(remove_failed_upload_files())
