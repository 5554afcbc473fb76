from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db import transaction

from apps.ingest.core.archive import is_junk_entry
from apps.ingest.core.common import IngestError, IngestUsageError
from apps.ingest.core.pipeline import (
    LogBatchSession,
    LogIngestSummary,
    Pipeline,
    ingest_logs,
    unused_manifest_warning,
)
from apps.ingest.parsers.errors import ParseError, joined_problems
from apps.ingest.tools.mdtest.grammar import looks_like_mdtest_output, parse_mdtest_bytes
from apps.ingest.tools.mdtest.manifest import (
    MANIFEST_NAME,
    Manifest,
    ManifestEntry,
    ScalingPointRecord,
    place_log,
    read_manifest,
    scaling_point_records,
)
from apps.results.models import ScalingPoint, ScalingSeries, Upload

# Fields that place a point in the campaign: when any differs on re-ingest, the log's points are replaced.
PLACEMENT_FIELDS = (
    "launch_index",
    "block_index",
    "operation",
    "mdt_count",
    "client_nodes",
    "tasks",
    "files_per_dir",
    "striping",
    "unique_dir",
    "label",
)
# mdtest prints its launch line first; other tools' output before it (IO500 driver, IOR) is short.
SNIFF_BYTES = 1024 * 1024


@dataclass
class MdtestIngestSummary(LogIngestSummary):
    """What an ingest did, log by log; ``str()`` is the report the command prints."""

    series: str
    series_id: int | None = None
    unknown_mdt: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return self.failed + [f"MDT count unknown: {item}" for item in self.unknown_mdt]

    def __str__(self) -> str:
        return self.report(
            f"series {self.series!r}: {len(self.stored)} logs stored ({self.points_created} points), "
            f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, {len(self.failed)} failed, "
            f"{len(self.unknown_mdt)} with unknown MDT count, {len(self.skipped)} other files skipped",
            [f"MDT count unknown, not stored: {item}" for item in self.unknown_mdt],
        )


def ingest_mdtest_paths(
    paths: Iterable[str | Path], *, series_name: str, manifest: str | Path | None = None, upload: Upload | None = None
) -> MdtestIngestSummary:
    """Ingest logs, folders of logs or archives of logs into the series ``series_name`` (created if new)."""
    summary = MdtestIngestSummary(series=series_name)
    return ingest_logs(
        summary,
        paths,
        manifest,
        read_manifest=read_manifest,
        name_of=str,
        open_session=lambda: _Session(series_name, summary, upload=upload),
    )


def ingest_paths(paths: Iterable[str | Path], options: dict, **_) -> MdtestIngestSummary:
    """The ``ingest --kind mdtest`` command: ``options`` name the ``series`` and may give a ``manifest``."""
    paths = list(paths)
    if not paths:
        raise IngestUsageError("give at least one mdtest log or folder")
    if not options.get("series"):
        raise IngestUsageError("--series NAME is required with --kind mdtest")
    return ingest_mdtest_paths(paths, series_name=options["series"], manifest=options.get("manifest"))


def ingest_mdtest_upload(upload: Upload) -> list:
    """The ingest of an API upload (kind=mdtest): a log, or an archive of logs with an optional
    manifest.csv, into the series named by the upload (or after its file), all or nothing: a log that
    fails fails the job, naming its file and line, and nothing of the upload is stored. The series must be
    new or one its account created (apps.results.services.ownership). Returns no runs: points are not runs."""
    declared = upload.declared_metadata or {}
    series_name = declared.get("series") or Path(upload.original_name).name.split(".")[0] or "mdtest upload"
    summary = MdtestIngestSummary(series=series_name)
    with transaction.atomic():
        _Session(series_name, summary, upload=upload, notes=declared.get("notes", "")).ingest_upload(upload)
        if summary.problems:
            raise IngestError(f"{upload.original_name}: " + joined_problems(summary.problems))
        if not summary.found_any:
            raise IngestError(f"{upload.original_name}: no mdtest log found in the upload")
    return []


