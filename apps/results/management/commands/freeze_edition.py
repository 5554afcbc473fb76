"""manage.py freeze_edition ISC19 --list io500 --title "ISC High Performance 2019"."""

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from apps.results.editions import EditionError, freeze_edition
from apps.results.models import Edition


class Command(BaseCommand):
    help = "Freeze a live list as a named edition whose membership and scores never change afterwards."

    def add_arguments(self, parser):
        parser.add_argument("name", help='edition name, a slug such as "ISC19"')
        parser.add_argument("--list", dest="list_kinds", action="append", choices=Edition.ListKind.values,
                            help="list to freeze (repeatable; default: io500 and ten-node)")
        parser.add_argument("--title", default="", help="human title, e.g. ISC High Performance 2019")
        parser.add_argument("--description", default="")

    def handle(self, *args, name, list_kinds, title, description, **options):
        frozen = []
        try:
            with transaction.atomic():  # every list of the edition, or none
                for kind in list_kinds or [Edition.ListKind.IO500, Edition.ListKind.TEN_NODE]:
                    frozen.append(freeze_edition(name, kind, title=title, description=description))
        except EditionError as exc:
            raise CommandError(str(exc)) from exc
        for edition in frozen:
            self.stdout.write(f"froze {edition}: {edition.entries.count()} entries")
