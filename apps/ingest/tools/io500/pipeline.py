"""The IO500 pipeline: result directories, trees of submissions and uploads in, runs out.

Parsers (``apps.ingest.tools.io500.grammar``) turn files into plain records; this module turns records
into rows. Each run is stored in
one transaction (an upload: all its runs in one), so a failure leaves nothing half-written. A
run's identity is the content hash of its result files plus its path inside the ingested tree,
so ingesting the same data again finds the existing run and changes nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC
from functools import cached_property
from itertools import islice
from pathlib import Path

from django.conf import settings
from django.db import DataError, IntegrityError, transaction

from apps.ingest.core.archive import ArchiveError, open_input
from apps.ingest.core.common import (
    IngestError,
    IngestUsageError,
    archive_caps,
    check_runs_per_upload,
    fit,
    stored_upload_copy,
)
from apps.ingest.core.metadata import SidecarError, find_sidecar, from_layout, resolve_metadata
from apps.ingest.core.pipeline import Pipeline
from apps.ingest.core.read_ahead import read_ahead
from apps.ingest.parsers.errors import ParseError, joined_problems
from apps.ingest.parsers.secrets import scrub_tokens
from apps.ingest.parsers.values import require_finite
from apps.ingest.tools.io500.anomaly_facts import facts_from_record
from apps.ingest.tools.io500.grammar import parse_result_set, survey_tree
from apps.ingest.tools.io500.provenance import Provenance, collect_provenance
from apps.ingest.tools.io500.records import IO500RunRecord
from apps.results.judgements.anomalies.node_counts import resolved_client_nodes
from apps.results.judgements.rank_stats import summarise_ranks
from apps.results.judgements.reproducibility import QuestionnaireError, clean_reproducibility
from apps.results.models import (
    Institution,
    LustreBuild,
    LustrePatch,
    PhaseRankStats,
    PhaseResult,
    ReviewStatus,
    Run,
    RunFile,
    Stack,
    StorageSystem,
    Striping,
    Tunable,
    Upload,
)
from apps.results.models.systems import Created
from apps.results.services import runs
from apps.results.services.anomaly_checks import check_new_runs, check_run_anomalies
from apps.results.services.ownership import may_reprocess, owner_name, same_account, system_claim

logger = logging.getLogger(__name__)

# Options of the ``ingest`` command that name the system, overriding the files.
OVERRIDE_OPTIONS = ("institution", "system", "filesystem", "storage_vendor", "client_nodes")


@dataclass
class IngestSummary:
    created: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    #: Runs an account had uploaded first, now the operator's: one line each, naming the account's upload.
    taken_over: list[str] = field(default_factory=list)

    @property
    def run_ids(self) -> list[int]:
        return self.created + self.updated + self.unchanged

    def merge(self, other: IngestSummary) -> None:
        for name in ("created", "updated", "unchanged", "failed", "skipped", "taken_over"):
            getattr(self, name).extend(getattr(other, name))

    @property
    def ok(self) -> bool:
        return not self.failed

    def write_report(self, out, err) -> None:
        """Failures and skipped folders to ``err``, the counts to ``out`` (the ``ingest`` command's report)."""
        for failure in self.failed:
            err.write(f"FAILED {failure}")
        for skipped in self.skipped:
            err.write(f"skipped {skipped}")
        for taken in self.taken_over:
            out.write(f"took over {taken}")
        taken = f", taken over {len(self.taken_over)} (uploaded first by an account: see above)"
        out.write(
            f"created {len(self.created)}, updated {len(self.updated)}, "
            f"unchanged {len(self.unchanged)}, failed {len(self.failed)}, skipped {len(self.skipped)}"
            + (taken if self.taken_over else "")
        )


@dataclass
class ParsedRun:
    """A record with what was found around it: sidecar, layout and provenance."""

    record: IO500RunRecord
    metadata: dict
    provenance: Provenance

    @property
    def identity(self) -> str:
        return Run.make_identity(self.record.content_hash, self.record.source_path)

    @cached_property
    def kept_files(self) -> tuple[dict[str, str], list[str]]:
        """`kept_files` of the record, scrubbed once for the run's facts and its rows."""
        return kept_files(self.record.raw_files)


def parse_io500_tree(
    root: Path,
    result_dirs: list[Path],
    overrides: dict | None = None,
) -> Iterable[ParsedRun | ParseError]:
    """Each result set, parsed, with its metadata resolved; failures are yielded, not raised."""
    for result_dir in result_dirs:
        try:
            record = parse_result_set(root, result_dir)
            refuse_non_finite(record)
            sidecar = find_sidecar(result_dir, root)
            metadata = resolve_metadata(
                overrides=overrides,
                sidecar=sidecar,
                info=record.info,
                record_metadata=record.metadata,
                layout=from_layout(result_dir, root),
            )
            provenance = collect_provenance(record, sidecar, result_dir, root)
            metadata["reproducibility"] = reproducibility_answers(overrides, sidecar, result_dir, root)
        except SidecarError as exc:
            yield ParseError(str(exc), None, "sidecar could not be read")
            continue
        except ParseError as exc:
            yield exc
            continue
        yield ParsedRun(record, metadata, provenance)


def refuse_non_finite(record: IO500RunRecord) -> None:
    """Refuse a run whose phases or reported score the grammar read as inf or nan (``require_finite``)."""
    for phase in record.phases:
        require_finite(phase.value, phase.source_file, phase.source_line, f"{phase.name} value {phase.printed_value!r}")
        require_finite(phase.seconds, phase.source_file, phase.source_line, f"{phase.name} time")
    score, printed = record.reported_score, record.evidence.reported_score_printed or {}
    if score is not None:
        for part in ("bw", "md", "total"):
            where = printed.get("source_file") or record.source_path
            require_finite(getattr(score, part), where, printed.get("source_line"), f"reported score {part}")


def reproducibility_answers(overrides: dict | None, sidecar: dict, result_dir: Path, root: Path) -> dict:
    """The `reproducibility:` answers: the upload's field when given, else the sidecar's (checked either way)."""
    if (overrides or {}).get("reproducibility"):
        return clean_reproducibility(overrides["reproducibility"], "upload field reproducibility")
    try:
        return clean_reproducibility(sidecar.get("reproducibility"))
    except QuestionnaireError as exc:
        where = (result_dir.resolve().relative_to(root.resolve()) / "ioboard.yaml").as_posix()
        raise SidecarError(f"{where}: {exc}") from exc


#: Runs of a tree stored in one transaction, and brought in line (list entries, custom lists, the data version)
#: once: the upkeep and the commit cost more than a run's rows, and fifty parsed runs are a few MiB.
RUNS_PER_COMMIT = 50
#: Runs parsed ahead of the ones being stored (apps.ingest.core.read_ahead): a transaction's worth, so the next
#: chunk is parsed while this one is stored (with fewer, the parser waits for room while a chunk is stored and the
#: storing waits for the parser to fill the next one); a few MiB more.
READ_AHEAD_RUNS = RUNS_PER_COMMIT


def ingest_path(
    path: Path,
    *,
    overrides: dict | None = None,
    reprocess: bool = False,
    progress: Callable[[int, int], None] | None = None,
    runs_per_commit: int = RUNS_PER_COMMIT,
) -> IngestSummary:
    """Ingest a folder, archive or tree of submissions, failures collected.

    Runs are parsed and stored ``runs_per_commit`` at a time, in one transaction with one upkeep, each in its own
    savepoint (``Batch.step``): a run the database refuses is rolled back alone and reported by its folder, the
    others commit. The lists' maintenance and the change detection run once, at the end of the batch.
    """
    summary = IngestSummary()
    try:
        with runs.batch(atomic=False) as batch, open_input(Path(path), **archive_caps()) as root:
            result_dirs = survey_submissions(root, path, summary)
            ingest_result_dirs(
                root,
                result_dirs,
                batch=batch,
                summary=summary,
                overrides=overrides,
                reprocess=reprocess,
                progress=progress,
                runs_per_commit=runs_per_commit,
            )
    except ArchiveError as exc:
        summary.failed.append(f"{path}: {exc}")
    return summary


def survey_submissions(root: Path, path: Path, summary: IngestSummary) -> list[Path]:
    """The result directories under an opened tree; the folders that cannot be scored go to the summary's skipped."""
    result_dirs, unscoreable = survey_tree(root)
    summary.skipped.extend(f"{folder.relative_to(root).as_posix()}: {reason}" for folder, reason in unscoreable)
    if not result_dirs and not unscoreable:
        summary.skipped.append(f"{path}: no IO500 result directory found")
    return result_dirs


def ingest_result_dirs(
    root: Path,
    result_dirs: list[Path],
    *,
    batch: runs.Batch,
    summary: IngestSummary,
    overrides: dict | None = None,
    reprocess: bool = False,
    progress: Callable[[int, int], None] | None = None,
    runs_per_commit: int = RUNS_PER_COMMIT,
) -> None:
    """Parse and store these result directories of the tree at ``root``, each run in a transaction of ``batch``;
    what happened to each goes to ``summary``. A run's identity is its path below ``root``, so any share of a
    tree's directories, in any process, stores the runs the whole tree does."""
    done = 0
    with closing(read_ahead(parse_io500_tree(root, result_dirs, overrides), depth=READ_AHEAD_RUNS)) as items:
        while chunk := list(islice(items, runs_per_commit)):
            store_chunk(chunk, batch=batch, reprocess=reprocess, summary=summary)
            done += len(chunk)
            if progress:
                progress(done, len(result_dirs))


def store_chunk(
    chunk: list[ParsedRun | ParseError], *, batch: runs.Batch, reprocess: bool, summary: IngestSummary
) -> None:
    """Store parsed runs in one transaction of the batch, one savepoint each (``ingest_path``)."""
    parsed = [item for item in chunk if not isinstance(item, ParseError)]
    summary.failed.extend(str(item) for item in chunk if isinstance(item, ParseError))
    if not parsed:
        return
    with batch.transaction():
        # The chunk's runs already stored, locked in one query; whose each was (a run an account uploaded first is
        # taken over, and reported); and the systems met so far, each resolved once.
        stored = {
            run.identity: run
            for run in Run.objects.select_for_update().filter(identity__in=[item.identity for item in parsed])
        }
        uploaded_by = {identity: run.upload_id for identity, run in stored.items()}
        systems, created = resolve_systems(parsed)
        ceilings = Stack.operator_ceilings(system.pk for system in systems.values())
        failures = len(summary.failed)
        created_together = store_new_runs(
            [item for item in parsed if item.identity not in stored], batch=batch, systems=systems, ceilings=ceilings
        )
        for item in parsed:
            if item.identity in created_together:
                run = created_together[item.identity]
                summary.created.append(run.pk)
                batch.detect_changes([run.pk])
                continue
            try:
                with batch.step():
                    run, outcome = _store_parsed_run(
                        item,
                        batch=batch,
                        upload=None,
                        reprocess=reprocess,
                        stored=stored,
                        systems=systems,
                        ceilings=ceilings,
                    )
            except (DataError, IntegrityError):
                # A value the database refuses is this run's fault: reported, the others stored. A lost lock or
                # connection (OperationalError) is not: it stops the unit, and `ingest --workers` retries it.
                systems.clear()  # one of them may have been created, or described, in the step rolled back
                # The database's words (SQL, values) go to the log, not to the report.
                logger.warning("%s: could not be stored", item.record.source_path, exc_info=True)
                summary.failed.append(
                    f"{item.record.source_path or '.'}: could not be stored (the database refused a value in it)"
                )
                continue
            if outcome == TAKEN_OVER:
                first = Upload.objects.select_related("uploader").get(pk=uploaded_by[item.identity])
                summary.taken_over.append(f"run {run.pk} ({run.source_path}) from {owner_name(first)}")
                summary.updated.append(run.pk)
            else:
                getattr(summary, outcome).append(run.pk)
            if outcome in ("created", "updated", TAKEN_OVER):
                batch.detect_changes([run.pk])
        if len(summary.failed) > failures:
            forget_unused(created)


def store_new_runs(
    items: list[ParsedRun], *, batch: runs.Batch, systems: dict[tuple, StorageSystem], ceilings: dict[int, Stack | None]
) -> dict[str, Run]:
    """Create the operator's new runs of a chunk together, in one step: one insert per table of children (each
    kind, the anomalies) and one update (the verdicts) instead of a few per run. Returns them by identity; {}
    when the database refused any of it, after rolling back the step: the caller then stores each run in a step of
    its own (`_store_parsed_run`), where a refused run fails alone as it always did. A lone run gains nothing
    from it and is stored that way too."""
    if len(items) < 2 or len({item.identity for item in items}) < len(items):
        return {}
    try:
        with batch.step():
            # The runs one insert each: their big JSON columns cost more quoted into one insert's arrays.
            created = [
                batch.store(**creation_fields(item, None, *described_fields(item, None, systems))) for item in items
            ]
            store_children(zip(created, items, strict=True))
            check_new_runs(created, batch=batch, ceilings=ceilings)
    except (DataError, IntegrityError):
        systems.clear()  # one of them may have been created, or described, in the step rolled back
        logger.info("%d runs stored together were refused: each is stored alone", len(items), exc_info=True)
        return {}
    return {item.identity: run for item, run in zip(items, created, strict=True)}


def system_names(parsed: ParsedRun) -> tuple[str, str, str]:
    """The (institution, system, file system) a run names."""
    metadata = parsed.metadata
    return metadata.get("institution", ""), metadata.get("system", ""), metadata.get("filesystem", "")


def resolve_systems(parsed: list[ParsedRun]) -> tuple[dict[tuple, StorageSystem], Created]:
    """The systems a chunk's runs name, found or created together (`StorageSystem.resolve_all`), by their names. A
    name the database refuses (too long) leaves them all to each run's own step, where it fails that run alone."""
    try:
        with transaction.atomic():
            return StorageSystem.resolve_all(system_names(item) for item in parsed)
    except (DataError, IntegrityError):
        return {}, Created(set(), set())


def forget_unused(created: Created) -> None:
    """Remove the systems and institutions a chunk created for runs that were then refused: one-by-one, they would
    have been rolled back with their runs."""
    StorageSystem.objects.filter(pk__in=created.systems, runs__isnull=True).delete()
    Institution.objects.filter(pk__in=created.institutions, systems__isnull=True).delete()


def ingest_paths(
    paths: Iterable[Path],
    options: dict,
    *,
    progress_for: Callable[[Path], Callable[[int, int], None] | None] | None = None,
) -> IngestSummary:
    """The ``ingest --kind io500`` command: each path in turn; with ``reprocess`` and no path, every stored upload.

    ``options`` may name the system (``institution``, ``system``, ``filesystem``, ``storage_vendor``,
    ``client_nodes``), overriding what the files say.
    """
    paths = list(paths)
    if not paths and not options.get("reprocess"):
        raise IngestUsageError("give at least one PATH (or --reprocess to re-parse stored uploads)")
    overrides = {key: options[key] for key in OVERRIDE_OPTIONS if options.get(key) not in (None, "")}
    summary = IngestSummary()
    if not paths:
        # A failed upload whose file is past its retention (apps.ingest.retention) has nothing to re-read.
        summary.merge(reprocess_uploads(Upload.objects.filter(kind="io500").exclude(file="").order_by("pk")))
    for path in map(Path, paths):
        if not path.exists():
            summary.failed.append(f"{path}: no such file or directory")
            continue
        summary.merge(
            ingest_path(
                path,
                overrides=overrides,
                reprocess=bool(options.get("reprocess")),
                progress=progress_for(path) if progress_for else None,
            )
        )
    return summary


def ingest_upload(upload: Upload, *, reprocess: bool = False, batch: runs.Batch | None = None) -> list[Run]:
    """Ingest a stored upload, all or nothing. Re-running it finds the runs its account already stored.

    Its runs are one unit of work of their own, or one step (a savepoint) of the caller's open `batch`
    transaction, which brings them in line with the other uploads of that transaction (`reprocess_uploads`).

    Result directories already stored by another owner (another account, or the operator's command-line
    ingest) are *already published*: the upload fails, naming them, and changes nothing. Reprocessing an
    upload rewrites only the runs it owns and leaves the others alone (apps.results.services.ownership).
    """
    overrides = {k: v for k, v in (upload.declared_metadata or {}).items() if v not in (None, "")}
    try:
        with stored_upload_copy(upload) as stored, open_input(stored, **archive_caps()) as root:
            result_dirs = survey_tree(root)[0]
            check_runs_per_upload(len(result_dirs), upload.original_name)
            parsed = list(parse_io500_tree(root, result_dirs, overrides))
    except ArchiveError as exc:
        raise IngestError(f"{upload.original_name}: {exc}") from exc
    failures = [item for item in parsed if isinstance(item, ParseError)]
    if failures:
        raise IngestError(joined_problems([str(failure) for failure in failures]))
    if not parsed:
        raise IngestError(f"{upload.original_name}: no IO500 result directory found in the upload")
    stored = []
    with batch.step() if batch else runs.batch() as work:
        published = []
        for item in parsed:
            run, outcome = store_parsed_run(item, batch=work, upload=upload, reprocess=reprocess)
            if outcome == FOREIGN:
                published.append(f"{item.record.source_path or '.'} is run {run.pk} of {owner_name(run.upload)}")
            else:
                stored.append(run)
        if published and not reprocess:
            raise IngestError(
                f"{upload.original_name}: already published, this upload changes nothing: " + "; ".join(published)
            )
        work.detect_changes(run.pk for run in stored)
    return stored


#: The outcome of a run stored by another owner than the writer: left as it is (apps.results.services.ownership).
FOREIGN = "foreign"
#: The outcome of the operator's ingest finding a run an account uploaded first: the operator's now.
TAKEN_OVER = "taken_over"


def store_parsed_run(
    parsed: ParsedRun, *, batch: runs.Batch, upload: Upload | None = None, reprocess: bool = False
) -> tuple[Run, str]:
    """Create the run (or find it, or rewrite it when reprocessing), in a transaction of the writer's batch.

    Returns the run and "created", "updated", "unchanged", FOREIGN (a run of another owner, untouched) or
    TAKEN_OVER (the operator's ingest of a run an account uploaded first: rewritten from the operator's files).
    The run is saved more than once (created, then its verdicts) in one batch: its list entries are brought
    in line once, at the end (apps.results.services.runs).
    """
    with batch.transaction():
        return _store_parsed_run(parsed, batch=batch, upload=upload, reprocess=reprocess)


def _store_parsed_run(
    parsed: ParsedRun,
    *,
    batch: runs.Batch,
    upload: Upload | None,
    reprocess: bool,
    stored: dict[str, Run] | None = None,
    systems: dict[tuple, StorageSystem] | None = None,
    ceilings: dict[int, Stack | None] | None = None,
) -> tuple[Run, str]:
    """`stored`: the runs of the caller's chunk already stored, by identity, locked by the caller (else this run
    is looked up and locked here); `systems`: the systems the caller's transaction resolved, by their names;
    `ceilings`: the operator's stacks of those systems (`check_run_anomalies`)."""
    identity = parsed.identity
    if stored is None:
        existing = Run.objects.select_for_update().filter(identity=identity).first()
    else:
        existing = stored.get(identity)
    taking_over = bool(existing and upload is None and existing.upload_id is not None)
    if existing and not reprocess and not taking_over:
        # The operator's command line finds its own runs unchanged; an upload only the runs of its own account.
        return existing, "unchanged" if upload is None or same_account(upload, existing.upload) else FOREIGN
    if existing and not may_reprocess(upload, existing.upload):
        return existing, FOREIGN
    fields, claim = described_fields(parsed, upload, systems)
    if taking_over:
        # The operator holds these files (the public archive): an account that uploaded them first does not
        # keep the run. It is read again from the operator's files and is the operator's, accepted as reviewed,
        # and public (no upload of an edition or embargo date holds it private any more).
        fields.update(upload=None, review_status=ReviewStatus.ACCEPTED, system_claim="", embargoed=False)
        run, outcome = batch.rewrite(existing, fields), TAKEN_OVER
    elif existing:
        if claim and fields["system"].pk != existing.system_id:
            fields.update(review_status=ReviewStatus.SUBMITTED, system_claim=claim)
        run, outcome = batch.rewrite(existing, fields), "updated"
    else:
        run, outcome = batch.store(**creation_fields(parsed, upload, fields, claim)), "created"
    store_children([(run, parsed)])
    check_run_anomalies(run, batch=batch, first_check=outcome == "created", ceilings=ceilings)
    return run, outcome


def described_fields(
    parsed: ParsedRun, upload: Upload | None, systems: dict[tuple, StorageSystem] | None
) -> tuple[dict, str]:
    """The run's columns (`run_fields`) and the claim its writer makes on their system (`system_claim`), the
    system described by the writer unless it claims another owner's."""
    fields = run_fields(parsed, systems)
    claim = system_claim(fields["system"], upload)
    if not claim:  # who claims another owner's system does not describe it either
        fields["system"].fill_blanks(
            by=upload,
            storage_vendor=parsed.metadata.get("storage_vendor", ""),
            server_count=_as_int(parsed.metadata.get("server_count")),
        )
    return fields, claim


def creation_fields(parsed: ParsedRun, upload: Upload | None, fields: dict, claim: str) -> dict:
    """The columns of a new run: its `described_fields` with its identity, writer and review status."""
    # A new upload is a submission the committee has yet to review, unless its uploader may publish
    # without review and it claims no other owner's system; published archives ingested from the
    # command line were reviewed.
    status = ReviewStatus.SUBMITTED if upload and (upload.needs_review or claim) else ReviewStatus.ACCEPTED
    return {
        "identity": parsed.identity,
        "upload": upload,
        "review_status": status,
        "system_claim": claim,
        **fields,
    }


def run_fields(parsed: ParsedRun, systems: dict[tuple, StorageSystem] | None = None) -> dict:
    """The run's columns from a parsed record. The storage system is found or created by its names (once per
    spelling in `systems`, the caller's memo); the caller fills in its description (`StorageSystem.fill_blanks`)
    unless the writer claims another owner's system."""
    record, metadata = parsed.record, parsed.metadata
    names = system_names(parsed)
    memo = {} if systems is None else systems
    if names not in memo:
        memo[names] = StorageSystem.resolve(*names, fill_blanks=False)
    system = memo[names]
    timestamp = record.run_timestamp
    if timestamp and timestamp.tzinfo is None:
        timestamp = timestamp.replace(tzinfo=UTC)
    facts = facts_from_record(record, metadata)
    facts.files_not_kept = files_not_kept(parsed.kept_files[1])
    # Explicit metadata (an option, a sidecar, an upload field) wins; else the count the evidence supports best,
    # which is the tools' count whenever the evidence agrees (apps.results.judgements.anomalies.node_counts).
    client_nodes = _as_int(metadata.get("client_nodes")) or resolved_client_nodes(facts, record.client_nodes)
    procs_per_node = record.procs_per_node
    if client_nodes != record.client_nodes:
        divides = bool(client_nodes and record.client_procs and record.client_procs % client_nodes == 0)
        procs_per_node = record.client_procs // client_nodes if divides else None
    year = _as_int(metadata.get("year")) or (timestamp.year if timestamp else None)
    extended = {}
    if record.computed_extended or record.reported_extended:
        extended = {
            "computed": vars(record.computed_extended) if record.computed_extended else None,
            "reported": vars(record.reported_extended) if record.reported_extended else None,
        }
    return {
        "system": system,
        "content_hash": record.content_hash,
        "source_path": record.source_path,
        "submission_id": str(metadata.get("submission_id", "")),
        "kind": Run.Kind.IO500,
        "benchmark_version": fit(Run, "benchmark_version", record.benchmark_version),
        "era": record.era,
        "generation": fit(Run, "generation", record.generation),
        "run_timestamp": timestamp,
        "year": year,
        "client_nodes": client_nodes,
        "client_procs": record.client_procs,
        "procs_per_node": procs_per_node,
        "config": record.config,
        "info": {**record.info, **({"notes": metadata["notes"]} if metadata.get("notes") else {})},
        "facts": facts.to_dict(),
        "lustre_build": store_lustre_build(parsed.provenance),
        "score_bw": record.computed_score.bw,
        "score_md": record.computed_score.md,
        "score_total": record.computed_score.total,
        "reported_bw": record.reported_score.bw,
        "reported_md": record.reported_score.md,
        "reported_total": record.reported_score.total,
        "score_formula": record.score_formula,
        "extended_scores": extended,
        "valid": record.valid,
        "invalid_reasons": record.invalid_reasons,
        "verification": record.verification,
        "config_hash_status": record.config_hash_status,
        "reproducibility": metadata.get("reproducibility") or {},
    }


#: Names of the files not kept that a run's facts (and its `files_not_kept` finding) list; the rest are counted.
NAMED_FILES_NOT_KEPT = 20


def kept_files(raw_files: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The configuration files a run keeps (without NUL characters or tokens), in name order, within
    IOBOARD_RUN_KEPT_FILES files and IOBOARD_RUN_KEPT_FILE_BYTES (UTF-8) in all, and the names of the rest, from the
    first past the budget on: every reader of the run page pays for its files, so the upload may not choose how many."""
    kept: dict[str, str] = {}
    left_out: list[str] = []
    spent = 0
    for name in sorted(raw_files):
        content = scrub_tokens(raw_files[name].replace("\x00", ""))
        size = len(content.encode())
        full = len(kept) >= settings.IOBOARD_RUN_KEPT_FILES or spent + size > settings.IOBOARD_RUN_KEPT_FILE_BYTES
        if left_out or full:
            left_out.append(name)
        else:
            kept[name] = content
            spent += size
    return kept, left_out


def files_not_kept(left_out: list[str]) -> dict:
    """The fact the `files_not_kept` finding reads (anomalies.facts.RunFacts): empty when all are kept."""
    if not left_out:
        return {}
    budget = {"files": settings.IOBOARD_RUN_KEPT_FILES, "bytes": settings.IOBOARD_RUN_KEPT_FILE_BYTES}
    return {"files": left_out[:NAMED_FILES_NOT_KEPT], "count": len(left_out), "budget": budget}


def store_children(stored: Iterable[tuple[Run, ParsedRun]]) -> None:
    """The children of these runs (phases, files, rank statistics, tunables, stripings), one insert per table
    whatever the number of runs."""
    tables: dict[type, list] = {}
    for run, parsed in stored:
        for rows in children(run, parsed):
            if rows:
                tables.setdefault(type(rows[0]), []).extend(rows)
    for model, rows in tables.items():
        model.objects.bulk_create(rows)


def children(run: Run, parsed: ParsedRun) -> tuple[list, ...]:
    """The run's unsaved children, one list per table."""
    record, provenance = parsed.record, parsed.provenance
    seen, phases = set(), []
    for position, phase in enumerate(record.phases):
        if phase.name in seen:
            continue
        seen.add(phase.name)
        phases.append(
            PhaseResult(
                run=run,
                name=phase.name,
                position=position,
                value=phase.value,
                unit=phase.unit,
                seconds=phase.seconds,
                printed_value=fit(PhaseResult, "printed_value", phase.printed_value),
                printed_unit=fit(PhaseResult, "printed_unit", phase.printed_unit),
                score_group=phase.score_group,
                command=phase.command,
                invalid=phase.invalid,
                source_file=fit(PhaseResult, "source_file", phase.source_file),
                source_line=phase.source_line,
                details=phase.details,
            )
        )
    files = [
        RunFile(run=run, name=fit(RunFile, "name", name), content=content)
        for name, content in parsed.kept_files[0].items()
    ]
    tunables = [
        Tunable(
            run=run,
            parameter=fit(Tunable, "parameter", t.parameter),
            value=fit(Tunable, "value", str(t.value)),
            scope=t.scope,
            source_file=fit(Tunable, "source_file", t.source_file),
            source_line=t.source_line,
        )
        for t in provenance.tunables
    ]
    stripings = [
        Striping(
            run=run,
            path_role=fit(Striping, "path_role", s.path_role or s.path),
            stripe_count=s.stripe_count,
            stripe_size=fit(Striping, "stripe_size", str(s.stripe_size or "")),
            overstriping=s.overstriping,
            dir_stripe_count=s.dir_stripe_count,
            inherited=s.inherited,
            command=s.command or "",
            source_file=fit(Striping, "source_file", s.source_file),
            source_line=s.source_line,
        )
        for s in provenance.stripings
    ]
    return phases, files, rank_stats_rows(run, record.rank_tables), tunables, stripings


def rank_stats_rows(run: Run, tables: dict) -> list[PhaseRankStats]:
    rows = []
    for phase, table in sorted(tables.items()):
        samples = [(s.rank, s.runtime, s.throughput) for s in table.samples]
        summary = summarise_ranks(samples)
        rows.append(
            PhaseRankStats(
                run=run,
                phase=phase[:50],
                tool=table.tool,
                **summary.to_dict(),
                stonewall_pairs=table.stonewall_pairs,
                per_rank=[list(sample) for sample in samples],
                source_file=table.source_file[:1000],
            )
        )
    return rows


def store_lustre_build(provenance: Provenance) -> LustreBuild | None:
    """The shared LustreBuild row for this exact build (same versions, base and patches), or None."""
    build = provenance.lustre
    if build is None:
        return None
    row, created = LustreBuild.objects.get_or_create(
        fingerprint=provenance.lustre_fingerprint,
        defaults={
            "server_version": fit(LustreBuild, "server_version", build.server_version),
            "client_version": fit(LustreBuild, "client_version", build.client_version),
            "base_tag": fit(LustreBuild, "base_tag", build.base_tag),
            "base_commit": fit(LustreBuild, "base_commit", build.base_commit),
            "notes": build.notes or "",
        },
    )
    if created:
        LustrePatch.objects.bulk_create(
            LustrePatch(
                build=row,
                position=position,
                commit=fit(LustrePatch, "commit", p.commit),
                ticket=fit(LustrePatch, "ticket", p.ticket),
                component=fit(LustrePatch, "component", p.component),
                summary=p.summary or "",
                review_url=fit(LustrePatch, "review_url", p.review_url),
                status=p.status,
            )
            for position, p in enumerate(build.patches)
        )
    return row


def reprocess_uploads(uploads: Iterable[Upload]) -> IngestSummary:
    """Re-parse stored uploads after a parser change, rewriting the runs each owns (apps.results.services.ownership).

    One upload that cannot be re-read (its file gone, content the parsers now refuse, a database error) is
    reported, naming the upload and the reason, and the next one is reprocessed: each upload is its own
    savepoint, so nothing of a failed one is written. ``UPLOADS_PER_COMMIT`` uploads share a transaction and
    one upkeep (list entries, custom lists, the data version); the lists' maintenance and the change detection
    run once, at the end.
    """
    summary = IngestSummary()
    uploads = iter(uploads)
    with runs.batch(atomic=False) as batch:
        while chunk := list(islice(uploads, UPLOADS_PER_COMMIT)):
            with batch.transaction():
                for upload in chunk:
                    try:
                        reprocessed = ingest_upload(upload, reprocess=True, batch=batch)
                    except Exception as exc:
                        if not isinstance(exc, IngestError):
                            logger.exception("reprocessing upload %s failed", upload.pk)
                        summary.failed.append(f"upload {upload.pk} ({upload.original_name}): {exc}")
                    else:
                        summary.updated.extend(run.pk for run in reprocessed)
    return summary


#: Uploads reprocessed in one transaction (``reprocess_uploads``): an upload holds one run or a few.
UPLOADS_PER_COMMIT = 20


def _as_int(value) -> int | None:
    if value in (None, ""):
        return None
    try:
        return int(str(value).strip())
    except ValueError:
        return None


PIPELINE = Pipeline(kind="io500", ingest_upload=ingest_upload, ingest_paths=ingest_paths)
