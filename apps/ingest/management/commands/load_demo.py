"""load_demo: a few real IO500 submissions from fixtures/demo, for `make run`. Safe to run again."""

from django.conf import settings
from django.core.management.base import BaseCommand

from apps.ingest.services import ingest_path

DEMO_ROOT = settings.BASE_DIR / "fixtures" / "demo"


class Command(BaseCommand):
    help = "Ingest the demo submissions in fixtures/demo (copied from the public IO500 archive)."

    def handle(self, *args, **options):
        summary = ingest_path(DEMO_ROOT)
        self.stdout.write(f"demo data: {len(summary.created)} runs created, {len(summary.unchanged)} already present")
        for failure in summary.failed:
            self.stderr.write(f"FAILED {failure}")
