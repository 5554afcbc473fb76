"""How long a failed upload's file is kept: IOBOARD_FAILED_UPLOAD_RETENTION_DAYS after its ingest failed.

Every upload is kept as received so it can be re-ingested; a failed one stored nothing (an ingest is all or nothing),
so after the retention period its file is only disk an account chose to fill. The file goes; the Upload row and its
job stay, so its uploader still reads why it failed, and the same bytes sent again are still known. An upload whose
last job failed but that owns rows (a reprocess that failed) keeps its file: those rows are its record.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone

from apps.ingest.models import IngestJob
from apps.results.models import Run, ScalingPoint, Stack, StudyPoint, Upload


def expired_failed_uploads(now: datetime) -> QuerySet[Upload]:
    """Uploads still holding a file whose latest job failed before the retention period, owning nothing."""
    cutoff = now - timedelta(days=settings.IOBOARD_FAILED_UPLOAD_RETENTION_DAYS)
    latest = IngestJob.objects.filter(upload=OuterRef("pk")).order_by("-pk")
    owns = [model.objects.filter(upload=OuterRef("pk")) for model in (Run, Stack, ScalingPoint, StudyPoint)]
    return (
        Upload.objects.exclude(file="")
        .annotate(
            last_status=Subquery(latest.values("status")[:1]), last_finished=Subquery(latest.values("finished_at")[:1])
        )
        .filter(last_status=IngestJob.Status.FAILED, last_finished__lt=cutoff)
        .exclude(Exists(owns[0]) | Exists(owns[1]) | Exists(owns[2]) | Exists(owns[3]))
    )


def remove_failed_upload_files(now: datetime | None = None) -> list[int]:
    """Remove the files of the expired failed uploads, keeping their rows; the primary keys of those emptied."""
    removed = []
    for upload in expired_failed_uploads(now or timezone.now()).order_by("pk"):
        upload.file.delete(save=False)
        Upload.objects.filter(pk=upload.pk).update(file="")
        removed.append(upload.pk)
    return removed
