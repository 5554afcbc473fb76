"""ingest: IO500 result directories / archives / trees, mdtest logs or IOR logs, into the database.

Thin: ``--kind`` chooses the pipeline (``apps.ingest.pipelines``), which reads the options it needs.
"""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.ingest.core.common import IngestUsageError
from apps.ingest.pipelines import PIPELINES
from apps.results.list_entries import analyze_after_bulk_write


class Command(BaseCommand):
    help = (
        "Ingest IO500 result directories, .tar.gz/.zip archives or whole trees of submissions "
        "(--kind io500, the default), mdtest logs into a scaling series (--kind mdtest), or IOR logs into "
        "a parameter study (--kind ior --study NAME [--manifest FILE] [--margin 0.05]). "
        "With --reprocess and no PATH, re-parse every stored upload."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", type=Path)
        parser.add_argument("--kind", choices=sorted(PIPELINES), default="io500")
        parser.add_argument("--institution")
        parser.add_argument("--system")
        parser.add_argument("--filesystem")
        parser.add_argument("--storage-vendor", dest="storage_vendor")
        parser.add_argument("--client-nodes", dest="client_nodes", type=int)
        parser.add_argument("--reprocess", action="store_true", help="re-parse and rewrite existing runs")
        parser.add_argument("--series", help="mdtest: the scaling series to add the logs to")
        parser.add_argument("--manifest", type=Path,
                            help="mdtest: manifest CSV (log, mdt_count, ...); ior: CSV of log, then axis columns")
        parser.add_argument("--study", help="ior: the parameter study to add the logs to")
        parser.add_argument("--margin", type=float,
                            help="ior: the study's equivalence margin as a fraction (default 0.05 = 5 %%): smaller "
                                 "significant differences are not called different; sets it on an existing study")
        parser.add_argument("--name", help="stack: the name of the bottom-up campaign (default: stack.yaml's)")

    def handle(self, *args, **options):
        pipeline = PIPELINES[options["kind"]]
        try:
            report = pipeline.ingest_paths(options["paths"], options, progress_for=self.progress_bar)
        except IngestUsageError as error:
            raise CommandError(str(error)) from error
        analyze_after_bulk_write()  # a tree of submissions is a bulk load: plan pages on its statistics
        report.write_report(self.stdout, self.stderr)
        if not report.ok:
            sys.exit(1)

    def progress_bar(self, path):
        if not sys.stderr.isatty():
            return None

        def show(done: int, total: int) -> None:
            width = 30
            filled = int(width * done / max(total, 1))
            sys.stderr.write(f"\r{path.name[:30]:30} [{'#' * filled}{' ' * (width - filled)}] {done}/{total}")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()

        return show
