"""The audit of the published record (apps.results.judgements.published_audit) over the stored editions: per
linked entry its differences, kept on the entry as maintained data (store_audit, when the record is imported and
when runs of its submission folders are linked or rewritten), per published list a summary counted from the
stored outcomes, and the export of both. Pages and the API read the stored audit only."""

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass

from django.db.models import Count, F, Q

from apps.results.judgements.published_audit import NOT_TEN_NODES, Difference, PublishedValues, RunValues, audit_entry
from apps.results.judgements.published_ranks import LinkedEntry, RankMove, rank_moves
from apps.results.models import Edition, EditionEntry, PhaseResult, PublishedChange
from apps.results.models.querysets import LARGE_RUN_FIELDS

PUBLISHED = Edition.Source.PUBLISHED


def number(value) -> float | None:
    """A value of the published record as a number: None for a blank or unreadable one."""
    try:
        return None if value in (None, "") else float(value)
    except (TypeError, ValueError):
        return None


def published_values(row: dict, listed_times: int, edited: frozenset[str]) -> PublishedValues:
    """An entry as the record holds it, from a values() row of store_audit."""
    record = row["published"] or {}
    return PublishedValues(
        score=row["score"],
        bw=row["score_bw"],
        md=row["score_md"],
        nodes=row["client_nodes"],
        phases=record.get("phases", {}),
        submission_score=number(record.get("io500_score")),
        list_kind=row["edition__list_kind"],
        release=row["edition__name"],
        listed_times=listed_times,
        edited_fields=edited,
    )


def store_audit(submission_numbers=None, *, entries=EditionEntry, phases=PhaseResult, changes=PublishedChange) -> int:
    """Judge the published entries (all, or those of these submission folders) against their runs and store the
    outcome on each (audit_differences, audit_agrees; both null without a run), so that pages read it instead of
    judging about 2,000 entries per request. Called when the record is imported and when a batch of runs linked,
    relinked or rewrote runs of a submission folder (apps.results.services.published.link_entries). The model
    classes are the migration's historical ones when it fills the audit of existing data. Returns the entries
    written."""
    record = entries.objects.filter(edition__source=PUBLISHED)
    edits = changes.objects.filter(action=PublishedChange.Action.UPDATE)
    if submission_numbers is not None:
        record = record.filter(submission_number__in=list(submission_numbers))
        edits = edits.filter(submission_number__in=list(submission_numbers))
    rows = list(
        record.values(
            "pk",
            "edition_id",
            "edition__name",
            "edition__list_kind",
            "submission_number",
            "score",
            "score_bw",
            "score_md",
            "client_nodes",
            "published",
            "run_id",
            "run__score_total",
            "run__score_bw",
            "run__score_md",
            "run__client_nodes",
            "run__score_formula",
        )
    )
    listed = Counter((row["edition_id"], row["submission_number"]) for row in rows)
    edited: dict[int, set[str]] = defaultdict(set)
    for submission, name in edits.values_list("submission_number", "field"):
        edited[submission].add(name)
    run_phases: dict[int, dict[str, float]] = defaultdict(dict)
    run_ids = {row["run_id"] for row in rows if row["run_id"]}
    for run_id, name, value in phases.objects.filter(run_id__in=run_ids).values_list("run_id", "name", "value"):
        run_phases[run_id][name] = value
    audited = []
    for row in rows:
        differences = None
        if row["run_id"] is not None:
            run = RunValues(
                score=row["run__score_total"],
                bw=row["run__score_bw"],
                md=row["run__score_md"],
                nodes=row["run__client_nodes"],
                phases=run_phases[row["run_id"]],
                score_formula=row["run__score_formula"],
            )
            values = published_values(
                row,
                listed[(row["edition_id"], row["submission_number"])],
                frozenset(edited[row["submission_number"]]),
            )
            differences = [asdict(difference) for difference in audit_entry(values, run)]
        audited.append(
            entries(
                pk=row["pk"],
                audit_differences=differences,
                audit_agrees=None if differences is None else not differences,
            )
        )
    entries.objects.bulk_update(audited, ["audit_differences", "audit_agrees"], batch_size=500)
    return len(audited)


def stored_differences(entry: EditionEntry) -> list[Difference] | None:
    """The entry's stored audit: its differences from its run, None without one."""
    if entry.run_id is None or entry.audit_differences is None:
        return None
    return [Difference(**difference) for difference in entry.audit_differences]


