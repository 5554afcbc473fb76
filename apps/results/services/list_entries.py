"""Maintained list entries: membership, rank and counts of every live list, kept on write.

Why: ranking on read (an anti-join for "each system's best run", then RANK() over every run) made
list, run and system pages slow in proportion to the runs, and with stale planner statistics
far slower; every committed write invalidates the page cache, so readers paid that often.

How:
- **Membership.** A write to a run re-derives the entries of its storage system only, for every
  list kind of the registry (apps.results.models.list_kinds): its best member run, or all its member
  runs. `sync_systems()` runs in the writer's transaction, called once at the end of each transaction of a
  batch of writes (apps.results.services.runs.Batch, also when a writer saves a run several times in it, as
  the ingest does), so the next read sees the run listed and ranked. One sync reads
  every kind's desired and existing entries in one query each and writes them in bulk.
- **Rank.** Renumbering every entry below a new one would rewrite up to the whole list per
  upload. Instead an entry stores the rank it had when it was written (`base_rank`) and the id of
  the last shift row then (`shifts_after`); each later insert or removal of a ranked entry adds one
  ListRankShift row (+1/-1 at its score). The rank now is `base_rank` + the shifts after it above
  its score: a competition ranking ("1224"), exact at every read. `settle()` folds the shifts back
  into base ranks with one RANK() window, from a task once SETTLE_AFTER shifts have piled up and
  after bulk loads. The writer's batch asks for that task once for every list it changed, at its end
  (`maintain_lists_on_commit()`), also when it committed run by run (the ingest of a tree).
- **Counts and statistics** live in ListState: counts in the same transaction, the per-phase
  medians refreshed after the commit by `maintain_list`, enqueued here (debounced through the
  `statistics_stale` flag; pages show `statistics_as_of`).
- **Bulk loads** (`rebuild()`) fill the entries with one INSERT ... SELECT per kind, settle, and
  ANALYZE what they filled, so no plan is made on statistics that predate the load.
"""

from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import BooleanField, Count, ExpressionWrapper, F, Max, OuterRef, Q, Subquery, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from apps.results.models import ListEntry, ListRankShift, ListState, PhaseResult, Run, StorageSystem
from apps.results.models.list_columns import LIST_COLUMNS
from apps.results.models.list_kinds import LIST_KINDS, ListKind
from apps.results.services import bulk, enqueue

#: Settle a list's ranks once this many shift rows wait: a page row's rank reads the shifts above it.
SETTLE_AFTER = 500

#: ListEntry column → where it comes from in a run row: each list column's (apps.results.models.list_columns), then what
#: an entry keeps beside them ("score" is replaced by the kind's rank_by).
SOURCE = {
    **{column.entry_field: F(column.run_field) for column in LIST_COLUMNS if column.run_field},
    "exclusion_reason": F("exclusion_reason"),
    "verification": F("verification"),
    "server_count": F("system__server_count"),
}


def _best_first(kind: ListKind) -> list:
    """A system's runs, its best on this list first: highest rank key, then first stored."""
    return [kind.rank_by.desc(nulls_last=True), F("pk").asc()]


def _candidates(kind: ListKind, runs):
    """Member runs of `kind` among `runs`, as {"e_<column>": value} rows (prefixed: the names are Run fields too)."""
    columns = {f"e_{name}": expression for name, expression in SOURCE.items()}
    columns["e_score"] = kind.rank_by
    columns["e_ranked"] = ExpressionWrapper(kind.ranked, output_field=BooleanField())
    return runs.filter(kind.members).annotate(**columns)


def _entry_rows():
    """Every run with, per kind, whether it is a member, whether it is ranked, its rank key and its place among
    its system's members (best first, the SQL order of `_best_first`, as in a rebuild), and its entry's values."""
    columns = {f"e_{name}": expression for name, expression in SOURCE.items() if name != "score"}
    for number, kind in enumerate(LIST_KINDS.values()):
        member = ExpressionWrapper(kind.members, output_field=BooleanField())
        columns[f"k{number}_member"] = member
        columns[f"k{number}_ranked"] = ExpressionWrapper(kind.ranked, output_field=BooleanField())
        columns[f"k{number}_score"] = kind.rank_by
        columns[f"k{number}_place"] = Window(
            RowNumber(), partition_by=[F("system_id"), member], order_by=_best_first(kind)
        )
    return Run.objects.annotate(**columns).order_by("pk").values(*columns)


