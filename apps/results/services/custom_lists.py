"""Custom lists: a registered list's members ranked by a reader's equation (apps.results.judgements.equations).

The equation is parsed when the list is saved (a bad one is refused with its position) and evaluated per run
on the run's phase values and scores. Runs whose value cannot be computed (a phase missing, a division by
zero) are listed unranked at the end. Ranks are competition ranks ("1224"), like the built-in lists.

Why the values are kept (CustomListEntry, with a count on CustomList) rather than computed per read: ranking
every member on each read took seconds a page (docs/performance.md). The equation is evaluated by the grammar's own
evaluator, in Python, once per (list, run): no SQL translation of the arithmetic, so no database-specific
failure (PostgreSQL raises on a division by zero or an overflow, SQLite returns NULL or infinity) can
disagree with `Equation.evaluate`. A page reads one index range and counts the values above its first row.

How the entries stay right:
- a saved list is filled by the task `fill_custom_list` after the commit: evaluating every member grows with the
  base list, to minutes at a million runs, too long for a request;
- after the commit of a write to a run, the task `refresh_custom_lists` re-evaluates its storage system's
  members on every custom list (after the commit, because a run's phases are stored after the run itself):
  the write may change the run's phases, its membership of the base list, or which of the system's runs is
  the best. A task, so that the number of saved lists never lengthens an upload;
- a run about to be deleted leaves every custom list in the deleting transaction (`forget_runs`);
- a read whose list count differs from the base list's maintained count (ListState) shows the entries there
  are, says the list is incomplete, and asks for `fill_custom_list` (debounced): after a bulk load around the
  ORM, or while a saved list is being filled. A read never evaluates the equation itself.
Every change of a list's entries holds the lock of its CustomList row (lists locked in id order), so the count
is exact and two refreshes never interleave. The two tasks live here, beside the work they run, like every task of
the results app.
"""

import secrets
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import router, transaction
from django.db.models import Count, F, Q

from apps.results.judgements.equations import Equation, parse_equation
from apps.results.judgements.scoring.io500 import (
    BW_PHASES,
    EXTENDED_BW_ONLY,
    EXTENDED_BW_ONLY_ISC21,
    EXTENDED_MD_ONLY,
    MD_PHASES,
)
from apps.results.models import CustomList, CustomListEntry, ListEntry, ListState, PhaseResult, Run
from apps.results.models.list_kinds import list_kind
from apps.results.services import enqueue, list_entries
from apps.results.services.freshness import bump_data_version_on_commit, cache_key, shared_cache_call

#: Score names an equation may use besides the phase names: the run's recomputed scores.
SCORE_NAMES = {"score": "score_total", "bw": "score_bw", "md": "score_md"}
NAMES = frozenset((*BW_PHASES, *MD_PHASES, *EXTENDED_BW_ONLY, *EXTENDED_BW_ONLY_ISC21, *EXTENDED_MD_ONLY, *SCORE_NAMES))

#: Runs evaluated (and rows loaded for an export) per query: well under SQLite's limit of bound parameters.
CHUNK = 2000
#: Every read of an incomplete list asks for a fill; one is enqueued per list in this many seconds.
FILL_DEBOUNCE_SECONDS = 60


def compile_equation(text: str) -> Equation:
    """Parse a ranking equation over phase names and score, bw, md; raises EquationError with the position."""
    return parse_equation(text, NAMES)


class CustomListLimit(Exception):
    """The account keeps as many custom lists as one may (IOBOARD_CUSTOM_LISTS_PER_USER)."""


def save_custom_list(name: str, equation: str, base_list: str = "full", owner=None) -> CustomList:
    """Check the equation and the base list and save the list under a new random token (its stable link); its
    members are evaluated by `fill_custom_list` once the save has committed.

    Every saved list is re-evaluated after each upload (`refresh_systems`), so an account keeps at most
    IOBOARD_CUSTOM_LISTS_PER_USER of them; the owner's row is locked while counting, so a burst of requests
    in parallel cannot pass the cap together."""
    compile_equation(equation)
    list_kind(base_list)
    with transaction.atomic():
        if owner is not None:
            get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
            cap = settings.IOBOARD_CUSTOM_LISTS_PER_USER
            if CustomList.objects.filter(owner=owner).count() >= cap:
                raise CustomListLimit(f"an account keeps at most {cap} custom lists")
        custom = CustomList.objects.create(
            token=secrets.token_urlsafe(12),
            name=name.strip()[:200] or equation[:200],
            equation=equation,
            base_list=base_list,
            owner=owner,
        )
        schedule_fill(custom)
        bump_data_version_on_commit()  # the pages that list the saved lists
    return custom