def audited_entries(editions=None):
    """(entry, its stored differences or None when the entry has no run) for every published entry (or those of
    these editions), in list order: one query. The runs come without their large columns (LARGE_RUN_FIELDS), which
    no audit reads: decoding their JSON was half the time of a list's audit page."""
    entries = (
        EditionEntry.objects.filter(edition__source=PUBLISHED, **({"edition__in": editions} if editions else {}))
        .select_related("edition", "run")
        .defer(*(f"run__{field}" for field in LARGE_RUN_FIELDS))
        .in_published_order()
    )
    for entry in entries:
        yield entry, stored_differences(entry)


def audit_summary() -> list[dict]:
    """Per published list, newest release first: "ISC20 IO500 list: 42 entries, 40 with raw files, 37 agree,
    3 differ", counted from the stored audit in one aggregate query."""
    audited = Q(run__isnull=False, audit_agrees__isnull=False)
    return list(
        EditionEntry.objects.filter(edition__source=PUBLISHED)
        .values(release=F("edition__name"), list=F("edition__list_kind"), title=F("edition__title"))
        .annotate(
            entries=Count("pk"),
            with_raw_files=Count("pk", filter=audited),
            agree=Count("pk", filter=audited & Q(audit_agrees=True)),
            differ=Count("pk", filter=audited & Q(audit_agrees=False)),
        )
        .order_by("-edition__released_on", "release", "list")
    )


@dataclass(frozen=True)
class AuditedEntry:
    """A published entry, its differences from its run (None without raw files) and its place when its list is
    ranked by the runs' recomputed scores (None without raw files)."""

    entry: EditionEntry
    differences: list[Difference] | None
    move: RankMove | None


#: What a list's audit reads of each entry (its page and the API): neither its published phases and information (a
#: JSON each) nor its edition, and of its run the recomputed score alone. Whole entries with their editions and
#: runs were 50 ms of a 300-entry list's audit page.
AUDITED_ENTRY_FIELDS = (
    "rank",
    "submission_number",
    "system_name",
    "institution_name",
    "score",
    "run",
    "run__score_total",
    "audit_differences",
)


def list_audit(edition: Edition) -> list[AuditedEntry]:
    """The audit of one published list, in published order, with the list beside the one its linked runs make
    (apps.results.judgements.published_ranks): an entry the audit finds on a 10-node list but not on 10 nodes is
    not eligible for ioboard's own list."""
    entries = (
        EditionEntry.objects.filter(edition=edition)
        .select_related("run")
        .only(*AUDITED_ENTRY_FIELDS)
        .in_published_order()
    )
    audited = [(entry, stored_differences(entry)) for entry in entries]
    moves = {
        move.key: move
        for move in rank_moves(
            [
                LinkedEntry(
                    key=entry.pk,
                    run=entry.run_id,
                    published_rank=entry.rank or 0,
                    recomputed_score=entry.run.score_total,
                    eligible=not any(difference.cause == NOT_TEN_NODES for difference in differences),
                )
                for entry, differences in audited
                if differences is not None
            ]
        )
    }
    return [AuditedEntry(entry, differences, moves.get(entry.pk)) for entry, differences in audited]


def export_record() -> dict:
    """{"editions": [{"release", "list", "entries": [{"rank", "submission_id", "published", "run", "source_path",
    "differences"}]}]}"""
    editions: dict[int, dict] = {}
    for entry, differences in audited_entries():
        edition = editions.setdefault(
            entry.edition_id, {"release": entry.edition.name, "list": entry.edition.list_kind, "entries": []}
        )
        edition["entries"].append(
            {
                "rank": entry.rank,
                "submission_id": entry.submission_number,
                "published": {
                    "score": entry.score,
                    "bw": entry.score_bw,
                    "md": entry.score_md,
                    "nodes": entry.client_nodes,
                    "system": entry.system_name,
                    "institution": entry.institution_name,
                    **(entry.published or {}).get("phases", {}),
                },
                "run": entry.run_id,
                "source_path": entry.run.source_path if entry.run else None,
                "differences": [asdict(difference) for difference in differences or []],
            }
        )
    return {"editions": list(editions.values())}


def export_rows() -> list[dict]:
    """One row per difference, and one per entry without any (for CSV)."""
    rows = []
    for edition in export_record()["editions"]:
        for entry in edition["entries"]:
            base = {
                "release": edition["release"],
                "list": edition["list"],
                "rank": entry["rank"],
                "submission_id": entry["submission_id"],
                "published_score": entry["published"]["score"],
                "run": entry["run"],
                "source_path": entry["source_path"],
            }
            empty = {"field": "", "published": "", "recomputed": "", "cause": ""}
            rows += [base | difference for difference in entry["differences"]] or [base | empty]
    return rows
