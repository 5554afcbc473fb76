"""Ingest jobs: the processing state of an upload, kept in our own table, not a result backend."""

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

    def claim(self) -> bool:
        """Move pending (or a stale processing) job to processing; False when another worker has it.

        A conditional UPDATE is the lock: exactly one of two racing workers sees one updated row.
        """
        claimable = IngestJob.objects.filter(pk=self.pk, status__in=[self.Status.PENDING, self.Status.PROCESSING])
        updated = claimable.update(
            status=self.Status.PROCESSING, started_at=timezone.now(), attempts=models.F("attempts") + 1
        )
        if updated:
            self.refresh_from_db()
        return updated == 1