def _fill_requested_key(custom: CustomList) -> str:
    """Keyed by the token, unique for ever, where an id may come back (a database restored, a test rolled back)."""
    return cache_key("custom-list-fill", custom.token)


def schedule_fill(custom: CustomList) -> None:
    """Enqueue `fill_custom_list` after the commit, unless one was asked for in the last FILL_DEBOUNCE_SECONDS.

    Without the cache (Redis away) there is no debounce: the fill is idempotent, so it is asked for anyway, and an
    unreachable broker is logged, not raised (robust): the list is saved, and reads say it is being ranked."""
    if shared_cache_call("add", _fill_requested_key(custom), True, timeout=FILL_DEBOUNCE_SECONDS, default=True):
        enqueue.on_commit(enqueue.FILL_CUSTOM_LIST, custom.pk)


def complete(pk: int) -> None:
    """Complete a custom list's entries, if it still exists (the task `apps.results.tasks.fill_custom_list`).
    Idempotent: `fill` only adds what is missing and drops what left."""
    custom = CustomList.objects.filter(pk=pk).first()
    if custom is not None:
        fill(custom)
        shared_cache_call("delete", _fill_requested_key(custom))


def _locked_lists():
    return list(CustomList.objects.select_for_update().order_by("pk"))


def _counts(entries) -> dict[int, int]:
    """{custom list id: entries} of these entries."""
    return dict(
        entries.order_by().values("custom_list").annotate(entries=Count("pk")).values_list("custom_list", "entries")
    )


def _add_to_counts(changes: dict[int, int]) -> None:
    """One UPDATE per distinct change (a new run adds one entry to each of hundreds of lists: one query)."""
    lists_by_change: dict[int, list[int]] = {}
    for pk, change in changes.items():
        if change:
            lists_by_change.setdefault(change, []).append(pk)
    for change, pks in lists_by_change.items():
        CustomList.objects.filter(pk__in=pks).update(entry_count=F("entry_count") + change)


def _values(names: frozenset[str], run_ids: list[int], db: str) -> dict[int, dict[str, float | None]]:
    """{run id: {name: value}} of these phase and score names, for these runs."""
    values: dict[int, dict[str, float | None]] = {pk: {} for pk in run_ids}
    phases = sorted(names - set(SCORE_NAMES))
    if phases:
        # Unordered: PhaseResult's default order (its run's, then position) would join the run table.
        rows = PhaseResult.objects.using(db).filter(run_id__in=run_ids, name__in=phases).order_by()
        for run_id, name, value in rows.values_list("run_id", "name", "value"):
            values[run_id][name] = value
    scores = {name: SCORE_NAMES[name] for name in sorted(names & set(SCORE_NAMES))}
    if scores:
        for pk, *numbers in Run.objects.using(db).filter(pk__in=run_ids).order_by().values_list("pk", *scores.values()):
            values[pk].update(zip(scores, numbers, strict=True))
    return values


def _entry(
    custom: CustomList, equation: Equation, values: dict, run_id: int, system_id: int, ranked_on_base: bool
) -> CustomListEntry:
    """A member's entry: ranked when the base list ranks it (a run visible as ranked: on the historic list, a
    submitted or rejected run is a member without a rank) and the equation has a value for it."""
    value = equation.evaluate(values[run_id])
    return CustomListEntry(
        custom_list=custom, run_id=run_id, system_id=system_id, ranked=ranked_on_base and value is not None, value=value
    )


