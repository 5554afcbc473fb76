"""export_runs: every run with every field, as JSON (one object per run) or CSV."""

import json
import sys

from django.core.management.base import BaseCommand

from apps.results.services.export import (
    FormulaSafeWriter,
    csv_header,
    iter_runs,
    phase_names_of,
    run_to_dict,
    run_to_row,
)


class Command(BaseCommand):
    help = "Export every run with its phases, scores, verification and anomalies."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=["json", "csv"], default="json")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, **options):
        out = open(options["output"], "w", newline="") if options["output"] else sys.stdout  # noqa: SIM115
        try:
            if options["format"] == "json":
                self.write_json(out)
            else:
                self.write_csv(out)
        finally:
            if out is not sys.stdout:
                out.close()

    def write_json(self, out):
        out.write("[")
        for index, run in enumerate(iter_runs()):
            out.write(",\n" if index else "\n")
            out.write(json.dumps(run_to_dict(run)))
        out.write("\n]\n")

    def write_csv(self, out):
        names = phase_names_of()
        writer = FormulaSafeWriter(out)
        writer.writerow(csv_header(names))
        for run in iter_runs():
            writer.writerow(run_to_row(run, names))
