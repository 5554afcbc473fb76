"""export_published: io500.org's published record with the audit of each linked entry (JSON or CSV, stdout)."""

import csv
import json

from django.core.management.base import BaseCommand

from apps.results.services.published_audit import export_record, export_rows


class Command(BaseCommand):
    help = "Export the published editions, each entry's run and its differences from the files."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["json", "csv"], default="json")

    def handle(self, *args, **options):
        if options["format"] == "json":
            json.dump(export_record(), self.stdout, indent=1)
            self.stdout.write("")
            return
        rows = export_rows()
        fields = list(rows[0]) if rows else ["release", "list", "rank", "submission_id"]
        writer = csv.DictWriter(self.stdout, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
