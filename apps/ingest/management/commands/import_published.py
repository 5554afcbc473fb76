"""import_published: io500.org's published record (the SQL files of its webpage repository) into ioboard.

Thin: the replay is apps.ingest.published.replay, the storing apps.results.services.published.
"""

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.ingest.published.importer import import_published
from apps.ingest.published.replay import ReplayError


class Command(BaseCommand):
    help = (
        "Replay io500.org's SQL files (a MySQL dump and its migrations, in the site's commit order) and store "
        "every published list as a published edition, with the migrations' corrections as its change log."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="the directory of the SQL files (e.g. ../shared/io500-webpage-sql)")

    def handle(self, *args, path: Path, **options):
        started = time.monotonic()
        try:
            record, result = import_published(path)
        except ReplayError as exc:
            raise CommandError(f"nothing stored: {exc}") from exc
        for line in record.report.lines():
            self.stdout.write(line)
        rows = sum(len(rows) for rows in record.lists.values())
        if result.unchanged:
            self.stdout.write(f"unchanged: {result.editions} published lists, {result.entries} rows already stored")
        else:
            self.stdout.write(
                f"stored {result.editions} published lists, {rows} rows, {result.changes} change-log entries, "
                f"{result.aliases} system aliases; {result.linked} entries linked to ingested runs"
            )
        self.stdout.write(
            f"{len(record.report.corrections)} corrections applied, {len(record.report.skipped)} statements "
            f"skipped, {time.monotonic() - started:.1f} s"
        )