class _Session(LogBatchSession):
    """One ingest call: the series, what it already holds, and the report being written."""

    def __init__(
        self, series_name: str, summary: MdtestIngestSummary, *, upload: Upload | None = None, notes: str = ""
    ):
        with transaction.atomic():
            series, created = ScalingSeries.objects.get_or_create(
                name=series_name, defaults={"upload": upload, "notes": notes}
            )
            self.study = series.ensure_study()
        summary.series_id = series.pk
        stored: dict[str, list[tuple]] = defaultdict(list)
        owners: dict[str, set] = defaultdict(set)
        for log_hash, owner, *placement in series.points.values_list("log_hash", "upload", *PLACEMENT_FIELDS):
            stored[log_hash].append(tuple(placement))
            owners[log_hash].add(owner)
        super().__init__(
            summary,
            series,
            created,
            {log_hash: sorted(placements) for log_hash, placements in stored.items()},
            upload=upload,
            stored_owners=owners,
        )
        self.used_entries: set[int] = set()

    def ingest_tree(self, root: Path, files: list[Path], explicit_manifest: Manifest | None) -> None:
        manifest, manifest_files = self._folder_manifest(root, files, explicit_manifest)
        if manifest is None and manifest_files:
            return
        for file in files:
            relative = file.relative_to(root).as_posix()
            if file in manifest_files:
                self.summary.skipped.append(f"{relative} (manifest)")
            elif is_junk_entry(relative):
                self.summary.skipped.append(relative)
            else:
                self.ingest_file(file, relative, manifest, from_folder=True)
        if manifest is not explicit_manifest and manifest is not None:
            self.warn_unused(manifest)

    def _folder_manifest(
        self, root: Path, files: list[Path], explicit: Manifest | None
    ) -> tuple[Manifest | None, set[Path]]:
        """The manifest for a folder: the one given, else every manifest.csv inside (a deeper one
        wins for the logs below it). A manifest that cannot be read fails the whole folder."""
        found = sorted((file for file in files if file.name == MANIFEST_NAME), key=lambda file: len(file.parts))
        if explicit is not None:
            return explicit, {file for file in found if file.resolve() == explicit.path.resolve()}
        merged: dict[Path, ManifestEntry] = {}
        for file in found:
            try:
                merged.update(read_manifest(file).entries)
            except ParseError as error:
                self.summary.failed.append(str(error).replace(str(root) + os.sep, ""))
                return None, set(found)
        if not found:
            return None, set()
        self.summary.manifest = ", ".join(file.relative_to(root).as_posix() for file in found)
        return Manifest(path=found[0], entries=merged), set(found)

    def ingest_file(self, path: Path, name: str, manifest: Manifest | None, *, from_folder: bool = False) -> None:
        """Parse, place and queue one log. Inside a folder, a file that does not start like mdtest
        output within its first ``SNIFF_BYTES`` is skipped without being read further."""
        data = self.read_log(
            path,
            name,
            looks_like=looks_like_mdtest_output,
            sniff_bytes=SNIFF_BYTES,
            from_folder=from_folder,
            mark_empty=True,
        )
        if data is None:
            return
        try:
            log = parse_mdtest_bytes(data, name)
        except ParseError as error:
            self.summary.failed.append(str(error))
            return
        entry = manifest.entry_for(path) if manifest else None
        if entry is not None:
            self.used_entries.add(id(entry))
        placement = place_log(log, source_file=name, entry=entry)
        if placement.unknown_mdt_launches:
            self.summary.unknown_mdt.append(f"{name} ({placement.unknown_mdt_launches[0].mdt_problem})")
            return
        self.summary.warnings.extend(placement.warnings)
        if self.seen_before(name, log.content_hash):
            return
        self.queue(name, log.content_hash, scaling_point_records(log, placement))

    def forget_container(self) -> None:
        self.summary.series_id = None

    def flush(self) -> None:
        """Store the pending logs; an upload's only if the series stays within IOBOARD_SCALING_MAX_POINTS."""
        if self.upload is not None:
            self.refuse_past_budget()
        super().flush()

    def refuse_past_budget(self) -> None:
        """Refuse the upload (nothing of it is stored: ingest_mdtest_upload holds it in one transaction) when the
        series, with the pending logs' points in place of what it stores for those logs, would hold more points than
        every reader of its page and API should pay for. The operator's command line is not bounded."""
        pending = {log_hash: records for _, log_hash, records in self.pending}
        points = sum(len(placements) for placements in {**self.stored_placements, **pending}.values())
        budget = settings.IOBOARD_SCALING_MAX_POINTS
        if points > budget:
            raise IngestError(
                f"{self.upload.original_name}: series {self.container.name!r} would hold {points:,} points, more "
                f"than the {budget:,} a series may have (IOBOARD_SCALING_MAX_POINTS, docs/deployment.md); nothing "
                f"of this upload is stored"
            )

    def placements(self, records: list[ScalingPointRecord]) -> list:
        return sorted(tuple(getattr(record, name) for name in PLACEMENT_FIELDS) for record in records)

    def store(self, records: list[ScalingPointRecord]) -> None:
        ScalingPoint.objects.bulk_create(
            ScalingPoint(series=self.container, upload=self.upload, **vars(record)) for record in records
        )
        self.study.store_scaling_points(records, upload=self.upload)

    def warn_unused(self, manifest: Manifest) -> None:
        unused = [entry.log for entry in manifest.entries.values() if id(entry) not in self.used_entries]
        if unused:
            self.summary.warnings.append(unused_manifest_warning(unused))


PIPELINE = Pipeline(kind="mdtest", ingest_upload=ingest_mdtest_upload, ingest_paths=ingest_paths)