def _desired(system_ids: list[int]) -> dict[str, dict[int, dict]]:
    """{kind: {run id: entry values}}: the entries these systems' runs should have, on every list kind, from
    one query (the window's partitions are per system, so filtering by system leaves each place as it is)."""
    desired: dict[str, dict[int, dict]] = {slug: {} for slug in LIST_KINDS}
    for row in _entry_rows().filter(system_id__in=system_ids):
        run_values = {name: row[f"e_{name}"] for name in SOURCE if name != "score"}
        for number, kind in enumerate(LIST_KINDS.values()):
            if not row[f"k{number}_member"] or (kind.best_per_system and row[f"k{number}_place"] != 1):
                continue
            desired[kind.slug][run_values["run_id"]] = {
                **run_values,
                "score": row[f"k{number}_score"],
                "ranked": bool(row[f"k{number}_ranked"]),
            }
    return desired


def _locked_states(slugs: list[str]) -> dict[str, ListState]:
    """The kinds' state rows, locked (in kind order, as every writer takes them): writers of one list take
    turns, so each new rank sees the one before."""

    def lock():
        return {
            state.kind: state for state in ListState.objects.select_for_update().filter(kind__in=slugs).order_by("kind")
        }

    states = lock()
    if len(states) < len(slugs):
        ListState.objects.bulk_create(
            [ListState(kind=slug) for slug in slugs if slug not in states], ignore_conflicts=True
        )
        states = lock()
    return states


def _locked_state(slug: str) -> ListState:
    return _locked_states([slug])[slug]


def _ranked_with_ties():
    """Ranked entries with their rank now and the number of ranked entries tied with them."""
    tied = (
        ListEntry.objects.filter(kind=OuterRef("kind"), ranked=True, score=OuterRef("score"))
        .order_by()
        .values("kind")
        .annotate(tied=Count("pk"))
        .values("tied")
    )
    return ListEntry.objects.filter(ranked=True).with_rank().annotate(tied=Subquery(tied))


def current_rank(slug: str, score: float) -> int:
    """The competition rank a ranked entry scoring `score` has now: from its nearest neighbour above.

    rank(x) = 1 + #entries above x = rank(n) + #entries tied with n, n being the lowest-scored
    ranked entry above x: an index probe and the neighbour's own rank, not a count over the list.
    One query: the tied entries are counted in a subquery of the neighbour's row.
    """
    above = (
        _ranked_with_ties()
        .filter(kind=slug, score__gt=score)
        .order_by("score", "run_id")
        .values_list("rank", "tied")
        .first()
    )
    if above is None:
        return 1
    neighbour_rank, tied_with_neighbour = above
    return neighbour_rank + tied_with_neighbour


def ranks_now(slug: str, scores: Iterable[float]) -> dict[float, int]:
    """The competition rank each of these scores has now on the kind's list (1 + the ranked entries scoring
    above it). One score probes its neighbour (`current_rank`: an upload's run); several (a bulk ingest's batch)
    are counted in one query over the entries above the lowest of them, not one probe each."""
    distinct = sorted(set(scores), reverse=True)
    if len(distinct) <= 1:
        return {score: current_rank(slug, score) for score in distinct}
    above = ListEntry.objects.filter(kind=slug, ranked=True, score__gt=distinct[-1]).aggregate(
        **{f"above_{index}": Count("pk", filter=Q(score__gt=score)) for index, score in enumerate(distinct)}
    )
    return {score: 1 + above[f"above_{index}"] for index, score in enumerate(distinct)}


@dataclass
class _Changes:
    """What one list kind's entries need: entries to drop, values of entries to add, entries to rewrite."""

    removed: list[ListEntry] = field(default_factory=list)
    added: list[dict] = field(default_factory=list)
    changed: list[ListEntry] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.removed or self.added or self.changed)


