"""Remove the files of uploads that failed more than IOBOARD_FAILED_UPLOAD_RETENTION_DAYS ago: what the daily
beat task does, on demand. The uploads' rows and messages stay (apps.ingest.retention)."""

from django.core.management.base import BaseCommand

from apps.ingest.retention import remove_failed_upload_files


class Command(BaseCommand):
    help = "Remove the stored files of failed uploads past IOBOARD_FAILED_UPLOAD_RETENTION_DAYS (their rows stay)."

    def handle(self, *args, **options):
        removed = remove_failed_upload_files()
        self.stdout.write(f"removed the files of {len(removed)} failed upload(s)" + (f": {removed}" if removed else ""))
