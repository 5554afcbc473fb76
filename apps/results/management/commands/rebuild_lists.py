"""manage.py rebuild_lists: refill the maintained list entries from the run table.

Writes through the ORM keep the entries by themselves; this is for a database whose runs predate
them (run once after migrating to 0007_maintained_list_entries) or were written around the ORM.
"""

from django.core.management.base import BaseCommand

from apps.results import custom_lists, list_entries
from apps.results.freshness import bump_data_version
from apps.results.list_kinds import LIST_KINDS


class Command(BaseCommand):
    help = "Refill every list's entries, ranks, counts and statistics from the runs, then ANALYZE them."

    def add_arguments(self, parser):
        parser.add_argument("--list", dest="kinds", action="append", choices=list(LIST_KINDS),
                            help="list to rebuild (repeatable; default: every list of the registry)")

    def handle(self, *args, kinds, **options):
        filled = list_entries.rebuild(kinds)
        # The runs may have changed around the ORM too: each custom list is refilled by a task after its next read.
        custom_lists.forget_all()
        for kind in filled:
            list_entries.refresh_statistics(kind)
        bump_data_version()
        for kind, count in filled.items():
            self.stdout.write(f"{kind}: {count} entries")