def _apply(changes: dict[str, _Changes]) -> set[str]:
    """Write the changes of every kind at once: each kind's removals leave a -1 shift, each ranked entry added
    gets its rank now (`ranks_now`, one query per kind) and leaves a +1 shift; each kind's counts change with them.

    A rank is the entry's competition rank once every removal and every addition of its kind is written: the
    rank among the entries left (`current_rank`, which counts the removal shifts) plus the added entries
    scoring above it. Its `shifts_after` is the kind's last shift, so the shifts it already counts are not
    counted twice; the others' shifts are all at its score or below, which a rank never counts.

    Returns the kinds changed: their maintenance is the writer's batch's to ask for, once.
    """
    changes = {slug: change for slug, change in changes.items() if change}
    if not changes:
        return set()
    states = _locked_states(sorted(changes))
    removed = [entry for change in changes.values() for entry in change.removed]
    shifts = [ListRankShift(kind=entry.kind, score=entry.score, delta=-1) for entry in removed if entry.ranked]
    ListRankShift.objects.bulk_create(shifts)
    if removed:
        ListEntry.objects.filter(pk__in=[entry.pk for entry in removed]).delete()
    changed = [entry for change in changes.values() for entry in change.changed]
    if changed:
        # The system too: a run moved to another system (an edit) keeps its entry where it is ranked the same.
        ListEntry.objects.bulk_update(changed, [name for name in SOURCE if name != "run_id"])
    added = []
    for slug, change in changes.items():
        ranked_scores = [values["score"] for values in change.added if values["ranked"]]
        rank_now = ranks_now(slug, ranked_scores)
        for values in sorted(change.added, key=lambda row: (row["score"] is None, -(row["score"] or 0), row["run_id"])):
            entry = ListEntry(kind=slug, **values)
            if entry.ranked:
                entry.base_rank = rank_now[entry.score] + sum(score > entry.score for score in ranked_scores)
                shifts.append(ListRankShift(kind=slug, score=entry.score, delta=1))
            added.append(entry)
    ListRankShift.objects.bulk_create(shift for shift in shifts if shift.pk is None)
    last_shift = {}
    for shift in shifts:
        last_shift[shift.kind] = max(last_shift.get(shift.kind, 0), shift.pk)
    for entry in added:
        if entry.ranked:
            entry.shifts_after = last_shift[entry.kind]
    ListEntry.objects.bulk_create(added)
    for slug, change in changes.items():
        state = states[slug]
        state.entry_count += len(change.added) - len(change.removed)
        state.ranked_count += sum(row["ranked"] for row in change.added) - sum(e.ranked for e in change.removed)
        kind_shifts = sum(row["ranked"] for row in change.added) + sum(e.ranked for e in change.removed)
        state.pending_shifts += kind_shifts
        state.statistics_stale = state.statistics_stale or bool(kind_shifts or change.added or change.removed)
    ListState.objects.bulk_update(
        states.values(), ["entry_count", "ranked_count", "pending_shifts", "statistics_stale"]
    )
    return set(changes)


def maintain_lists_on_commit(slugs: Iterable[str]) -> None:
    """Once the current transaction commits, maintain these lists (`maintain`, as a task): a writer's batch asks once
    for every list its commits changed (apps.results.services.runs.Batch), as the statistics refresh reads the
    whole list. Robust: a broker that is away loses the message, not the write; the list's state flags keep
    what is due."""
    for slug in sorted(set(slugs)):
        # A function of its own per list (robust on_commit logs a failed callback by its __qualname__).
        enqueue.on_commit(enqueue.MAINTAIN_LIST, slug)


def sync_systems(system_ids: Iterable[int | None]) -> set[str]:
    """Bring the entries of these storage systems' runs in line with the runs, on every list kind; returns the
    kinds changed."""
    ids = sorted({pk for pk in system_ids if pk is not None})
    if not ids:
        return set()
    with transaction.atomic(savepoint=False):
        # Writers of one system take turns (in id order, as every writer takes them): each reads the runs the
        # one before it committed, so two processes storing runs of one system at once (`ingest --workers`, two
        # Celery workers) never both enter their run as the system's best.
        list(StorageSystem.objects.select_for_update(no_key=True).filter(pk__in=ids).order_by("pk").values_list("pk"))
        desired = _desired(ids)
        existing: dict[str, dict[int, ListEntry]] = {slug: {} for slug in LIST_KINDS}
        for entry in ListEntry.objects.filter(system_id__in=ids):
            existing[entry.kind][entry.run_id] = entry
        changes = {}
        for slug in LIST_KINDS:
            change = changes[slug] = _Changes()
            for run_id, entry in existing[slug].items():
                wanted = desired[slug].get(run_id)
                if wanted is None or (wanted["ranked"], wanted["score"]) != (entry.ranked, entry.score):
                    change.removed.append(entry)
                elif any(getattr(entry, name) != value for name, value in wanted.items()):
                    for name, value in wanted.items():
                        setattr(entry, name, value)
                    change.changed.append(entry)
            kept = set(existing[slug]) - {entry.run_id for entry in change.removed}
            change.added = [values for run_id, values in desired[slug].items() if run_id not in kept]
        return _apply(changes)


