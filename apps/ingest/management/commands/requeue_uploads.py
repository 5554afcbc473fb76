"""Re-enqueue ingest jobs whose message was lost: what the periodic sweep does, on demand."""

from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.ingest.tasks import requeue_jobs


class Command(BaseCommand):
    help = "Re-enqueue uploads stuck in pending (or processing past the time limits) for a while."

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=int,
            default=settings.IOBOARD_STUCK_UPLOAD_MINUTES,
            metavar="MINUTES",
            help="only jobs stuck for at least this many minutes (default: IOBOARD_STUCK_UPLOAD_MINUTES)",
        )

    def handle(self, *args, older_than: int, **options):
        requeued = requeue_jobs(timedelta(minutes=older_than))
        self.stdout.write(f"re-enqueued {len(requeued)} job(s)" + (f": {requeued}" if requeued else ""))
