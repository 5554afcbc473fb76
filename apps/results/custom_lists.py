"""Custom lists: a registered list's members ranked by a reader's equation (apps.results.equations).

The equation is parsed when the list is saved (a bad one is refused with its position) and evaluated per run
on the run's phase values and scores. Runs whose value cannot be computed (a phase missing, a division by
zero) are listed unranked at the end. Ranks are competition ranks ("1224"), like the built-in lists.

Why the values are kept (CustomListEntry) rather than computed per read: ranking every member of a list on
each read took 0.8-5 s at 10,000 runs. The equation is evaluated by the grammar's own evaluator, in Python,
once per (list, run): no SQL translation of the arithmetic, so no database-specific failure (PostgreSQL
raises on a division by zero or an overflow, SQLite returns NULL or infinity) can differ from the rules of
`Equation.evaluate`. A page then reads one index range and counts the entries above its first row.

How the entries stay right:
- a write to a run forgets the entries of its storage system on every custom list, in the writer's
  transaction (`forget_systems`, from the signals in apps.results.apps), since the write may change the run's
  phases, its membership of the base list, or which of the system's runs is the best;
- a read compares the list's entry count with the base list's maintained count (ListState) and, when they
  differ, fills the missing members and drops entries of runs that left the base list (`fill`); the count
  is the one the page's paginator needs anyway, so a read of an up-to-date list costs no extra query.
"""

import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice

from django.db import transaction

from apps.results.equations import Equation, parse_equation
from apps.results.list_kinds import list_kind
from apps.results.models import CustomList, CustomListEntry, ListEntry, ListState, PhaseResult, Run
from apps.results.scoring.io500 import (
    BW_PHASES,
    EXTENDED_BW_ONLY,
    EXTENDED_BW_ONLY_ISC21,
    EXTENDED_MD_ONLY,
    MD_PHASES,
)

#: Score names an equation may use besides the phase names: the run's recomputed scores.
SCORE_NAMES = {"score": "score_total", "bw": "score_bw", "md": "score_md"}
NAMES = frozenset((*BW_PHASES, *MD_PHASES, *EXTENDED_BW_ONLY, *EXTENDED_BW_ONLY_ISC21, *EXTENDED_MD_ONLY,
                   *SCORE_NAMES))

#: Runs evaluated (and rows loaded for an export) per query: well under SQLite's limit of bound parameters.
CHUNK = 2000


def compile_equation(text: str) -> Equation:
    """Parse a ranking equation over phase names and score, bw, md; raises EquationError with the position."""
    return parse_equation(text, NAMES)


def save_custom_list(name: str, equation: str, base_list: str = "full") -> CustomList:
    """Check the equation and the base list, save the list under a new random token (its stable link) and
    evaluate the equation for every member, so the first read is as fast as any other."""
    compile_equation(equation)
    list_kind(base_list)
    with transaction.atomic():
        custom = CustomList.objects.create(token=secrets.token_urlsafe(12), name=name.strip()[:200] or equation[:200],
                                           equation=equation, base_list=base_list)
        fill(custom)
    return custom


def forget_systems(system_ids) -> None:
    """Drop every custom list's entries of these storage systems' runs; the next read of a list refills them."""
    ids = [pk for pk in set(system_ids) if pk is not None]
    if ids:
        CustomListEntry.objects.filter(system_id__in=ids).delete()


def forget_all() -> None:
    """Drop every custom list's entries (after writes around the ORM, e.g. a rebuild of the list entries)."""
    CustomListEntry.objects.all().delete()


def _values(equation: Equation, run_ids: list[int]) -> dict[int, dict[str, float | None]]:
    """{run id: {name: value}} of the names the equation uses, for these runs."""
    values: dict[int, dict[str, float | None]] = {pk: {} for pk in run_ids}
    phases = sorted(equation.names - set(SCORE_NAMES))
    if phases:
        rows = PhaseResult.objects.filter(run_id__in=run_ids, name__in=phases).values_list("run_id", "name", "value")
        for run_id, name, value in rows:
            values[run_id][name] = value
    scores = {name: SCORE_NAMES[name] for name in sorted(equation.names & set(SCORE_NAMES))}
    if scores:
        for pk, *numbers in Run.objects.filter(pk__in=run_ids).values_list("pk", *scores.values()):
            values[pk].update(zip(scores, numbers, strict=True))
    return values


def fill(custom: CustomList) -> None:
    """Bring the list's entries in line with its base list: evaluate the members that have none, drop the
    entries of runs that are no longer members."""
    equation = compile_equation(custom.equation)
    members = ListEntry.objects.filter(kind=custom.base_list)
    entries = CustomListEntry.objects.filter(custom_list=custom)
    entries.exclude(run_id__in=members.values("run_id")).delete()
    missing = members.exclude(run_id__in=entries.values("run_id")).order_by("run_id").values_list("run_id",
                                                                                                  "system_id")
    missing = iter(missing.iterator(chunk_size=CHUNK))
    while chunk := list(islice(missing, CHUNK)):
        values = _values(equation, [run_id for run_id, _ in chunk])
        rows = []
        for run_id, system_id in chunk:
            value = equation.evaluate(values[run_id])
            rows.append(CustomListEntry(custom_list=custom, run_id=run_id, system_id=system_id,
                                        ranked=value is not None, value=value))
        # A concurrent read may fill the same members: the first one's rows stand.
        CustomListEntry.objects.bulk_create(rows, ignore_conflicts=True)


@dataclass
class CustomRow:
    rank: int | None
    value: float | None
    run: Run


#: What a page of a custom list shows of a run (the page and the API): its scores, system and institution.
PAGE_RUNS = Run.objects.select_related("system__institution").only(
    "score_total", "score_bw", "score_md", "system__name", "system__institution__name")


class CustomListRows:
    """A custom list's rows in list order, for a Paginator: `count()` checks the entries are complete (and
    fills them when not), a slice reads one index range and gives each row its competition rank. `runs` is
    the queryset the rows' runs are read from (exports read every list column)."""

    def __init__(self, custom: CustomList, runs=PAGE_RUNS):
        self.custom = custom
        self.runs = runs
        self.entries = CustomListEntry.objects.filter(custom_list=custom).order_by("-ranked", "-value", "run_id")
        self._count: int | None = None

    def count(self) -> int:
        if self._count is None:
            state = ListState.objects.filter(kind=self.custom.base_list).values_list("entry_count", flat=True).first()
            count = self.entries.count()
            if count != (state or 0):
                fill(self.custom)
                count = self.entries.count()
            self._count = count
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, window: slice) -> list[CustomRow]:
        start = window.start or 0
        entries = list(self.entries[start:window.stop].values_list("run_id", "ranked", "value"))
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
            yield from self[start:start + CHUNK]

