"""Ingest mdtest logs into a DNE scaling series.

Each log is parsed (``apps.ingest.parsers.mdtest``), placed in the campaign from the manifest or
from its path and command line (``apps.ingest.parsers.dne_manifest``), and stored atomically on its
own: a garbled or truncated log, or one whose MDT count cannot be known, stores nothing and is
reported by name (and line), while the other logs go in. Each log is written in its own savepoint,
and the savepoints of up to ``LOGS_PER_COMMIT`` logs are committed together: a log is still all or
nothing (a database error rolls back that log alone and is reported), but the commit, whose fsync
costs more than storing a log, is paid once per batch. A crash loses whole logs at most, which
the next run stores.

A log is identified by the sha256 of its bytes, and each point by (series, log hash, launch,
task block, operation), so ingesting the same log into the same series again adds nothing; if its
placement changed (a corrected manifest), its points are replaced. Folders are searched
recursively: files that are not mdtest output (the manifest itself, notes, JSON, editor junk)
are skipped and counted. When no manifest is given, a ``manifest.csv`` inside an ingested folder
or archive is used, as in an API upload.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.db import DatabaseError, transaction

from apps.ingest.archive import ArchiveError, detect_format, is_junk_entry, open_input
from apps.ingest.parsers.dne_manifest import (
    MANIFEST_NAME,
    Manifest,
    ManifestEntry,
    ScalingPointRecord,
    place_log,
    read_manifest,
    scaling_point_records,
)
from apps.ingest.parsers.mdtest import looks_like_mdtest_output, parse_mdtest_bytes
from apps.ingest.parsers.records import ParseError
from apps.ingest.services import IngestError, archive_caps
from apps.results.models import ScalingPoint, ScalingSeries, Upload

# Fields that place a point in the campaign: when any differs on re-ingest, the log's points are replaced.
PLACEMENT_FIELDS = ("launch_index", "block_index", "operation", "mdt_count", "client_nodes", "tasks", "files_per_dir",
                    "striping", "unique_dir", "label")
REPORT_LIST_LIMIT = 20
LOGS_PER_COMMIT = 100
# mdtest prints its launch line first; other tools' output before it (IO500 driver, IOR) is short.
SNIFF_BYTES = 1024 * 1024


@dataclass
class MdtestIngestSummary:
    """What an ingest did, log by log; ``str()`` is the report the command prints."""

    series: str
    series_id: int | None = None
    manifest: str = ""
    points_created: int = 0
    stored: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    unknown_mdt: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return self.failed + [f"MDT count unknown: {item}" for item in self.unknown_mdt]

    def __str__(self) -> str:
        lines = [
            f"series {self.series!r}: {len(self.stored)} logs stored ({self.points_created} points), "
            f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, {len(self.failed)} failed, "
            f"{len(self.unknown_mdt)} with unknown MDT count, {len(self.skipped)} other files skipped"
        ]
        if self.manifest:
            lines.append(f"manifest: {self.manifest}")
        lines += [f"FAILED {failure}" for failure in self.failed]
        lines += [f"MDT count unknown, not stored: {item}" for item in self.unknown_mdt]
        lines += _limited("skipped", self.skipped)
        lines += [f"warning: {warning}" for warning in self.warnings]
        return "\n".join(lines)


def _limited(prefix: str, items: list[str]) -> list[str]:
    shown = [f"{prefix} {item}" for item in items[:REPORT_LIST_LIMIT]]
    if len(items) > REPORT_LIST_LIMIT:
        shown.append(f"{prefix} ... and {len(items) - REPORT_LIST_LIMIT} more")
    return shown


def ingest_mdtest_paths(paths: Iterable[str | Path], *, series_name: str, manifest: str | Path | None = None,
                        upload: Upload | None = None) -> MdtestIngestSummary:
    """Ingest logs, folders of logs or archives of logs into the series ``series_name`` (created if new)."""
    summary = MdtestIngestSummary(series=series_name)
    explicit_manifest = None
    if manifest:
        try:
            explicit_manifest = read_manifest(manifest)
        except ParseError as error:
            summary.failed.append(str(error))
            return summary
        summary.manifest = str(manifest)
    session = _Session(series_name, summary, upload=upload)
    for path in map(Path, paths):
        if not path.exists():
            summary.failed.append(f"{path}: no such file or directory")
        elif path.is_dir() or _is_archive(path):
            session.ingest_folder(path, explicit_manifest)
        else:
            session.ingest_file(path, str(path), explicit_manifest)
    session.finish()
    if explicit_manifest:
        session.warn_unused(explicit_manifest)
    return summary


def ingest_mdtest_upload(upload: Upload) -> list:
    """The ingest of an API upload (kind=mdtest): a log, or an archive of logs with an optional
    manifest.csv, into the series named by the upload (or after its file). Logs that fail are
    reported in the job's error; the others stay stored. Returns no runs: points are not runs."""
    declared = upload.declared_metadata or {}
    series_name = declared.get("series") or Path(upload.original_name).name.split(".")[0] or "mdtest upload"
    path = Path(upload.file.path)
    summary = MdtestIngestSummary(series=series_name)
    session = _Session(series_name, summary, upload=upload, notes=declared.get("notes", ""))
    if _is_archive(path):
        session.ingest_folder(path, None)
    else:
        session.ingest_file(path, upload.original_name, None)
    session.finish()
    if summary.problems:
        raise IngestError(f"{upload.original_name}: " + "; ".join(summary.problems))
    if not (summary.stored or summary.updated or summary.unchanged):
        raise IngestError(f"{upload.original_name}: no mdtest log found in the upload")
    return []


