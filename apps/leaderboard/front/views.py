"""The front door (`/`): what ioboard is, what is new, and where to go; and the favicon every browser asks for.

It reads maintained or indexed rows only (list states and entries, the newest rows by primary key), so it costs a
fixed handful of queries at a million runs (tests/leaderboard/front/test_front_door.py holds the budget).
"""

from collections.abc import Iterable
from itertools import chain

from django.db import connection
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import cache_control

from apps.leaderboard.systems.search import newest_shown_runs
from apps.results.models import Change, Edition, ListEntry, ListState, ScalingSeries, Study
from apps.results.models.list_kinds import AWARD_LISTS, EVERY_RUN_LIST, LIST_KINDS
from apps.results.models.visibility import owned_visible_condition

#: Rows of each ranked list, and of each "newest" box, on the front door.
TOP_ROWS = 3
NEWEST = 6


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
    newest_runs = newest_shown_runs("", NEWEST, reader=request.user, ranked_only=True)  # reviewed names only
    changes = list(
        Change.objects.filter(detected=True)
        .select_related("system")
        .only("pk", "metric", "kind", "direction", "magnitude_pct", "run_after_id", "system_id", "system__name")
        .order_by("-pk")[:NEWEST]
    )
    every_run = states.get(EVERY_RUN_LIST)
    readable = owned_visible_condition(request.user)
    return render(
        request,
        "front/home.html",
        {
            "tops": tops,
            "newest_runs": newest_runs,
            "newest_run_dates": {run.pk: run.run_timestamp.date() for run in newest_runs if run.run_timestamp},
            "changes": changes,
            "editions": _edition_names(),
            "studies": list(Study.objects.filter(readable).only("pk", "name").order_by("-pk")[:3]),
            "series": list(ScalingSeries.objects.filter(readable).only("pk", "name").order_by("-pk")[:3]),
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


FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect width="16" height="16" rx="3" fill="#1f5fbf"/>'
    '<path d="M4 12V7M8 12V4M12 12V9" stroke="#fff" stroke-width="2"/></svg>'
)


@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico on every site; answering keeps their consoles free of 404s."""
    return HttpResponse(FAVICON, content_type="image/svg+xml")