def refresh_systems(system_ids) -> None:
    """Re-evaluate these storage systems' members on every custom list (a write to their runs has committed).

    What it costs is bounded by what changed, not by the number of saved lists (300 lists made each upload cost
    12 s when every entry of the systems was deleted and written again): each distinct equation is evaluated once
    per member, in Python (microseconds); only the entries whose membership, value or rank flag changed are
    written, and only the lists that could hold these systems' runs are locked and read: those whose base list
    has one of them, and those that still have an entry of them."""
    ids = sorted({pk for pk in system_ids if pk is not None})
    if not ids:
        return
    db = router.db_for_write(CustomListEntry)
    with transaction.atomic(using=db):
        kinds = set(ListEntry.objects.using(db).filter(system_id__in=ids).values_list("kind", flat=True).distinct())
        holding = CustomListEntry.objects.using(db).filter(system_id__in=ids).values("custom_list_id")
        lists = list(
            CustomList.objects.using(db)
            .select_for_update()
            .filter(Q(base_list__in=kinds) | Q(pk__in=holding))
            .order_by("pk")
            .only("pk", "equation", "base_list")
        )
        if not lists:
            return
        differences = _entry_differences(_evaluated_members(lists, ids, db), ids, db, lists=[c.pk for c in lists])
        CustomListEntry.objects.using(db).filter(pk__in=[pk for pk, _ in differences.stale]).delete()
        CustomListEntry.objects.using(db).bulk_create(differences.new, batch_size=CHUNK)
        CustomListEntry.objects.using(db).bulk_update(differences.changed, ["value", "ranked"], batch_size=CHUNK)
        changes = Counter(entry.custom_list_id for entry in differences.new)
        changes.subtract(list_id for _, list_id in differences.stale)
        _add_to_counts(changes)


@dataclass
class EntryDifferences:
    new: list[CustomListEntry]
    changed: list[CustomListEntry]
    stale: list[tuple[int, int]]  # (entry id, list id)


def _evaluated_members(lists: list[CustomList], system_ids: list[int], db: str) -> dict[tuple[int, int], tuple]:
    """{(list id, run id): (system id, value, ranked on the base list)} of these systems' members of each list's
    base list."""
    members = list(
        ListEntry.objects.using(db)
        .filter(system_id__in=system_ids, kind__in={c.base_list for c in lists})
        .values_list("kind", "run_id", "system_id", "ranked")
    )
    equations = {text: compile_equation(text) for text in {custom.equation for custom in lists}}
    values = _values(
        frozenset().union(*(equation.names for equation in equations.values())),
        sorted({run_id for _, run_id, _, _ in members}),
        db,
    )
    evaluated = {
        (text, run_id): equation.evaluate(values[run_id]) for text, equation in equations.items() for run_id in values
    }
    return {
        (custom.pk, run_id): (system_id, evaluated[custom.equation, run_id], ranked)
        for custom in lists
        for kind, run_id, system_id, ranked in members
        if kind == custom.base_list
    }


def _entry_differences(wanted: dict, system_ids: list[int], db: str, lists: list[int]) -> EntryDifferences:
    """How the stored entries of these systems on these lists differ from `wanted` (ranked as `_entry` ranks)."""
    stored = CustomListEntry.objects.using(db).filter(system_id__in=system_ids, custom_list_id__in=lists)
    differences, seen = EntryDifferences([], [], []), set()
    for pk, list_id, run_id, ranked, value in stored.values_list("pk", "custom_list_id", "run_id", "ranked", "value"):
        seen.add((list_id, run_id))
        if (list_id, run_id) not in wanted:
            differences.stale.append((pk, list_id))
            continue
        _, new_value, ranked_on_base = wanted[list_id, run_id]
        new_ranked = ranked_on_base and new_value is not None
        if (ranked, value) != (new_ranked, new_value):
            differences.changed.append(
                CustomListEntry(pk=pk, custom_list_id=list_id, run_id=run_id, ranked=new_ranked, value=new_value)
            )
    for (list_id, run_id), (system_id, value, ranked_on_base) in wanted.items():
        if (list_id, run_id) not in seen:
            differences.new.append(
                CustomListEntry(
                    custom_list_id=list_id,
                    run_id=run_id,
                    system_id=system_id,
                    ranked=ranked_on_base and value is not None,
                    value=value,
                )
            )
    return differences


def refresh_systems_on_commit(system_ids) -> None:
    """After the commit, have these systems' members re-evaluated on every custom list (when there is one)."""
    ids = sorted({pk for pk in system_ids if pk is not None})
    if ids and CustomList.objects.exists():
        enqueue.on_commit(enqueue.REFRESH_CUSTOM_LISTS, ids)


