"""What a pipeline is: one upload kind, and the two ways its input arrives; and what the pipelines that
store logs one by one (IOR, mdtest) share: their summary, session, batching and folder walking.

Each tool's pipeline lives in its folder (``apps/ingest/tools/<tool>/pipeline.py``) and builds on this module;
``apps.ingest.pipelines`` registers them (``PIPELINES``) and chooses one by kind."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from django.db import DatabaseError, transaction

from apps.ingest.core.archive import ArchiveError, is_archive, open_input
from apps.ingest.core.common import IngestError, archive_caps, stored_upload_copy
from apps.ingest.parsers.errors import ParseError
from apps.results.models import Upload
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.ownership import may_add_to, may_rewrite, owner_name

logger = logging.getLogger(__name__)

LOGS_PER_COMMIT = 100
REPORT_LIST_LIMIT = 20


class IngestReport(Protocol):
    """What ``ingest_paths`` returns: a report the ``ingest`` command prints, and whether all went in."""

    @property
    def ok(self) -> bool: ...

    def write_report(self, out, err) -> None: ...


@dataclass(frozen=True)
class Pipeline:
    """One upload kind (a tool's name, ``Upload.kind``), ingested from an upload or from paths on the command line.

    ``ingest_upload(upload)`` stores a stored upload all or nothing, or raises ``IngestError`` naming
    the file and line; it returns the runs it made or found (none for kinds that make no runs).
    ``ingest_paths(paths, options, progress_for=...)`` is the ``ingest --kind`` command: ``options``
    are the command's options, a missing one raises ``IngestUsageError``.
    """

    kind: str
    ingest_upload: Callable[..., list]
    ingest_paths: Callable[..., IngestReport]


@dataclass(kw_only=True)
class LogIngestSummary:
    """What a log-by-log ingest (IOR, mdtest) did; each kind adds its container's name and its report."""

    manifest: str = ""
    points_created: int = 0
    stored: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """What makes the ingest fail: the failed logs, and whatever a kind adds to them."""
        return self.failed

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def found_any(self) -> bool:
        return bool(self.stored or self.updated or self.unchanged)

    def write_report(self, out, err) -> None:
        out.write(str(self))

    def report(self, counts: str, problem_lines: list[str] | None = None) -> str:
        """The printed report: the counts line, the manifest, failures, a kind's own problem lines,
        the skipped files (at most ``REPORT_LIST_LIMIT``) and the warnings."""
        lines = [counts]
        if self.manifest:
            lines.append(f"manifest: {self.manifest}")
        lines += [f"FAILED {failure}" for failure in self.failed]
        lines += problem_lines or []
        lines += limited_lines("skipped", self.skipped)
        lines += [f"warning: {warning}" for warning in self.warnings]
        return "\n".join(lines)


def limited_lines(prefix: str, items: list[str]) -> list[str]:
    """Report lines for ``items``, at most ``REPORT_LIST_LIMIT`` of them and a count of the rest."""
    shown = [f"{prefix} {item}" for item in items[:REPORT_LIST_LIMIT]]
    if len(items) > REPORT_LIST_LIMIT:
        shown.append(f"{prefix} ... and {len(items) - REPORT_LIST_LIMIT} more")
    return shown


def unused_manifest_warning(unused: list[str]) -> str:
    """The warning for manifest entries whose logs were not found, naming the first five."""
    shown = ", ".join(unused[:5]) + (f" and {len(unused) - 5} more" if len(unused) > 5 else "")
    return f"the manifest lists {len(unused)} logs that were not found: {shown}"


def ingest_logs(
    summary: LogIngestSummary,
    paths: Iterable[str | Path],
    manifest_path: str | Path | None,
    *,
    read_manifest: Callable,
    open_session: Callable[[], LogBatchSession],
    name_of: Callable[[Path], str],
) -> LogIngestSummary:
    """A log kind's ``ingest`` of paths: the manifest named on the command line is read first (one that does
    not parse fails the ingest before any log is read or any container made), then the paths are ingested in
    one session, and the manifest's entries whose logs were not found are warned about."""
    explicit = None
    if manifest_path:
        try:
            explicit = read_manifest(manifest_path)
        except ParseError as error:
            summary.failed.append(str(error))
            return summary
        summary.manifest = str(manifest_path)
    session = open_session()
    session.ingest_paths(paths, explicit, name_of=name_of)
    session.finish()
    if explicit is not None:
        session.warn_unused(explicit)
    return summary


def files_below(root: Path) -> Iterator[Path]:
    for directory, _, names in os.walk(root):
        for name in names:
            yield Path(directory) / name


class LogBatchSession:
    """One ingest call of logs into one container (a study, a series), shared by the log pipelines.

    A log is identified by the sha256 of its bytes: a log seen twice in one call, or already stored
    with the same placements, is counted unchanged. Each log is written in its own savepoint (a
    database error drops that log alone) and up to ``LOGS_PER_COMMIT`` logs share one commit, whose
    fsync costs more than a log's rows. A kind gives how to read its folders (``ingest_tree``), how to
    parse one log (``ingest_file``), the placements of its records and how to store them.
    """

    def __init__(
        self,
        summary: LogIngestSummary,
        container,
        created_container: bool,
        stored_placements: dict[str, list],
        *,
        upload=None,
        stored_owners: dict[str, set] | None = None,
    ):
        """`upload` is the writer (None: the operator's command line); `stored_owners` the uploads (None: the
        operator) whose points each stored log has. An upload adds only to a container its own account
        created and replaces only points it stored itself (apps.results.services.ownership); a refusal raises
        IngestError before anything is read."""
        if not created_container and not may_add_to(upload, container.upload):
            raise IngestError(
                f"{container.__class__._meta.verbose_name} {container.name!r} belongs to "
                f"{owner_name(container.upload)}: an upload adds only to a series or study its "
                f"own account created; choose another name"
            )
        self.summary = summary
        self.container = container
        self.created_container = created_container
        self.stored_placements = stored_placements
        self.upload = upload
        self.stored_owners = stored_owners or {}
        self.seen_hashes: dict[str, str] = {}
        self.pending: list[tuple[str, str, list]] = []

    def ingest_paths(self, paths: Iterable[str | Path], manifest, *, name_of: Callable[[Path], str]) -> None:
        """Ingest each path: a folder or an archive is walked, a file is one log named ``name_of(path)``."""
        for path in map(Path, paths):
            if not path.exists():
                self.summary.failed.append(f"{path}: no such file or directory")
            elif path.is_dir() or is_archive(path):
                self.ingest_folder(path, manifest)
            else:
                self.ingest_file(path, name_of(path), manifest)

    def ingest_upload(self, upload) -> None:
        """Ingest a stored upload (a log, or an archive of logs) and store it."""
        with stored_upload_copy(upload) as path:
            if is_archive(path):
                self.ingest_folder(path, None)
            else:
                self.ingest_file(path, upload.original_name, None)
        self.finish()

    def ingest_folder(self, path: Path, explicit_manifest) -> None:
        try:
            with open_input(path, **archive_caps()) as root:
                self.ingest_tree(root, sorted(files_below(root)), explicit_manifest)
        except ArchiveError as error:
            self.summary.failed.append(f"{path}: {error}")

    def ingest_tree(self, root: Path, files: list[Path], explicit_manifest) -> None:
        raise NotImplementedError

    def ingest_file(self, path: Path, name: str, manifest, *, from_folder: bool = False) -> None:
        raise NotImplementedError

    def read_log(
        self,
        path: Path,
        name: str,
        *,
        looks_like: Callable[[str], bool],
        sniff_bytes: int,
        from_folder: bool,
        mark_empty: bool = False,
    ) -> bytes | None:
        """The bytes of one log, or None (reported). Inside a folder, a file that does not start like
        the kind's output within its first ``sniff_bytes`` is skipped without being read further."""
        try:
            with open(path, "rb") as handle:
                head = handle.read(sniff_bytes)
                if from_folder and not looks_like(head.decode("utf-8", errors="replace")):
                    self.summary.skipped.append(name + (" (empty)" if mark_empty and not head.strip() else ""))
                    return None
                return head + handle.read()
        except OSError as error:
            self.summary.failed.append(f"{name}: cannot read: {error.strerror or error}")
            return None

    def seen_before(self, name: str, content_hash: str) -> bool:
        """Whether this call already met a log with these bytes (then counted unchanged)."""
        if content_hash in self.seen_hashes:
            self.summary.unchanged.append(f"{name} (same bytes as {self.seen_hashes[content_hash]})")
            return True
        self.seen_hashes[content_hash] = name
        return False

    def queue(self, name: str, content_hash: str, records: list) -> None:
        """Queue one log's records for storing, unless they are stored already with the same placements."""
        if self.stored_placements.get(content_hash) == self.placements(records):
            self.summary.unchanged.append(name)
            return
        if content_hash in self.stored_placements and not may_rewrite(self.upload, self.stored_owners[content_hash]):
            owners = ", ".join(
                sorted(
                    owner_name(Upload.objects.filter(pk=pk).first() if pk else None)
                    for pk in self.stored_owners[content_hash]
                )
            )
            self.summary.failed.append(
                f"{name}: already stored with other placements by {owners}; an upload "
                f"never replaces points another upload or the operator stored"
            )
            return
        self.pending.append((name, content_hash, records))
        if len(self.pending) >= LOGS_PER_COMMIT:
            self.flush()

    def finish(self) -> None:
        """Store what is pending; a container this ingest created but could fill with nothing is removed. Then
        the pages showing the container are stale (the data version is bumped once, for the whole session)."""
        self.flush()
        if self.created_container and not self.container.points.exists():
            self.container.delete()
            self.forget_container()
        bump_data_version_on_commit()

    def forget_container(self) -> None:
        raise NotImplementedError

    def warn_unused(self, manifest) -> None:
        """Warn about the manifest's entries whose logs this session did not meet."""
        raise NotImplementedError

    def flush(self) -> None:
        """Store the pending logs: one savepoint each, one commit for all of them."""
        with transaction.atomic():
            for name, log_hash, records in self.pending:
                replacing = log_hash in self.stored_placements
                try:
                    with transaction.atomic():
                        if replacing:
                            self.container.points.filter(log_hash=log_hash).delete()
                        self.store(records)
                except DatabaseError:
                    # The database's words (SQL, values) go to the log, not to the uploader.
                    logger.warning("%s: could not be stored", name, exc_info=True)
                    self.summary.failed.append(f"{name}: could not be stored (the database refused a value in it)")
                    continue
                (self.summary.updated if replacing else self.summary.stored).append(name)
                self.stored_placements[log_hash] = self.placements(records)
                self.stored_owners[log_hash] = {self.upload.pk if self.upload else None}
                self.summary.points_created += len(records)
        self.pending = []

    def placements(self, records: list) -> list:
        """The sorted placements of one log's records; a changed placement replaces the stored points."""
        raise NotImplementedError

    def store(self, records: list) -> None:
        """Write one log's records (inside that log's savepoint)."""
        raise NotImplementedError