def _is_archive(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        detect_format(path)
    except ArchiveError:
        return False
    return True


class _Session:
    """One ingest call: the series, what it already holds, and the report being written."""

    def __init__(self, series_name: str, summary: MdtestIngestSummary, *, upload: Upload | None = None,
                 notes: str = ""):
        series, self.created_series = ScalingSeries.objects.get_or_create(
            name=series_name, defaults={"upload": upload, "notes": notes})
        if upload is not None and series.upload_id is None:
            series.upload = upload
            series.save(update_fields=["upload"])
        self.series = series
        self.summary = summary
        summary.series_id = series.pk
        stored: dict[str, list[tuple]] = defaultdict(list)
        for log_hash, *placement in series.points.values_list("log_hash", *PLACEMENT_FIELDS):
            stored[log_hash].append(tuple(placement))
        self.stored_placements = {log_hash: sorted(placements) for log_hash, placements in stored.items()}
        self.seen_hashes: dict[str, str] = {}
        self.used_entries: set[int] = set()
        self.pending: list[tuple[str, str, list[ScalingPointRecord]]] = []

    def ingest_folder(self, path: Path, explicit_manifest: Manifest | None) -> None:
        try:
            with open_input(path, **archive_caps()) as root:
                files = sorted(_files_below(root))
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
        except ArchiveError as error:
            self.summary.failed.append(f"{path}: {error}")

    def _folder_manifest(self, root: Path, files: list[Path],
                         explicit: Manifest | None) -> tuple[Manifest | None, set[Path]]:
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
        try:
            with open(path, "rb") as handle:
                head = handle.read(SNIFF_BYTES)
                if from_folder and not looks_like_mdtest_output(head.decode("utf-8", errors="replace")):
                    self.summary.skipped.append(name + (" (empty)" if not head.strip() else ""))
                    return
                data = head + handle.read()
        except OSError as error:
            self.summary.failed.append(f"{name}: cannot read: {error.strerror or error}")
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
        if log.content_hash in self.seen_hashes:
            self.summary.unchanged.append(f"{name} (same bytes as {self.seen_hashes[log.content_hash]})")
            return
        self.seen_hashes[log.content_hash] = name
        records = scaling_point_records(log, placement)
        placements = sorted(_placement(record) for record in records)
        if self.stored_placements.get(log.content_hash) == placements:
            self.summary.unchanged.append(name)
            return
        self.pending.append((name, log.content_hash, records))
        if len(self.pending) >= LOGS_PER_COMMIT:
            self.flush()

    def finish(self) -> None:
        """Store what is pending; a series this ingest created but could fill with nothing is removed."""
        self.flush()
        if self.created_series and not self.series.points.exists():
            self.series.delete()
            self.summary.series_id = None

    def flush(self) -> None:
        """Store the pending logs: one savepoint each, one commit for all of them."""
        with transaction.atomic():
            for name, log_hash, records in self.pending:
                replacing = log_hash in self.stored_placements
                try:
                    with transaction.atomic():
                        self._store(log_hash, records, replacing=replacing)
                except DatabaseError as error:
                    self.summary.failed.append(f"{name}: could not be stored: {error}")
                    continue
                (self.summary.updated if replacing else self.summary.stored).append(name)
                self.stored_placements[log_hash] = sorted(_placement(record) for record in records)
                self.summary.points_created += len(records)
        self.pending = []

    def _store(self, log_hash: str, records: list[ScalingPointRecord], *, replacing: bool) -> None:
        """Write one log's points, replacing the ones an earlier placement of it left. Runs inside its
        own savepoint, so a failure leaves nothing of the log."""
        if replacing:
            self.series.points.filter(log_hash=log_hash).delete()
        ScalingPoint.objects.bulk_create(ScalingPoint(series=self.series, **vars(record)) for record in records)

    def warn_unused(self, manifest: Manifest) -> None:
        unused = [entry.log for entry in manifest.entries.values() if id(entry) not in self.used_entries]
        if unused:
            shown = ", ".join(unused[:5]) + (f" and {len(unused) - 5} more" if len(unused) > 5 else "")
            self.summary.warnings.append(f"the manifest lists {len(unused)} logs that were not found: {shown}")


def _placement(record: ScalingPointRecord) -> tuple:
    return tuple(getattr(record, name) for name in PLACEMENT_FIELDS)


def _files_below(root: Path) -> Iterator[Path]:
    for directory, _, names in os.walk(root):
        for name in names:
            yield Path(directory) / name
