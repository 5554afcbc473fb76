"""Recompute every system's change points (or some systems'), e.g. after changing the detection settings."""

from django.core.management.base import BaseCommand

from apps.results.services.changes.history import detect_all_changes, detect_system_changes


class Command(BaseCommand):
    help = "Detect steps and outliers in every metric of each system's history and store them as changes."

    def add_arguments(self, parser):
        parser.add_argument("--system", type=int, action="append", help="only this system id (repeatable)")

    def handle(self, *args, **options):
        if options["system"]:
            for system_id in options["system"]:
                counts = detect_system_changes(system_id)
                self.stdout.write(f"system {system_id}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
            return
        totals = detect_all_changes()
        self.stdout.write(", ".join(f"{key} {value}" for key, value in totals.items()))
