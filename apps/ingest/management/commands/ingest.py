"""ingest: files into the database, with the pipeline of the tool ``--kind`` names (IO500 by default).

Thin: the kinds, their options and their help come from the tool registry (``apps.ingest.tools``);
the kind's pipeline reads the options it needs.
"""

import sys
import time
from argparse import ArgumentTypeError
from datetime import datetime
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.ingest import parallel
from apps.ingest.core.common import IngestUsageError
from apps.ingest.core.metadata import METADATA_KEYS
from apps.ingest.pipelines import pipeline_for
from apps.ingest.tools import DEFAULT_KIND, upload_kinds
from apps.ingest.uploads import UploadRefused, ingest_as_private_upload
from apps.results.services.list_entries import analyze_after_bulk_write


class Command(BaseCommand):
    @property
    def help(self) -> str:
        stores = "; ".join(f"--kind {name}: {tool.ingest.stores}" for name, tool in upload_kinds().items())
        return (
            f"Ingest files with the pipeline of their kind (default {DEFAULT_KIND}). {stores}. "
            "With --reprocess and no PATH, re-parse every stored upload."
        )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", type=Path)
        parser.add_argument(
            "--kind", choices=list(upload_kinds()), default=DEFAULT_KIND, help="the tool whose files these are"
        )
        parser.add_argument("--institution")
        parser.add_argument("--system")
        parser.add_argument("--filesystem")
        parser.add_argument("--storage-vendor", dest="storage_vendor")
        parser.add_argument("--client-nodes", dest="client_nodes", type=int)
        parser.add_argument("--reprocess", action="store_true", help="re-parse and rewrite existing runs")
        parser.add_argument(
            "--workers",
            type=int,
            default=1,
            metavar="N",
            help="IO500 submissions stored by N processes at once (one per core; PostgreSQL: SQLite has one writer)",
        )
        parser.add_argument(
            "--edition",
            default="",
            help="submit each PATH to this edition (e.g. sc26), as an upload's edition field: private until staff "
            "freeze it",
        )
        parser.add_argument(
            "--embargo-until",
            dest="embargo_until",
            type=embargo_date,
            help="keep each PATH private until this ISO date-time, as an upload's embargo_until field",
        )
        for options in tool_options().values():
            first = options[0]
            parser.add_argument(
                first.flag,
                dest=first.dest,
                type=first.type,
                metavar=first.metavar,
                help="; ".join(option.help for option in options).replace("%", "%%"),
            )

    def handle(self, *args, **options):
        if options["edition"] or options["embargo_until"]:
            self.ingest_privately(options)
            return
        pipeline = pipeline_for(options["kind"])
        started, processes = time.perf_counter(), 1
        try:
            if self.spread(options):
                processes = options["workers"]
                report = parallel.ingest_paths(options["paths"], options, workers=processes)
            else:
                report = pipeline.ingest_paths(options["paths"], options, progress_for=self.progress_bar)
        except IngestUsageError as error:
            raise CommandError(str(error)) from error
        analyze_after_bulk_write()  # a tree of submissions is a bulk load: plan pages on its statistics
        report.write_report(self.stdout, self.stderr)
        # On stderr with the progress: the time of the ingest itself, without the command's start-up (Django and
        # the libraries it loads), which an operator timing a bulk load or choosing --workers needs apart.
        elapsed = time.perf_counter() - started
        self.stderr.write(f"ingested in {elapsed:.2f} s by {processes} process{'es' if processes > 1 else ''}")
        if not report.ok:
            sys.exit(1)

    def spread(self, options) -> bool:
        """Whether to store the submissions with --workers processes; says why not when they were asked for."""
        workers = options["workers"]
        if workers < 1:
            raise CommandError("--workers must be at least 1")
        if workers == 1:
            return False
        why_not = (
            "only IO500 submissions are spread over processes"
            if options["kind"] != parallel.KIND
            else parallel.why_one_process(options)
        )
        if why_not:
            self.stderr.write(f"--workers {workers}: {why_not}; ingesting in one process")
            return False
        return True

    def ingest_privately(self, options) -> None:
        """Each PATH as one upload with the edition or embargo date (`ingest_as_private_upload`), its outcome
        reported as the API's status: the runs stored, or the problems. Exit status 1 if one failed."""
        if not options["paths"]:
            raise CommandError("give at least one PATH to submit to an edition or an embargo date")
        if options["reprocess"]:
            raise CommandError("--reprocess rewrites stored runs: it takes no --edition or --embargo-until")
        declared = {field.name for tool in upload_kinds().values() for field in tool.ingest.upload_fields}
        metadata = {name: options[name] for name in (*METADATA_KEYS, *declared) if options.get(name) not in (None, "")}
        failed = False
        for path in options["paths"]:
            if not path.exists():
                raise CommandError(f"{path}: no such file or directory")
            try:
                job = ingest_as_private_upload(
                    path,
                    kind=options["kind"],
                    metadata=metadata,
                    edition=options["edition"],
                    embargo_until=options["embargo_until"],
                )
            except UploadRefused as refusal:
                raise CommandError(str(refusal)) from refusal
            private = f"edition {job.upload.edition}" if job.upload.edition else f"until {job.upload.embargo_until}"
            if job.status == job.Status.DONE:
                runs = ", ".join(str(pk) for pk in job.runs.order_by("pk").values_list("pk", flat=True))
                self.stdout.write(f"{path}: upload {job.upload_id}, private ({private}): runs {runs or 'none'}")
            elif job.status == job.Status.FAILED:
                failed = True
                self.stderr.write(f"{path}: upload {job.upload_id} failed: {job.error}")
            else:  # a worker took it first (and may still hold the upload from an earlier run of this command)
                self.stdout.write(f"{path}: upload {job.upload_id}, private ({private}): being ingested by a worker")
        if failed:
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


def embargo_date(text: str) -> datetime:
    """An ISO date-time (a date alone is its midnight), in the site's time zone if it names none."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as error:
        raise ArgumentTypeError(f"{text!r} is not an ISO date-time such as 2026-11-17T18:00+00:00") from error
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def tool_options() -> dict[str, list]:
    """Every tool's own options by flag; tools that share a flag (``--manifest``) share its type."""
    by_flag: dict[str, list] = {}
    for tool in upload_kinds().values():
        for option in tool.ingest.options:
            shared = by_flag.setdefault(option.flag, [])
            if shared and shared[0].type is not option.type:
                raise TypeError(
                    f"{option.flag} is a {shared[0].type.__name__} for one tool and a "
                    f"{option.type.__name__} for {tool.name}"
                )
            shared.append(option)
    return by_flag
