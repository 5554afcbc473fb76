"""The systems index (`/systems/`) and a system's page (`/systems/<id>/`) with its runs and placements.

The index reads indexed rows only (the newest systems by primary key, counts capped at COUNT_CAP), so it costs a
fixed handful of queries at a million runs (tests/leaderboard/front/test_front_door.py holds the budget)."""

from django.core.paginator import Paginator
from django.db.models import Count, F
from django.shortcuts import get_object_or_404, render

from apps.leaderboard.systems import charts
from apps.leaderboard.systems.search import SystemSearchForm, system_matches
from apps.results.models import EditionEntry, Run, StorageSystem
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.models.querysets import CountedKeys, capped_count, entries_with_rank

#: A system's runs per page of its page, and the newest of them its score timeline charts.
SYSTEM_RUNS_PER_PAGE = 50
SYSTEM_TIMELINE_RUNS = 1000


def system_detail(request, pk: int):
    """A system and its runs, newest first, a page of them at a time: one account's uploads cannot make the page
    of a system grow without bound. The timeline charts the newest SYSTEM_TIMELINE_RUNS."""
    system = get_object_or_404(StorageSystem.objects.visible_to(request.user).select_related("institution"), pk=pk)
    newest_first = (
        system.runs.visible_to(request.user)
        .without_pending_claims()
        .without_large_fields()
        .order_by(F("run_timestamp").desc(nulls_last=True), F("year").desc(nulls_last=True), "-pk")
    )
    page = Paginator(newest_first.select_related("lustre_build").with_badges(), SYSTEM_RUNS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    shown = [kind.slug for kind in LIST_KINDS.values() if kind.on_run_pages]
    entries = entries_with_rank().filter(system=system, kind__in=shown).values_list("kind", "run_id", "rank")
    placements = sorted(
        ((LIST_KINDS[kind], run_id, rank) for kind, run_id, rank in entries),
        key=lambda placement: shown.index(placement[0].slug),
    )
    return render(
        request,
        "systems/system_detail.html",
        {
            "system": system,
            "page": page,
            "runs": page.object_list,
            "timeline_runs": SYSTEM_TIMELINE_RUNS,
            "placements": placements,
            "edition_entries": EditionEntry.objects.filter(system=system).select_related("edition").in_display_order(),
            "aliases": system.aliases.order_by("key"),
            "chart": charts.score_timeline(newest_first[:SYSTEM_TIMELINE_RUNS]),
        },
    )


SYSTEMS_PER_PAGE = 50


def counted_systems(systems) -> CountedKeys:
    """The systems, counted as the lists' filters are: the count stops at COUNT_CAP + 1, searched or not. Counting
    every system read the whole table (at a million runs, 125,000 systems: the only page whose cost grew with the
    data); capped, the index costs the same at any size. A reader pages through the first COUNT_CAP systems, is
    told there are more, and finds the others by searching."""
    return capped_count(systems, systems)


def system_index(request):
    """Every storage system, searchable; each with its run count and a link to its page and history."""
    form = SystemSearchForm(request.GET)
    query = form.query
    page = Paginator(counted_systems(system_matches(query, request.user)), SYSTEMS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    systems = list(page.object_list)
    counts = dict(
        Run.objects.visible_to(request.user)
        .filter(system__in=systems)
        .order_by()
        .values("system")
        .annotate(runs=Count("pk"))
        .values_list("system", "runs")
    )
    return render(
        request,
        "systems/system_index.html",
        {
            "query": query,
            "form": form,
            "page": page,
            "systems": [(system, counts.get(system.pk, 0)) for system in systems],
        },
        status=400 if form.errors else 200,
    )
