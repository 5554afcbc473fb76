"""Ingest jobs: the processing state of an upload, kept in our own table, not a result backend."""

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.results.models import Run, Upload


class IngestJob(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSING = "processing"
        DONE = "done"
        FAILED = "failed"

    upload = models.ForeignKey(Upload, on_delete=models.CASCADE, related_name="jobs")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True)
    progress = models.PositiveSmallIntegerField(default=0, help_text="percent")
    error = models.TextField(blank=True, help_text="what failed, naming the file and line")
    attempts = models.PositiveIntegerField(default=0)
    runs = models.ManyToManyField(Run, blank=True, related_name="ingest_jobs")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"job {self.pk} for {self.upload} ({self.status})"

    @property
    def is_finished(self) -> bool:
        """Done or failed: the job's outcome is final, so a client has nothing more to wait for."""
        return self.status in (self.Status.DONE, self.Status.FAILED)

    @property
    def created_runs(self):
        """The runs this job stored: none until it is done, since `record_success` sets them in the transaction
        that marks it done. A job still pending, processing or failed answers without a query (an empty list:
        even `Run.objects.none()` is compiled before it is found empty)."""
        return self.runs.all() if self.status == self.Status.DONE else []

    def claim(self, resuming: int | None = None) -> bool:
        """Move a pending job (or one whose claim has lapsed) to processing; False when another worker has it.

        A conditional UPDATE is the lock: exactly one of two racing workers sees one updated row, and a
        second message for a job being processed (a duplicate, or a sweep's) is dropped. A claim lapses
        after IOBOARD_INGEST_CLAIM_SECONDS (the task's hard time limit): by then the worker that holds it
        has been killed, so the redelivered message of a dead worker takes the job over.

        `resuming`: the attempt a retried task held when a transient fault stopped it. While no one has claimed
        the job since (its attempts are still that number), that claim is the retry's own to take back, even
        though the job still says processing (giving it back failed: the database was away).
        """
        lapsed = timezone.now() - timedelta(seconds=settings.IOBOARD_INGEST_CLAIM_SECONDS)
        lapsed_claim = models.Q(started_at__lt=lapsed) | models.Q(started_at__isnull=True)
        if resuming is not None:
            lapsed_claim |= models.Q(attempts=resuming)
        claimable = IngestJob.objects.filter(
            models.Q(status=self.Status.PENDING) | models.Q(lapsed_claim, status=self.Status.PROCESSING), pk=self.pk
        )
        updated = claimable.update(
            status=self.Status.PROCESSING, started_at=timezone.now(), attempts=models.F("attempts") + 1
        )
        if updated:
            self.refresh_from_db()
        return updated == 1

    def release(self) -> None:
        """Give this worker's claim back (a transient error: the retry, or the sweep, claims the job again)."""
        IngestJob.objects.filter(pk=self.pk, status=self.Status.PROCESSING, attempts=self.attempts).update(
            status=self.Status.PENDING
        )

    def finish(self, status: str, error: str = "") -> bool:
        """Record the outcome of this worker's claim; False (nothing written) when a later claim took the job over."""
        finished = IngestJob.objects.filter(pk=self.pk, status=self.Status.PROCESSING, attempts=self.attempts)
        self.status, self.error, self.finished_at = status, error, timezone.now()
        if status == self.Status.DONE:
            self.progress = 100
        return finished.update(status=status, error=error, finished_at=self.finished_at, progress=self.progress) == 1
