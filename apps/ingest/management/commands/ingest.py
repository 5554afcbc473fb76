"""ingest: IO500 result directories / archives / trees, or mdtest logs, into the database."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from apps.ingest.services import IngestSummary, ingest_path, reprocess_uploads
from apps.results.models import Upload


class Command(BaseCommand):
    help = (
        "Ingest IO500 result directories, .tar.gz/.zip archives or whole trees of submissions "
        "(--kind io500, the default), or mdtest logs into a scaling series (--kind mdtest). "
        "With --reprocess and no PATH, re-parse every stored upload."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", type=Path)
        parser.add_argument("--kind", choices=["io500", "mdtest"], default="io500")
        parser.add_argument("--institution")
        parser.add_argument("--system")
        parser.add_argument("--filesystem")
        parser.add_argument("--storage-vendor", dest="storage_vendor")
        parser.add_argument("--client-nodes", dest="client_nodes", type=int)
        parser.add_argument("--reprocess", action="store_true", help="re-parse and rewrite existing runs")
        parser.add_argument("--series", help="mdtest: the scaling series to add the logs to")
        parser.add_argument("--manifest", type=Path, help="mdtest: manifest CSV (log, mdt_count, ...)")

    def handle(self, *args, **options):
        paths = options["paths"]
        if options["kind"] == "mdtest":
            return self.handle_mdtest(paths, options)
        if not paths and not options["reprocess"]:
            raise CommandError("give at least one PATH (or --reprocess to re-parse stored uploads)")
        overrides = {key: options[key] for key in ("institution", "system", "filesystem", "storage_vendor",
                                                     "client_nodes") if options[key] not in (None, "")}
        summary = IngestSummary()
        if not paths:
            summary.merge(reprocess_uploads(Upload.objects.filter(kind=Upload.Kind.IO500).order_by("pk")))
        for path in paths:
            if not path.exists():
                summary.failed.append(f"{path}: no such file or directory")
                continue
            summary.merge(ingest_path(path, overrides=overrides, reprocess=options["reprocess"],
                                      progress=self.progress_bar(path)))
        self.report(summary)

    def handle_mdtest(self, paths, options):
        from apps.ingest.mdtest_services import ingest_mdtest_paths

        if not paths:
            raise CommandError("give at least one mdtest log or folder")
        if not options["series"]:
            raise CommandError("--series NAME is required with --kind mdtest")
        summary = ingest_mdtest_paths(paths, series_name=options["series"], manifest=options["manifest"])
        self.stdout.write(str(summary))
        if summary.problems:
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

    def report(self, summary: IngestSummary):
        for failure in summary.failed:
            self.stderr.write(f"FAILED {failure}")
        for skipped in summary.skipped:
            self.stderr.write(f"skipped {skipped}")
        self.stdout.write(
            f"created {len(summary.created)}, updated {len(summary.updated)}, "
            f"unchanged {len(summary.unchanged)}, failed {len(summary.failed)}, skipped {len(summary.skipped)}"
        )
        if summary.failed:
            sys.exit(1)