def forget_runs(run_ids) -> None:
    """Take runs that are about to be deleted off every custom list (their entries would cascade away uncounted)."""
    with transaction.atomic():
        _locked_lists()
        leaving = CustomListEntry.objects.filter(run_id__in=list(run_ids))
        changes = {pk: -entries for pk, entries in _counts(leaving).items()}
        leaving.delete()
        _add_to_counts(changes)


def forget_all() -> None:
    """Drop every custom list's entries (after writes around the ORM): each list is refilled when next read."""
    with transaction.atomic():
        _locked_lists()
        CustomListEntry.objects.all().delete()
        CustomList.objects.update(entry_count=0)


def fill(custom: CustomList) -> None:
    """Reconcile the list with its base list: evaluate the members that have no entry, drop the entries of runs
    that are no longer members, and count the entries again. Reads the primary database, also from a request
    whose reads go to a replica: the count must see the rows just written."""
    equation = compile_equation(custom.equation)
    db = router.db_for_write(CustomListEntry)
    with transaction.atomic(using=db):
        CustomList.objects.select_for_update().filter(pk=custom.pk).first()
        members = ListEntry.objects.using(db).filter(kind=custom.base_list)
        entries = CustomListEntry.objects.using(db).filter(custom_list=custom)
        entries.exclude(run_id__in=members.values("run_id")).delete()
        missing = (
            members.exclude(run_id__in=entries.values("run_id"))
            .order_by("run_id")
            .values_list("run_id", "system_id", "ranked")
        )
        missing, added = iter(missing.iterator(chunk_size=CHUNK)), 0
        while chunk := list(islice(missing, CHUNK)):
            values = _values(equation.names, [run_id for run_id, _, _ in chunk], db)
            CustomListEntry.objects.bulk_create(
                [_entry(custom, equation, values, run_id, system_id, ranked) for run_id, system_id, ranked in chunk]
            )
            added += len(chunk)
        custom.entry_count = entries.count()
        CustomList.objects.filter(pk=custom.pk).update(entry_count=custom.entry_count)
        bump_data_version_on_commit()  # pages cached while the list was incomplete
    if added >= list_entries.BULK_RUNS:
        list_entries.analyze(CustomListEntry)  # plan the next page on statistics that know the new rows


@dataclass
class CustomRow:
    rank: int | None
    value: float | None
    run: Run


#: What a page of a custom list shows of a run (the page and the API): its scores, system and institution.
PAGE_RUNS = Run.objects.select_related("system__institution").only(
    "score_total", "score_bw", "score_md", "system__name", "system__institution__name"
)


class CustomListRows:
    """A custom list's rows in list order, for a Paginator: `count()` is the entries there are, a slice reads
    one index range and gives each row its competition rank. `runs` is the queryset the rows' runs are read
    from (exports read every list column). `members` is the base list's size: when the entries fall short of
    it the list is being filled, and reading it asks for the fill."""

    def __init__(self, custom: CustomList, runs=PAGE_RUNS):
        self.custom = custom
        self.runs = runs
        self.entries = CustomListEntry.objects.filter(custom_list=custom).order_by("-ranked", "-value", "run_id")
        members = ListState.objects.filter(kind=custom.base_list).values_list("entry_count", flat=True)
        self.members = members.first() or 0
        self.complete = custom.entry_count == self.members
        if not self.complete:
            schedule_fill(custom)

    def count(self) -> int:
        return self.custom.entry_count

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[CustomRow]:
        start = window.start or 0
        entries = list(self.entries[start : window.stop].values_list("run_id", "ranked", "value"))
        runs = self.runs.filter(pk__in=[run_id for run_id, _, _ in entries]).in_bulk()
        rows, previous, previous_rank = [], None, None
        for position, (run_id, ranked, value) in enumerate(entries, start=start + 1):
            rank = None
            if ranked:
                if previous_rank is None:  # the first ranked row here: ties may begin above the window
                    rank = 1 + self.entries.filter(ranked=True, value__gt=value).count()
                else:
                    rank = previous_rank if value == previous else position
                previous, previous_rank = value, rank
            run = runs[run_id]
            run.rank = rank  # the list column every export reads
            rows.append(CustomRow(rank, value, run))
        return rows

    def __iter__(self) -> Iterator[CustomRow]:
        """Every row, a chunk of queries at a time (exports)."""
        for start in range(0, self.count(), CHUNK):
            yield from self[start : start + CHUNK]