def remove_runs(run_ids: Iterable[int]) -> set[str]:
    """Take runs that are about to be deleted off every list (their entries would cascade away unshifted);
    returns the kinds changed."""
    changes = {slug: _Changes() for slug in LIST_KINDS}
    for entry in ListEntry.objects.filter(run_id__in=list(run_ids)):
        changes[entry.kind].removed.append(entry)
    with transaction.atomic(savepoint=False):
        return _apply(changes)


def copy_system_columns(system_ids: Iterable[int]) -> None:
    """Copy renamed systems' and institutions' names (and vendor, file system, server count) into their entries."""
    from apps.results.models import StorageSystem

    systems = StorageSystem.objects.filter(pk__in=list(system_ids)).select_related("institution")
    for system in systems:
        ListEntry.objects.filter(system=system).update(
            filesystem=system.filesystem,
            storage_vendor=system.storage_vendor,
            institution_name=system.institution.name,
            system_name=system.name,
            server_count=system.server_count,
        )


def settle(slug: str) -> None:
    """Fold the shift rows of a list into its base ranks: one RANK() window over the ranked entries."""
    table, shifts = ListEntry._meta.db_table, ListRankShift._meta.db_table
    with transaction.atomic():
        state = _locked_state(slug)
        last_shift = ListRankShift.objects.filter(kind=slug).aggregate(last=Max("pk"))["last"] or 0
        with connection.cursor() as cursor:
            # UPDATE ... FROM works on PostgreSQL and SQLite >= 3.33.
            cursor.execute(
                f"""UPDATE {table} SET base_rank = ranked.place, shifts_after = %s
                    FROM (SELECT id, RANK() OVER (ORDER BY score DESC) AS place
                          FROM {table} WHERE kind = %s AND ranked) AS ranked
                    WHERE {table}.id = ranked.id""",
                [last_shift, slug],
            )
            cursor.execute(f"DELETE FROM {shifts} WHERE kind = %s AND id <= %s", [slug, last_shift])
        state.pending_shifts = 0
        state.settled_at = timezone.now()
        state.save(update_fields=["pending_shifts", "settled_at"])


def refresh_statistics(slug: str) -> None:
    """Recompute a list's statistics (its file systems; per-phase medians over its ranked entries where the
    registry keeps them) and mark when."""
    updated = ListState.objects.filter(kind=slug, statistics_stale=True).update(statistics_stale=False)
    if not updated:
        return  # another worker did it since the write that asked for it: debounced
    filesystems = ListEntry.objects.filter(kind=slug).order_by("filesystem").values_list("filesystem", flat=True)
    medians = phase_medians(slug) if LIST_KINDS[slug].keeps_medians else {}
    ListState.objects.filter(kind=slug).update(
        phase_medians=medians, filesystems=list(filesystems.distinct()), statistics_as_of=timezone.now()
    )


def maintain(kind: str) -> None:
    """Settle the list's ranks when shifts have piled up, and refresh its statistics when stale.

    Run by the task `apps.results.tasks.maintain_list`, enqueued after every batch of writes that changed the
    list (`maintain_lists_on_commit`); idempotent and debounced by the state flags, so a burst of uploads costs
    one refresh, not one per upload.
    """
    state = ListState.objects.filter(kind=kind).first()
    if state is None:
        return
    if state.pending_shifts >= SETTLE_AFTER:
        settle(kind)
    if state.statistics_stale:
        refresh_statistics(kind)


