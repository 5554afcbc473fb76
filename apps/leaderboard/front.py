"""The front door (`/`) and the systems index (`/systems/`): what ioboard is, what is new, and where to go.

Both read maintained or indexed rows only (list states and entries, the newest rows by primary key), so they
cost a fixed handful of queries at a million runs (tests/leaderboard/test_front_door.py holds the budget).
"""

from collections.abc import Iterable
from itertools import chain

from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Count, Q
from django.shortcuts import render

from apps.leaderboard.filters import SystemSearchForm
from apps.results.models import Change, Edition, ListEntry, ListState, Run, ScalingSeries, StorageSystem, Study
from apps.results.models.list_kinds import AWARD_LISTS, EVERY_RUN_LIST, LIST_KINDS
from apps.results.models.querysets import COUNT_CAP, CountedKeys
from apps.results.models.systems import identity_key

#: Rows of each ranked list, and of each "newest" box, on the front door.
TOP_ROWS = 3
NEWEST = 6
SYSTEMS_PER_PAGE = 50


def _top_entries(kinds: list[str]) -> dict[str, list]:
    """The first TOP_ROWS entries of each ranked list, in list order, with their ranks (the list's order index):
    one query, a UNION ALL of each list's first rows (each read from its own order index), not one per list, where
    the database can limit the parts of a UNION (PostgreSQL)."""
    firsts = [
        ListEntry.objects.listed(kind)
        .filter(ranked=True)
        .only(
            "kind",
            "run_id",
            "system_id",
            "system_name",
            "institution_name",
            "score",
            "base_rank",
            "shifts_after",
            "client_nodes",
        )[:TOP_ROWS]
        for kind in kinds
    ]
    tops: dict[str, list] = {kind: [] for kind in kinds}
    if connection.features.supports_slicing_ordering_in_compound:
        rows: Iterable = firsts[0].union(*firsts[1:], all=True)
    else:  # SQLite (the embedded mode) cannot limit the parts of a UNION: one query per list there
        rows = chain.from_iterable(firsts)
    for entry in rows:
        tops[entry.kind].append(entry)
    for entries in tops.values():
        entries.sort(key=lambda entry: (entry.rank, entry.run_id))  # list order: a UNION keeps none
    return tops


def home(request):
    states = {state.kind: state for state in ListState.objects.all()}
    top_entries = _top_entries(list(AWARD_LISTS))
    tops = [(LIST_KINDS[kind], top_entries[kind], states.get(kind)) for kind in AWARD_LISTS]
    newest_runs = newest_shown_runs("", NEWEST)
    changes = list(
        Change.objects.filter(detected=True)
        .select_related("system")
        .only("pk", "metric", "kind", "direction", "magnitude_pct", "run_after_id", "system_id", "system__name")
        .order_by("-pk")[:NEWEST]
    )
    every_run = states.get(EVERY_RUN_LIST)
    return render(
        request,
        "leaderboard/home.html",
        {
            "tops": tops,
            "newest_runs": newest_runs,
            "newest_run_dates": {run.pk: run.run_timestamp.date() for run in newest_runs if run.run_timestamp},
            "changes": changes,
            "editions": _edition_names(),
            "studies": list(Study.objects.only("pk", "name").order_by("-pk")[:3]),
            "series": list(ScalingSeries.objects.only("pk", "name").order_by("-pk")[:3]),
            "run_count": every_run.entry_count if every_run else 0,
            "other_lists": [kind for kind in LIST_KINDS.values() if kind.slug not in AWARD_LISTS],
        },
    )


def _edition_names() -> list[str]:
    """The newest frozen editions' names (an edition freezes several lists under one name)."""
    names: list[str] = []
    for name in Edition.objects.order_by("-frozen_at").values_list("name", flat=True)[:20]:
        if name not in names:
            names.append(name)
    return names[:4]


def system_matches(query: str):
    """Storage systems whose institution, name or file system (their identity key: case and punctuation folded)
    holds every word of `query`, or whose vendor contains it. The key is one column of the system row, so the
    search reads no join, and the systems come in key order, which its unique index serves a page at a time."""
    systems = StorageSystem.objects.select_related("institution")
    words = identity_key(query).split()
    if words:
        in_key = Q()
        for word in words:
            in_key &= Q(key__contains=word)
        systems = systems.filter(in_key | Q(storage_vendor__icontains=query))
    return systems.order_by("key")


def counted_systems(systems) -> CountedKeys:
    """The systems, counted as the lists' filters are: the count stops at COUNT_CAP + 1, searched or not. Counting
    every system read the whole table (at a million runs, 125,000 systems: the only page whose cost grew with the
    data); capped, the index costs the same at any size. A reader pages through the first COUNT_CAP systems, is
    told there are more, and finds the others by searching."""
    found = systems.order_by().values("pk")[: COUNT_CAP + 1].count()
    return CountedKeys(systems, min(found, COUNT_CAP), capped=found > COUNT_CAP)


def system_index(request):
    """Every storage system, searchable; each with its run count and a link to its page and history."""
    form = SystemSearchForm(request.GET)
    query = form.query
    page = Paginator(counted_systems(system_matches(query)), SYSTEMS_PER_PAGE).get_page(request.GET.get("page"))
    systems = list(page.object_list)
    counts = dict(
        Run.objects.filter(system__in=systems)
        .order_by()
        .values("system")
        .annotate(runs=Count("pk"))
        .values_list("system", "runs")
    )
    return render(
        request,
        "leaderboard/system_index.html",
        {
            "query": query,
            "form": form,
            "page": page,
            "systems": [(system, counts.get(system.pk, 0)) for system in systems],
        },
        status=400 if form.errors else 200,
    )


def newest_shown_runs(query: str, limit: int = 50) -> list:
    """The newest IO500 runs shown under their system's name (no pending claims), of the systems matching `query`
    (all when empty): the front door's newest runs and the compare page's picker."""
    runs = (
        Run.objects.filter(kind="io500")
        .without_pending_claims()
        .select_related("system__institution")
        .only(
            "pk",
            "run_timestamp",
            "year",
            "score_total",
            "client_nodes",
            "created_at",
            "system__name",
            "system__filesystem",
            "system__institution__name",
        )
    )
    if query:
        runs = runs.filter(system__in=system_matches(query).values("pk"))
    return list(runs.order_by("-pk")[:limit])
