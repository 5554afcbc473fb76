"""manage.py freeze_edition ISC19 --list io500 --title "ISC High Performance 2019"."""

from django.core.management.base import BaseCommand, CommandError

from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.editions import EditionError, freeze_lists


class Command(BaseCommand):
    help = "Freeze a live list as a named edition whose membership and scores never change afterwards."

    def add_arguments(self, parser):
        parser.add_argument("name", help='edition name, a slug such as "ISC19"')
        parser.add_argument(
            "--list",
            dest="list_kinds",
            action="append",
            choices=list(LIST_KINDS),
            help="list to freeze (repeatable; default: every list, the historic list too)",
        )
        parser.add_argument("--title", default="", help="human title, e.g. ISC High Performance 2019")
        parser.add_argument("--description", default="")

    def handle(self, *args, name, list_kinds, title, description, **options):
        try:
            frozen = freeze_lists(name, list_kinds, title=title, description=description)
        except EditionError as exc:
            raise CommandError(str(exc)) from exc
        for edition in frozen:
            self.stdout.write(f"froze {edition}: {edition.entries.count()} entries")
