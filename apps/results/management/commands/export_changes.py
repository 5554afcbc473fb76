"""export_changes: every currently detected step and outlier, as JSON (the shape is in docs/changes.md)."""

import json

from django.core.management.base import BaseCommand

from apps.results.services.changes.export import change_record, current_changes


class Command(BaseCommand):
    help = "Export the detected changes (steps and outliers) of every system with their attribution."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["json"], default="json")

    def handle(self, *args, **options):
        records = [change_record(change) for change in current_changes()]
        self.stdout.write(json.dumps(records, indent=1))
