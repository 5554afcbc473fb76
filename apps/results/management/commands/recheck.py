"""recheck: run the anomaly rules again over stored runs, after a rule or threshold change."""

from django.core.management.base import BaseCommand

from apps.results.models import Anomaly, Run
from apps.results.services import runs as run_writes
from apps.results.services.anomaly_checks import check_run_anomalies
from apps.results.services.list_entries import analyze_after_bulk_write


class Command(BaseCommand):
    help = "Re-run every anomaly rule over stored IO500 runs and refresh their list verdicts."

    def add_arguments(self, parser):
        parser.add_argument("--run", type=int, action="append", dest="run_ids", help="only this run (repeatable)")

    def handle(self, *args, **options):
        runs = Run.objects.io500().select_related("system").order_by("pk")
        if options["run_ids"]:
            runs = runs.filter(pk__in=options["run_ids"])
        checked = 0
        # One commit per run, the lists maintained once at the end of the batch (apps.results.services.runs).
        with run_writes.batch(atomic=False) as batch:
            for run in runs.iterator(chunk_size=500):
                check_run_anomalies(run, batch=batch, include_duplicates=False)
                checked += 1
        analyze_after_bulk_write(checked)
        counts = {
            severity: Anomaly.objects.filter(run__in=runs, severity=severity).count()
            for severity in Anomaly.Severity.values
        }
        self.stdout.write(f"rechecked {checked} runs: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
