from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
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
from apps.ingest.tools.ior.grammar import looks_like_ior_output, parse_ior_bytes
from apps.ingest.tools.ior.study import (
    MANIFEST_NAME,
    StudyManifest,
    StudyPointRecord,
    read_study_manifest,
    study_point_records,
)
from apps.results.judgements.studies.analysis import StudyBudget
from apps.results.models import Study, StudyPoint, Upload

SNIFF_BYTES = 64 * 1024


@dataclass
class StudyIngestSummary(LogIngestSummary):
    """What an ingest did, log by log; ``str()`` is the report the command prints."""

    study: str
    study_id: int | None = None

    def __str__(self) -> str:
        return self.report(
            f"study {self.study!r}: {len(self.stored)} logs stored ({self.points_created} points), "
            f"{len(self.updated)} updated, {len(self.unchanged)} unchanged, {len(self.failed)} failed, "
            f"{len(self.skipped)} other files skipped"
        )


def ingest_ior_paths(
    paths: Iterable[str | Path],
    *,
    study_name: str,
    manifest: str | Path | None = None,
    upload: Upload | None = None,
    notes: str = "",
    margin: float | None = None,
) -> StudyIngestSummary:
    """Ingest IOR logs, folders of logs or archives of logs into the study ``study_name`` (created if new).
    ``margin``, when given, is the study's equivalence margin (set on an existing study too: an operator's)."""
    _refuse_a_dne_study(study_name, IngestUsageError)
    if margin is not None:
        _check_margin(margin)
    summary = StudyIngestSummary(study=study_name)
    return ingest_logs(
        summary,
        paths,
        manifest,
        read_manifest=read_study_manifest,
        name_of=lambda path: path.name,
        open_session=lambda: _Session(
            study_name, summary, upload=upload, notes=notes, margin=margin, margin_of_existing=True
        ),
    )


def ingest_ior_upload(upload: Upload) -> list:
    """The ingest of an API upload (kind=ior): a log, or an archive of logs with an optional
    manifest.csv, into the study named by the upload (or after its file), all or nothing: a log that
    fails fails the job, naming its file and line, and nothing of the upload is stored. The study must be
    new or one its account created (apps.results.services.ownership). Returns no runs."""
    declared = upload.declared_metadata or {}
    study_name = declared.get("study") or Path(upload.original_name).name.split(".")[0] or "IOR upload"
    _refuse_a_dne_study(study_name, IngestError)
    summary = StudyIngestSummary(study=study_name)
    with transaction.atomic():
        _Session(
            study_name,
            summary,
            upload=upload,
            notes=declared.get("notes", ""),
            margin=declared.get("margin"),
            margin_of_existing=False,
        ).ingest_upload(upload)
        if summary.problems:
            raise IngestError(f"{upload.original_name}: " + joined_problems(summary.problems))
        if not summary.found_any:
            raise IngestError(f"{upload.original_name}: no IOR output found in the upload")
    return []


def ingest_paths(paths: Iterable[str | Path], options: dict, **_) -> StudyIngestSummary:
    """The ``ingest --kind ior`` command: ``options`` name the ``study`` and may give a ``manifest``."""
    paths = list(paths)
    if not paths:
        raise IngestUsageError("give at least one IOR log, folder or archive")
    if not options.get("study"):
        raise IngestUsageError("--study NAME is required with --kind ior")
    return ingest_ior_paths(
        paths, study_name=options["study"], manifest=options.get("manifest"), margin=options.get("margin")
    )


def _check_margin(margin: float) -> None:
    try:
        Study._meta.get_field("margin").run_validators(margin)
    except ValidationError as error:
        raise IngestUsageError(f"--margin {margin}: {' '.join(error.messages)}") from error


def _refuse_a_dne_study(study_name: str, error: type[Exception]) -> None:
    """A DNE scaling series' study is written from the series' points alone: IOR logs are not added to it."""
    if Study.objects.filter(name=study_name, scaling_series__isnull=False).exists():
        raise error(
            f"study {study_name!r} is the study of a DNE scaling series: its points come from the "
            f"series' mdtest logs (ingest --kind mdtest --series), not from IOR logs"
        )


