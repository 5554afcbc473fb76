"""The ingest task: idempotent under redelivery, retries only what may pass, and a sweep for lost jobs."""

import tempfile
import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, transaction
from django.utils import timezone

from apps.ingest import tasks
from apps.ingest.core.common import IngestError
from apps.ingest.models import IngestJob
from apps.ingest.pipelines import ingest_upload as real_ingest_upload
from apps.ingest.tasks import ingest_upload_task, requeue_stuck_uploads
from apps.ingest.uploads import receive_upload
from apps.results.models import Run
from tests.api.uploading import DEMO_SUBMISSION, DEMO_SUBMISSION_SCORE, named_file, tar_gz_of

pytestmark = pytest.mark.django_db


class WorkerKilled(BaseException):
    """Stands for SIGKILL: nothing in the task can catch it, the message stays unacknowledged."""


@pytest.fixture
def job(settings, tmp_path):
    """A pending job for a stored upload of a real submission; its enqueue callback never fires."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    received = receive_upload(
        named_file(tar_gz_of(DEMO_SUBMISSION), "run.tgz"), name="run.tgz", kind="io500", uploader=None, metadata={}
    )
    return received.job


def ingest_then_crash(upload):
    real_ingest_upload(upload)
    raise WorkerKilled


def crash_before_commit(upload):
    with transaction.atomic():
        real_ingest_upload(upload)
        raise WorkerKilled


def redelivered_after_the_claim_lapsed(job) -> None:
    """The message of a killed worker comes back after the visibility timeout, by which the claim has lapsed."""
    IngestJob.objects.filter(pk=job.pk).update(
        started_at=timezone.now() - timedelta(seconds=settings.IOBOARD_INGEST_CLAIM_SECONDS + 1)
    )


def test_the_task_ingests_the_upload_and_records_the_runs(job):
    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert (job.status, job.progress, job.error, job.attempts) == ("done", 100, "", 1)
    assert job.started_at <= job.finished_at
    run = job.runs.get()
    assert run.score_total == pytest.approx(DEMO_SUBMISSION_SCORE, rel=1e-6)
    assert run.upload == job.upload


def test_a_duplicate_task_for_a_finished_job_does_nothing(job):
    ingest_upload_task(job.pk)
    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert Run.objects.count() == 1
    assert job.attempts == 1


def test_a_task_killed_after_the_ingest_committed_and_redelivered_yields_one_run(job, monkeypatch):
    monkeypatch.setattr(tasks, "ingest_upload", ingest_then_crash)
    with pytest.raises(WorkerKilled):
        ingest_upload_task(job.pk)
    job.refresh_from_db()
    assert job.status == "processing"
    assert Run.objects.count() == 1

    monkeypatch.setattr(tasks, "ingest_upload", real_ingest_upload)
    redelivered_after_the_claim_lapsed(job)
    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 2)
    assert list(job.runs.all()) == list(Run.objects.all())
    assert Run.objects.count() == 1


def test_a_task_killed_mid_ingest_and_redelivered_yields_one_run(job, monkeypatch):
    monkeypatch.setattr(tasks, "ingest_upload", crash_before_commit)
    with pytest.raises(WorkerKilled):
        ingest_upload_task(job.pk)
    assert Run.objects.count() == 0

    monkeypatch.setattr(tasks, "ingest_upload", real_ingest_upload)
    redelivered_after_the_claim_lapsed(job)
    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert job.status == "done"
    assert Run.objects.count() == 1


def test_a_job_whose_state_was_lost_after_claim_is_finished_without_a_second_run(job):
    ingest_upload_task(job.pk)
    IngestJob.objects.filter(pk=job.pk).update(status="processing")
    redelivered_after_the_claim_lapsed(job)

    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert job.status == "done"
    assert Run.objects.count() == job.runs.count() == 1


def test_bad_content_fails_the_job_at_once_with_the_services_message(job, monkeypatch):
    def bad_content(upload):
        raise IngestError("result.txt:12: no [SCORE] section")

    monkeypatch.setattr(tasks, "ingest_upload", bad_content)

    ingest_upload_task.apply(args=[job.pk], throw=True)

    job.refresh_from_db()
    assert (job.status, job.error, job.attempts) == ("failed", "result.txt:12: no [SCORE] section", 1)


def test_an_archive_without_results_fails_naming_the_upload(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README").write_text("no results here\n")
    job = receive_upload(
        named_file(tar_gz_of(tmp_path / "notes"), "notes.tgz"),
        name="notes.tgz",
        kind="io500",
        uploader=None,
        metadata={},
    ).job

    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert job.status == "failed"
    assert "notes.tgz" in job.error


def test_a_transient_database_error_is_retried(job, monkeypatch):
    calls = []

    def database_blip_once(upload):
        calls.append(upload.pk)
        if len(calls) == 1:
            raise OperationalError("server closed the connection unexpectedly")
        return real_ingest_upload(upload)

    monkeypatch.setattr(tasks, "ingest_upload", database_blip_once)

    ingest_upload_task.apply(args=[job.pk], throw=False)

    job.refresh_from_db()
    assert len(calls) == 2
    assert (job.status, job.attempts) == ("done", 2)
    assert Run.objects.count() == 1


def test_the_task_retries_only_transient_errors_late_acked_within_time_limits(settings):
    assert ingest_upload_task.acks_late is True
    assert ingest_upload_task.soft_time_limit == settings.IOBOARD_INGEST_SOFT_TIME_LIMIT
    assert ingest_upload_task.time_limit == settings.IOBOARD_INGEST_TIME_LIMIT
    assert ingest_upload_task.soft_time_limit < ingest_upload_task.time_limit
    assert set(ingest_upload_task.autoretry_for) == set(tasks.TRANSIENT_ERRORS)
    assert ingest_upload_task.retry_jitter is True
    assert ingest_upload_task.retry_backoff


def burns_the_cpu_until_the_soft_limit(upload):
    """An upload that costs its whole time budget in CPU (the CPU time of this thread alone, at most the process's),
    then meets the soft limit."""
    started = time.thread_time()
    while time.thread_time() - started < settings.IOBOARD_INGEST_SOFT_TIME_LIMIT:
        pass
    raise SoftTimeLimitExceeded


def asleep_until_the_soft_limit(upload):
    """An honest upload on a host that gives its worker no CPU: it waits (asleep, no CPU) until the soft limit."""
    time.sleep(0.2)
    raise SoftTimeLimitExceeded


@pytest.fixture
def eager_retries(monkeypatch):
    """Each eager retry is a nested apply(), which raises its task's Retry unless told not to propagate."""
    monkeypatch.setitem(ingest_upload_task.app.conf, "task_eager_propagates", False)


def test_an_ingest_that_costs_its_soft_time_limit_in_cpu_fails_at_once(job, monkeypatch, settings):
    settings.IOBOARD_INGEST_SOFT_TIME_LIMIT = 1
    monkeypatch.setattr(tasks, "ingest_upload", burns_the_cpu_until_the_soft_limit)

    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert (job.status, job.attempts) == ("failed", 1)
    assert job.error == "ingest did not finish within 1 seconds"
    assert Run.objects.count() == 0


def test_an_ingest_the_host_starved_of_cpu_is_given_back_and_retried_until_done(job, monkeypatch, eager_retries):
    calls = []

    def starved_twice(upload):
        calls.append(upload.pk)
        if len(calls) <= 2:
            return asleep_until_the_soft_limit(upload)
        return real_ingest_upload(upload)

    monkeypatch.setattr(tasks, "ingest_upload", starved_twice)

    ingest_upload_task.apply(args=[job.pk])

    job.refresh_from_db()
    assert len(calls) == 3
    assert (job.status, job.error, job.attempts) == ("done", "", 3)
    assert Run.objects.count() == 1


def test_an_ingest_starved_at_every_try_fails_saying_the_server_was_too_busy(job, monkeypatch, eager_retries):
    monkeypatch.setattr(tasks, "ingest_upload", asleep_until_the_soft_limit)

    ingest_upload_task.apply(args=[job.pk])

    job.refresh_from_db()
    assert job.status == "failed"
    assert job.attempts == 6  # the first try and the task's five retries
    assert job.error.startswith("run.tgz: not ingested: the server was too busy to ingest it"), job.error
    assert "each of the 6 times it was tried; nothing was stored" in job.error
    assert "a fault of the server, not of the upload" in job.error
    assert Run.objects.count() == 0


def test_an_unexpected_error_fails_the_job_instead_of_leaving_it_processing(job, monkeypatch):
    def bug(upload):
        raise KeyError("phases")

    monkeypatch.setattr(tasks, "ingest_upload", bug)

    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error == f"internal error while ingesting run.tgz (job {job.pk}); the details are in the server log"
    assert "phases" not in job.error  # the exception's words are for the log only


def test_a_job_that_keeps_crashing_is_given_up(job):
    IngestJob.objects.filter(pk=job.pk).update(status="processing", attempts=tasks.MAX_ATTEMPTS)

    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert job.status == "failed"
    assert job.error.startswith(f"gave up after {tasks.MAX_ATTEMPTS} attempts")
    assert Run.objects.count() == 0


def test_a_task_for_a_deleted_job_does_nothing(job, monkeypatch):
    """A message may outlive its job (deleted by an admin): the task neither ingests nor recreates it."""
    ingested = []
    monkeypatch.setattr(tasks, "ingest_upload", ingested.append)
    deleted_pk = job.pk
    job.delete()

    ingest_upload_task(deleted_pk)

    assert ingested == []
    assert not IngestJob.objects.filter(pk=deleted_pk).exists()
    assert Run.objects.count() == 0


@pytest.fixture
def enqueued(monkeypatch):
    sent = []
    monkeypatch.setattr(ingest_upload_task, "delay", sent.append)
    return sent


def test_the_sweep_requeues_jobs_stuck_pending_or_processing(job, enqueued, settings):
    long_ago = timezone.now() - timedelta(minutes=settings.IOBOARD_STUCK_UPLOAD_MINUTES + 1)
    IngestJob.objects.filter(pk=job.pk).update(created_at=long_ago)
    abandoned = IngestJob.objects.create(upload=job.upload, status="processing", started_at=long_ago)
    IngestJob.objects.create(upload=job.upload, status="done", started_at=long_ago)
    IngestJob.objects.create(upload=job.upload, status="failed", started_at=long_ago)
    IngestJob.objects.create(upload=job.upload)

    assert requeue_stuck_uploads() == 2
    assert sorted(enqueued) == sorted([job.pk, abandoned.pk])


def test_a_requeued_job_is_ingested_once(job, settings):
    IngestJob.objects.filter(pk=job.pk).update(created_at=timezone.now() - timedelta(hours=1))

    with_eager_tasks = ingest_upload_task.app.conf
    previous = with_eager_tasks.task_always_eager
    with_eager_tasks.task_always_eager = True
    try:
        requeue_stuck_uploads()
        requeue_stuck_uploads()
    finally:
        with_eager_tasks.task_always_eager = previous

    job.refresh_from_db()
    assert job.status == "done"
    assert Run.objects.count() == 1


def test_the_requeue_uploads_command_requeues_on_demand(job, enqueued, capsys):
    call_command("requeue_uploads", "--older-than", "0")

    assert enqueued == [job.pk]
    assert capsys.readouterr().out == f"re-enqueued 1 job(s): [{job.pk}]\n"


def test_a_second_message_for_a_job_being_processed_is_dropped(job, monkeypatch):
    """Another worker has the job (claimed a moment ago): a duplicate message must not ingest it a second time."""
    ingested = []
    monkeypatch.setattr(tasks, "ingest_upload", ingested.append)
    IngestJob.objects.filter(pk=job.pk).update(status="processing", started_at=timezone.now(), attempts=1)

    ingest_upload_task(job.pk)

    job.refresh_from_db()
    assert ingested == []
    assert (job.status, job.attempts) == ("processing", 1)


def test_a_lapsed_claim_is_taken_over_and_the_first_worker_cannot_overwrite_the_outcome(job, settings):
    """A claim older than the hard time limit belongs to a killed worker; its late outcome is not recorded."""
    first = IngestJob.objects.get(pk=job.pk)
    assert first.claim()
    lapsed = timezone.now() - timedelta(seconds=settings.IOBOARD_INGEST_CLAIM_SECONDS + 1)
    IngestJob.objects.filter(pk=job.pk).update(started_at=lapsed)

    ingest_upload_task(job.pk)
    assert first.finish("failed", error="the first worker's late word") is False

    job.refresh_from_db()
    assert (job.status, job.error, job.attempts) == ("done", "", 2)
    assert Run.objects.count() == 1


def test_a_retry_takes_back_its_own_claim_that_the_database_fault_kept_it_from_giving_back(job):
    """A transient fault stopped the attempt and giving the claim back failed too: the job still says processing.
    The retry holding that attempt takes it back at once; any other message is dropped, and so is the retry once
    another worker has claimed the job since."""
    first = IngestJob.objects.get(pk=job.pk)
    assert first.claim()
    held = first.attempts

    assert IngestJob.objects.get(pk=job.pk).claim() is False  # a duplicate message: the claim is not lapsed
    assert IngestJob.objects.get(pk=job.pk).claim(resuming=held + 1) is False  # not the attempt it holds
    retry = IngestJob.objects.get(pk=job.pk)
    assert retry.claim(resuming=held)
    assert (retry.status, retry.attempts) == ("processing", held + 1)
    assert IngestJob.objects.get(pk=job.pk).claim(resuming=held) is False  # taken since: a stale retry is dropped


def test_a_failure_names_the_file_inside_the_archive_not_the_worker_directories(job, settings):
    """Parsers name files by where they were read: in a worker's scratch extraction, or the stored upload."""
    scratch = f"{tempfile.gettempdir()}/ioboard-upload-k2x9_a1"
    assert job.claim()
    tasks.record_failure(
        job,
        f"{scratch}/sub/result.txt:12: no [SCORE] section; {settings.MEDIA_ROOT}/uploads/2026/11/abc.tgz: truncated",
    )

    job.refresh_from_db()
    assert job.error == "sub/result.txt:12: no [SCORE] section; uploads/2026/11/abc.tgz: truncated"


def test_a_starting_worker_enqueues_every_unfinished_job_whatever_its_age(job, enqueued):
    """Redis back, workers restarted: an upload kept while the broker was away is not left for the periodic sweep."""
    done = IngestJob.objects.create(upload=job.upload, status="done")

    tasks.requeue_when_a_worker_starts(sender=None)

    assert enqueued == [job.pk]
    assert done.pk not in enqueued
