"""io500.org's published record as ioboard data: each release a set of published editions (one per list table),
each row as the site showed it, the corrections of the site's migrations as the editions' change log, renames
as system aliases, and each entry tied to the run ingested from its `submission-N` folder.

The record arrives as plain data (the replay of the site's SQL files, apps.ingest.published.replay); this module
only stores and reads it. Importing the same files again changes nothing: the editions carry the digest of the
files they came from.
"""

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.db.models import Count, Q

from apps.results.models import Edition, EditionEntry, PublishedChange, Run, StorageSystem, SystemAlias
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.models.systems import identity_key
from apps.results.services import published_audit
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.published_audit import number

#: io500.org's list names (the last part of `list_<release>_<list>`) -> the list kind of an ioboard edition.
LIST_KINDS_OF_TABLES = {"io500": "io500", "10node": "ten-node", "full": "full", "historical": "historic"}
#: Lists of a kind ioboard has no live list for -> (their own edition's name suffix, the kind they are shown as):
#: the SC19 student-cluster list is edition SC19-scc's ranked list, so every edition page can show it.
OWN_EDITION_LISTS = {"scc": ("-scc", "io500")}
#: The site's names of its lists (its `types` table).
LIST_TITLES = {"io500": "IO500", "10node": "10 Node", "full": "Full", "historical": "Historical", "scc": "SCC"}
#: The phase values and sub-scores a submission row of the record holds.
PHASE_COLUMNS = [
    "ior_easy_write",
    "ior_easy_read",
    "ior_hard_write",
    "ior_hard_read",
    "mdtest_easy_write",
    "mdtest_easy_stat",
    "mdtest_easy_delete",
    "mdtest_hard_write",
    "mdtest_hard_read",
    "mdtest_hard_stat",
    "mdtest_hard_delete",
    "find_easy",
    "find_hard",
    "find_mixed",
]
RECORD_COLUMNS = ["io500_score", "io500_bw", "io500_md", "io500_tot_iops", "status", "repository_url", "release_id"]
#: Raised when the way the record is stored changes: an import by newer code then replaces the older one.
RECORD_FORMAT = 2
SUBMISSION_FOLDER = re.compile(r"(?:^|/)submission-(\d+)(?:/|$)")


@dataclass(frozen=True)
class PublishedList:
    """A list table of the record: its release and list kind."""

    table: str
    release: str  # the acronym, e.g. "SC18*"
    edition_name: str  # a slug, e.g. "SC18-star"
    list_kind: str


def published_list(table: str) -> PublishedList:
    """`list_sc18_star_10node` -> release SC18*, edition SC18-star, list ten-node."""
    release, _, name = table.removeprefix("list_").rpartition("_")
    acronym = release.upper().replace("_STAR", "*")
    if name in OWN_EDITION_LISTS:
        suffix, kind = OWN_EDITION_LISTS[name]
        return PublishedList(table, acronym, edition_name(acronym) + suffix, kind)
    return PublishedList(table, acronym, edition_name(acronym), LIST_KINDS_OF_TABLES[name])


def edition_name(acronym: str) -> str:
    """The slug of a release's editions: "SC18*" -> "SC18-star"."""
    return acronym.replace("*", "-star")


@dataclass
class StoreResult:
    editions: int
    entries: int
    changes: int
    aliases: int
    linked: int
    unchanged: bool


def store_record(
    releases: dict[str, dict],
    lists: dict[str, list[dict]],
    submissions: dict[int, dict],
    changes: list[dict],
    digest: str,
) -> StoreResult:
    """Store the record (replacing an earlier import of other files), in one transaction; nothing when the
    published editions already come from files with this digest.

    `changes`: {"file", "line", "table", "action", "rows"} (rows: for updates {"id", "column", "before", "after"},
    else the rows removed or added)."""
    existing = Edition.objects.filter(source=Edition.Source.PUBLISHED)
    if existing.exists() and not existing.exclude(source_digest=digest).exists():
        return StoreResult(existing.count(), EditionEntry.objects.filter(edition__in=existing).count(), 0, 0, 0, True)
    with transaction.atomic():
        existing.delete()
        PublishedChange.objects.all().delete()
        editions_of_submission: dict[int, set[str]] = defaultdict(set)
        entry_count = 0
        for table, rows in lists.items():
            where = published_list(table)
            release = releases.get(where.release, {})
            edition = Edition.objects.create(
                name=where.edition_name,
                list_kind=where.list_kind,
                source=Edition.Source.PUBLISHED,
                title=f"{where.release} {LIST_TITLES[table.rpartition('_')[2]]} list",
                description="as published by io500.org",
                released_on=release.get("release_date") or None,
                source_digest=digest,
            )
            ranked = sorted(rows, key=lambda row: (-(row["score"] or 0), row["id"]))
            EditionEntry.objects.bulk_create(
                published_entry(edition, rank, row, submissions.get(row["submission_id"]))
                for rank, row in enumerate(ranked, start=1)
            )
            edition.record_entries()
            entry_count += len(rows)
            for row in rows:
                editions_of_submission[row["submission_id"]].add(where.edition_name)
        edition_of_release = {release["id"]: edition_name(acronym) for acronym, release in releases.items()}
        logged = store_changes(changes, editions_of_submission, edition_of_release, lists)
        aliases = alias_renames(changes, submissions)
        linked = link_entries()
        bump_data_version_on_commit()
    return StoreResult(len(lists), entry_count, logged, aliases, linked, False)


