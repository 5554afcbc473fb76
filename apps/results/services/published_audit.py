"""The audit of the published record (apps.results.judgements.published_audit) over the stored editions: per
linked entry its differences, per published list a summary, and the export of both."""

from collections import Counter, defaultdict
from dataclasses import dataclass

from apps.results.judgements.published_audit import NOT_TEN_NODES, Difference, PublishedValues, RunValues, audit_entry
from apps.results.judgements.published_ranks import LinkedEntry, RankMove, rank_moves
from apps.results.models import Edition, EditionEntry, PhaseResult, PublishedChange
from apps.results.services.published import number


def published_values(entry: EditionEntry, listed_times: int, edited: frozenset[str]) -> PublishedValues:
    record = entry.published or {}
    return PublishedValues(
        score=entry.score,
        bw=entry.score_bw,
        md=entry.score_md,
        nodes=entry.client_nodes,
        phases=record.get("phases", {}),
        submission_score=number(record.get("io500_score")),
        list_kind=entry.edition.list_kind,
        release=entry.edition.name,
        listed_times=listed_times,
        edited_fields=edited,
    )


def audited_entries(editions=None):
    """(entry, differences or None when the entry has no run) for every published entry, in list order."""
    entries = list(
        EditionEntry.objects.filter(
            edition__source=Edition.Source.PUBLISHED, **({"edition__in": editions} if editions else {})
        )
        .select_related("edition", "run")
        .order_by("-edition__released_on", "edition__name", "edition__list_kind", "rank", "pk")
    )
    listed = Counter((entry.edition_id, entry.submission_number) for entry in entries)
    edited: dict[int, set[str]] = defaultdict(set)
    for submission, name in PublishedChange.objects.filter(action=PublishedChange.Action.UPDATE).values_list(
        "submission_number", "field"
    ):
        edited[submission].add(name)
    phases: dict[int, dict[str, float]] = defaultdict(dict)
    run_ids = {entry.run_id for entry in entries if entry.run_id}
    for run_id, name, value in PhaseResult.objects.filter(run_id__in=run_ids).values_list("run_id", "name", "value"):
        phases[run_id][name] = value
    for entry in entries:
        if entry.run is None:
            yield entry, None
            continue
        run = entry.run
        values = RunValues(
            score=run.score_total,
            bw=run.score_bw,
            md=run.score_md,
            nodes=run.client_nodes,
            phases=phases[run.pk],
            score_formula=run.score_formula,
        )
        published = published_values(
            entry, listed[(entry.edition_id, entry.submission_number)], frozenset(edited[entry.submission_number])
        )
        yield entry, audit_entry(published, values)


def audit_summary() -> list[dict]:
    """Per published list, newest release first: "ISC20 IO500 list: 42 entries, 40 with raw files, 37 agree,
    3 differ"."""
    summary: dict[int, dict] = {}
    for entry, differences in audited_entries():
        row = summary.setdefault(
            entry.edition_id,
            {
                "release": entry.edition.name,
                "list": entry.edition.list_kind,
                "title": entry.edition.title,
                "entries": 0,
                "with_raw_files": 0,
                "agree": 0,
                "differ": 0,
            },
        )
        row["entries"] += 1
        if differences is not None:
            row["with_raw_files"] += 1
            row["agree" if not differences else "differ"] += 1
    return list(summary.values())


@dataclass(frozen=True)
class AuditedEntry:
    """A published entry, its differences from its run (None without raw files) and its place when its list is
    ranked by the runs' recomputed scores (None without raw files)."""

    entry: EditionEntry
    differences: list[Difference] | None
    move: RankMove | None


def list_audit(edition: Edition) -> list[AuditedEntry]:
    """The audit of one published list, in published order, with the list beside the one its linked runs make
    (apps.results.judgements.published_ranks): an entry the audit finds on a 10-node list but not on 10 nodes is
    not eligible for ioboard's own list."""
    audited = list(audited_entries([edition]))
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


def difference_dict(difference: Difference) -> dict:
    return {
        "field": difference.field,
        "published": difference.published,
        "recomputed": difference.recomputed,
        "cause": difference.cause,
    }


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
                "differences": [difference_dict(d) for d in differences or []],
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