def phase_medians(slug: str) -> dict[str, float]:
    """{phase: median value} over a list's ranked entries.

    PostgreSQL has the median as an ordered-set aggregate (percentile_cont(0.5): the middle value, or
    the mean of the two middle ones), a single sort per phase; elsewhere the portable window form.

    The statement is driven by the list's entries: for each ranked entry, its run's phases by the phase
    table's run index (a LATERAL subquery that `OFFSET 0` keeps PostgreSQL from flattening into a join it
    would plan on its own). The work is the list's size, not the phase table's: a hash join read every phase
    of every run, and on statistics that call both tables empty a plain join became a nested loop that read
    the whole entry index for every phase row (quadratic). This runs after uploads that change the list,
    beside the readers; docs/performance.md has the figures.
    """
    listed = Run.objects.filter(list_entries__kind=slug, list_entries__ranked=True)
    if connection.vendor != "postgresql":
        return listed.phase_medians()
    phases, entries = PhaseResult._meta.db_table, ListEntry._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""SELECT phase.name, percentile_cont(0.5) WITHIN GROUP (ORDER BY phase.value)
                FROM {entries} AS entry
                CROSS JOIN LATERAL (
                    SELECT name, value FROM {phases}
                    WHERE run_id = entry.run_id AND value IS NOT NULL OFFSET 0
                ) AS phase
                WHERE entry.kind = %s AND entry.ranked
                GROUP BY phase.name""",
            [slug],
        )
        return dict(cursor.fetchall())


def rebuild(kinds: Iterable[str] | None = None) -> dict[str, int]:
    """Refill the entries of list kinds from the run table (after bulk loads): {kind: entries}. Then ANALYZE.

    Refilling every list builds the entry table's indexes once afterwards (apps.results.services.bulk): inserting
    every entry into its dozen indexes one by one took most of `seed_synthetic`'s list time. It
    then VACUUMs the table, which marks its pages all-visible: a filtered page's capped count
    (querysets.COUNT_CAP) then reads them from an index alone instead of visiting each entry's row.
    """
    with bulk.checked_afterwards(ListEntry) if kinds is None else nullcontext():
        filled = {slug: _refill(LIST_KINDS[slug]) for slug in kinds or LIST_KINDS}
    if kinds is None:
        bulk.vacuum(ListEntry)
    analyze(ListEntry, ListRankShift, ListState)
    return filled


def missing_lists() -> list[str]:
    """The list kinds with member runs but no entry at all: a database whose runs came in before the entries were
    kept, or around them (a restore of the run table alone), whose lists would read empty until rebuilt. A list
    that has entries is kept up to date by the writes, so it is never rebuilt here."""
    runs = Run.objects.all()
    return [
        slug
        for slug, kind in LIST_KINDS.items()
        if not ListEntry.objects.filter(kind=slug).exists() and runs.filter(kind.members).exists()
    ]


def _refill(kind: ListKind) -> int:
    """Replace a kind's entries with one INSERT ... SELECT over every run, settled from the start."""
    candidates = _candidates(kind, Run.objects.all()).annotate(
        e_place=Window(RowNumber(), partition_by=[F("system_id")], order_by=_best_first(kind))
    )
    names = [*SOURCE, "ranked"]
    sql, params = candidates.values(*[f"e_{name}" for name in names], "e_place").query.sql_with_params()
    keep = "WHERE candidate.e_place = 1" if kind.best_per_system else ""
    with transaction.atomic():
        state = _locked_state(kind.slug)
        ListEntry.objects.filter(kind=kind.slug).delete()
        ListRankShift.objects.filter(kind=kind.slug).delete()
        with connection.cursor() as cursor:
            # The window runs after the WHERE: ranks among the kept, ranked candidates, settled from the start.
            cursor.execute(
                f"""INSERT INTO {ListEntry._meta.db_table} (kind, shifts_after, base_rank, {", ".join(names)})
                    SELECT %s, 0, CASE WHEN candidate.e_ranked THEN RANK() OVER (
                               PARTITION BY candidate.e_ranked ORDER BY candidate.e_score DESC) END,
                           {", ".join(f"candidate.e_{name}" for name in names)}
                    FROM ({sql}) AS candidate {keep}""",
                [kind.slug, *params],
            )
            filled = cursor.rowcount
        state.entry_count = filled
        state.ranked_count = ListEntry.objects.filter(kind=kind.slug, ranked=True).count()
        state.statistics_stale = True
        state.pending_shifts = 0
        state.settled_at = timezone.now()
        state.save()
    return filled


#: A bulk path (ingest of a tree, recheck, an upload of many runs) that wrote at least this many runs ANALYZEs.
BULK_RUNS = 200


def analyze_after_bulk_write(run_count: int | None = None) -> None:
    """ANALYZE the tables runs are written to, once a bulk write is done (always when the count is not given).

    With autovacuum off or behind, the planner would otherwise plan list and page queries on statistics
    from before the load (e.g. "one row" for a table now holding a million), the road to nested loops.
    """
    if run_count is not None and run_count < BULK_RUNS:
        return
    from apps.results import models

    bulk.vacuum(ListEntry)  # all-visible pages: a filtered list's capped count reads an index alone
    analyze(
        models.Institution,
        models.StorageSystem,
        models.LustreBuild,
        models.Run,
        models.PhaseResult,
        models.Anomaly,
        models.Tunable,
        models.Striping,
        models.RunFile,
        ListEntry,
        ListRankShift,
        ListState,
    )


def analyze(*models) -> None:
    """Gather planner statistics for freshly filled tables (PostgreSQL; autovacuum may be off or late)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(model._meta.db_table)}")