def published_entry(edition: Edition, rank: int, row: dict, submission: dict | None) -> EditionEntry:
    submission = submission or {}
    return EditionEntry(
        edition=edition,
        rank=rank,
        position=row["id"],
        submission_number=row["submission_id"],
        score=row["score"],
        score_bw=number(submission.get("io500_bw")),
        score_md=number(submission.get("io500_md")),
        institution_name=submission.get("information_institution") or "",
        system_name=submission.get("information_system") or "",
        filesystem=submission.get("information_filesystem_type") or "",
        storage_vendor=submission.get("information_storage_vendor") or "",
        client_nodes=whole(submission.get("information_client_nodes")),
        client_procs=whole(submission.get("information_client_total_procs")),
        exclusion_reason="" if submission else f"submission {row['submission_id']} is not in the published record",
        published={
            "phases": {name: number(submission.get(name)) for name in PHASE_COLUMNS if name in submission},
            "information": {name: value for name, value in submission.items() if name.startswith("information_")},
            **{name: submission.get(name) for name in RECORD_COLUMNS if name in submission},
        },
    )


def whole(value) -> int | None:
    found = number(value)
    return None if found is None or found < 0 else int(found)


def store_changes(changes, editions_of_submission, edition_of_release, lists) -> int:
    rows = []
    for change in changes:
        for item in change["rows"]:
            if change["action"] == "update":
                number_ = item.get("id")
                names = editions_of_submission.get(number_) or {edition_of_release.get(None)}
                fields = {"field": item["column"], "before": text(item["before"]), "after": text(item["after"])}
            else:
                number_ = item.get("submission_id", item.get("id"))
                if change["table"].startswith("list_"):
                    names = {published_list(change["table"]).edition_name}
                else:
                    names = editions_of_submission.get(number_) or {edition_of_release.get(item.get("release_id"))}
                fields = {"before": text(item) if change["action"] == "delete" else "", "after": ""}
                if change["action"] == "insert":
                    fields = {"before": "", "after": text(item)}
            for name in sorted(filter(None, names)):
                rows.append(
                    PublishedChange(
                        edition_name=name,
                        file=change["file"],
                        line=change["line"],
                        action=change["action"],
                        table=change["table"],
                        submission_number=number_,
                        **fields,
                    )
                )
    PublishedChange.objects.bulk_create(rows)
    return len(rows)


def text(value) -> str:
    if isinstance(value, dict):
        shown = {k: v for k, v in value.items() if not k.startswith("__") and v not in (None, "")}
        return ", ".join(f"{k}={v}" for k, v in shown.items())[:2000]
    return "" if value is None else str(value)


def alias_renames(changes: list[dict], submissions: dict[int, dict]) -> int:
    """Each renamed institution or system of a submission still in the record: its old spelling becomes an alias
    of the system under its new name."""
    made = 0
    for change in changes:
        if change["action"] != "update" or change["table"] != "submissions":
            continue
        renamed: dict[int, dict] = defaultdict(dict)
        for edit in change["rows"]:
            if edit["column"] in {"information_system", "information_institution"}:
                renamed[edit["id"]][edit["column"]] = edit["before"]
        for number_, before in renamed.items():
            submission = submissions.get(number_)
            if not submission:
                continue
            institution = submission.get("information_institution") or ""
            name = submission.get("information_system") or ""
            filesystem = submission.get("information_filesystem_type") or ""
            old = (before.get("information_institution", institution), before.get("information_system", name))
            key = identity_key(old[0], old[1], filesystem)
            if identity_key(institution, name, filesystem) == key or SystemAlias.objects.filter(key=key).exists():
                continue
            system = StorageSystem.resolve(institution, name, filesystem)
            SystemAlias.objects.create(system=system, institution_name=old[0], name=old[1], filesystem=filesystem)
            made += 1
    return made