class _Session(LogBatchSession):
    """One ingest call: the study, what it already holds, and the report being written."""

    def __init__(
        self,
        study_name: str,
        summary: StudyIngestSummary,
        *,
        upload: Upload | None,
        notes: str,
        margin: float | None = None,
        margin_of_existing: bool = False,
    ):
        """``margin`` is set on a study this session creates, and on an existing one if ``margin_of_existing``
        (the command line's operator; an upload does not change a study's margin)."""
        defaults = {"upload": upload, "notes": notes, **({"margin": margin} if margin is not None else {})}
        study, created = Study.objects.get_or_create(name=study_name, defaults=defaults)
        if not created and margin_of_existing and margin is not None and study.margin != margin:
            study.margin = margin
            study.save(update_fields=["margin"])
        summary.study_id = study.pk
        stored_axes: dict[str, list] = {}
        owners: dict[str, set] = {}
        for log_hash, owner, test_index, operation, axes in study.points.values_list(
            "log_hash", "upload", "test_index", "operation", "axes"
        ):
            stored_axes.setdefault(log_hash, []).append((test_index, operation, sorted(axes.items())))
            owners.setdefault(log_hash, set()).add(owner)
        for placements in stored_axes.values():
            placements.sort()
        super().__init__(summary, study, created, stored_axes, upload=upload, stored_owners=owners)
        self.used_entries: set[Path] = set()

    def ingest_tree(self, root: Path, files: list[Path], explicit: StudyManifest | None) -> None:
        manifest = explicit
        top_manifest = root / MANIFEST_NAME
        if manifest is None and top_manifest.is_file():
            try:
                manifest = read_study_manifest(top_manifest, MANIFEST_NAME)
            except ParseError as error:
                self.summary.failed.append(str(error))
                return
            self.summary.manifest = MANIFEST_NAME
        for file in files:
            relative = file.relative_to(root).as_posix()
            if is_junk_entry(relative) or (manifest and file.resolve() == manifest.path.resolve()):
                self.summary.skipped.append(relative)
            else:
                self.ingest_file(file, relative, manifest, from_folder=True)
        if manifest is not None and manifest is not explicit:
            self.warn_unused(manifest)

    def ingest_file(self, path: Path, name: str, manifest: StudyManifest | None, *, from_folder: bool = False) -> None:
        """Parse and queue one log. Inside a folder, a file that does not start like IOR output is skipped."""
        data = self.read_log(
            path, name, looks_like=looks_like_ior_output, sniff_bytes=SNIFF_BYTES, from_folder=from_folder
        )
        if data is None:
            return
        try:
            log = parse_ior_bytes(data, name)
        except ParseError as error:
            self.summary.failed.append(str(error))
            return
        axes = manifest.axes_for(path) if manifest else None
        if manifest is not None:
            if axes is None:
                self.summary.warnings.append(f"{name} is not in the manifest: its axes come from the log only")
            else:
                self.used_entries.add(path.resolve())
        if self.seen_before(name, log.content_hash):
            return
        records = study_point_records(log, name, axes)
        if not records:
            self.summary.failed.append(f"{name}: no write or read result in this IOR log")
            return
        self.queue(name, log.content_hash, records)

    def forget_container(self) -> None:
        self.summary.study_id = None

    def flush(self) -> None:
        """Store the pending logs; an upload's only if the study stays within its budget."""
        if self.upload is not None:
            self.refuse_past_budget()
        super().flush()

    def refuse_past_budget(self) -> None:
        """Refuse the upload (nothing of it is stored: ingest_ior_upload holds it in one transaction) when the
        study, with the pending logs' points in place of what it stores for those logs, would be past
        upload_budget(). The operator's command line is not bounded: its studies are its own to size."""
        pending = {log_hash: self.placements(records) for _, log_hash, records in self.pending}
        new_axes = (name for _, _, records in self.pending for record in records for name in record.axes)
        rank = {name: index for index, name in enumerate(dict.fromkeys([*self.container.axis_order, *new_axes]))}
        excess = upload_budget().excess(
            [
                _Configuration(
                    axes=dict(sorted(axes, key=lambda item: rank.get(item[0], len(rank)))), operation=operation
                )
                for placements in {**self.stored_placements, **pending}.values()
                for _, operation, axes in placements
            ]
        )
        if excess:
            raise IngestError(
                f"{self.upload.original_name}: study {self.container.name!r} would hold {excess} "
                f"(IOBOARD_STUDY_MAX_*, docs/deployment.md); nothing of this upload is stored"
            )

    def placements(self, records: list[StudyPointRecord]) -> list:
        return sorted((r.test_index, r.operation, sorted(r.axes.items())) for r in records)

    def store(self, records: list[StudyPointRecord]) -> None:
        StudyPoint.objects.bulk_create(StudyPoint(study=self.container, upload=self.upload, **vars(r)) for r in records)
        if self.container.note_axes(name for record in records for name in record.axes):
            self.container.save(update_fields=["axis_order"])

    def warn_unused(self, manifest: StudyManifest) -> None:
        unused = [str(path.name) for path in manifest.entries if path not in self.used_entries]
        if unused:
            self.summary.warnings.append(unused_manifest_warning(unused))


@dataclass
class _Configuration:
    """A study point as the budget reads it: its axes and operation."""

    axes: dict
    operation: str


def upload_budget() -> StudyBudget:
    return StudyBudget(
        configurations=settings.IOBOARD_STUDY_MAX_CONFIGURATIONS,
        axes=settings.IOBOARD_STUDY_MAX_AXES,
        values_per_axis=settings.IOBOARD_STUDY_MAX_VALUES_PER_AXIS,
        comparisons=settings.IOBOARD_STUDY_MAX_COMPARISONS,
    )


PIPELINE = Pipeline(kind="ior", ingest_upload=ingest_ior_upload, ingest_paths=ingest_paths)
