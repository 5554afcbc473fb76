"""manage.py rebuild_lists: refill the maintained list entries from the run table.

The writes of apps.results.services.runs keep the entries; this is for a database whose runs predate them (run
once after migrating to 0007_maintained_list_entries) or were written around them.
"""

from django.core.management.base import BaseCommand

from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services import runs


class Command(BaseCommand):
    help = "Refill every list's entries, ranks, counts and statistics from the runs, then ANALYZE them."

    def add_arguments(self, parser):
        parser.add_argument(
            "--list",
            dest="kinds",
            action="append",
            choices=list(LIST_KINDS),
            help="list to rebuild (repeatable; default: every list of the registry)",
        )

    def handle(self, *args, kinds, **options):
        filled = runs.rebuild_lists(kinds)
        for kind, count in filled.items():
            self.stdout.write(f"{kind}: {count} entries")