def submission_number(source_path: str) -> int | None:
    """The `submission-N` folder a run's source path is in (the IO500 submission-data archive), if any."""
    found = SUBMISSION_FOLDER.search(source_path or "")
    return int(found.group(1)) if found else None


def link_entries(runs=None) -> int:
    """Tie published entries to the runs ingested from their submission folders (every run, or the queryset
    `runs`): an entry links only to a run of its own folder; when the folder holds several runs, to the one whose
    score is closest to the published one. The stored audit of those folders' entries is then judged again (a run
    rewritten in place keeps its links but not its numbers). Returns the entries newly linked."""
    candidates = (runs if runs is not None else Run.objects.all()).filter(source_path__contains="submission-")
    by_number: dict[int, list[tuple[int, int, float | None]]] = defaultdict(list)
    for pk, system_id, path, score in candidates.values_list("pk", "system_id", "source_path", "score_total"):
        found = submission_number(path)
        if found is not None:
            by_number[found].append((pk, system_id, score))
    if not by_number:
        return 0
    entries = EditionEntry.objects.filter(
        edition__source=Edition.Source.PUBLISHED, submission_number__in=list(by_number)
    ).only("pk", "submission_number", "score", "run_id")
    changed = []
    for entry in entries:
        pk, system_id, _ = min(
            by_number[entry.submission_number],
            key=lambda run: abs((run[2] or 0) - (entry.score or 0)),
        )
        if entry.run_id != pk:
            entry.run_id, entry.system_id = pk, system_id
            changed.append(entry)
    EditionEntry.objects.bulk_update(changed, ["run", "system"])
    published_audit.store_audit(by_number)
    return len(changed)


def link_runs(run_ids: Iterable[int]) -> int:
    """Called by a batch of run writes once its runs and their phases are stored: the published entries of their
    submission folders link to them and are audited against them."""
    return link_entries(Run.objects.filter(pk__in=list(run_ids))) if run_ids else 0


# -- reading, for pages and the API ------------------------------------------------------------------------------
def published_lists(edition_name: str) -> list[Edition]:
    """A release's published lists in the registry's order of list kinds (the IO500 list first), each with its
    stored entry count (`Edition.entry_count`): one query."""
    order = list(LIST_KINDS)
    lists = Edition.objects.filter(source=Edition.Source.PUBLISHED, name=edition_name)
    return sorted(lists, key=lambda edition: order.index(edition.list_kind))


def published_editions():
    """The published editions, newest release first, with their entry and linked-entry counts."""
    return (
        Edition.objects.filter(source=Edition.Source.PUBLISHED)
        .annotate(linked_count=Count("entries", filter=Q(entries__run__isnull=False)))
        .order_by("-released_on", "name", "list_kind")
    )


#: What a published list's page shows of each row: the row as published and its linked run, if any.
PUBLISHED_ROW_FIELDS = (
    "pk",
    "rank",
    "score",
    "score_bw",
    "score_md",
    "system_name",
    "institution_name",
    "storage_vendor",
    "filesystem",
    "client_nodes",
    "submission_number",
    "run_id",
)


def published_rows(edition: Edition):
    """One published list's rows in rank order, as values() rows (PUBLISHED_ROW_FIELDS)."""
    return EditionEntry.objects.filter(edition=edition).in_published_order().values(*PUBLISHED_ROW_FIELDS)


def change_log(edition_name: str):
    """The corrections io500.org's migrations made to a published release, in the order they were applied."""
    return PublishedChange.objects.filter(edition_name=edition_name)


def change_log_rows(edition_name: str) -> list[dict]:
    """A release's change log (change_log) as values() rows, for its page: building 350 model instances was a
    tenth of the page's time."""
    return list(
        change_log(edition_name).values(
            "file", "line", "action", "table", "submission_number", "field", "before", "after"
        )
    )


@dataclass(frozen=True)
class PublishedPlacement:
    """Where a run was published: `text` is how it is cited ("#3 on the ISC20 IO500 list")."""

    text: str
    edition_name: str
    list_kind: str


def published_placements(run: Run, edition_entries=None) -> list[PublishedPlacement]:
    """Where the run was published, one per published entry, oldest release first. `edition_entries`: the run's
    edition entries with their editions, when the caller has read them already (the run page)."""
    if edition_entries is None:
        edition_entries = EditionEntry.objects.filter(run=run, edition__source=Edition.Source.PUBLISHED).select_related(
            "edition"
        )
    published = sorted(
        (entry for entry in edition_entries if entry.edition.is_published),
        key=lambda entry: (entry.edition.released_on or date.min, entry.edition.list_kind, entry.rank or 0),
    )
    return [
        PublishedPlacement(f"#{entry.rank} on the {entry.edition.title}", entry.edition.name, entry.edition.list_kind)
        for entry in published
    ]
