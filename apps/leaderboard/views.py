"""HTML pages. Views fetch with one queryset method and render; the rules live in apps.results.

Every page runs a constant number of SQL queries whatever the number of rows (tests hold them to it).
"""

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.db.models import Count, F
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.cache import cache_control

from apps.leaderboard import charts, exports
from apps.leaderboard.filters import ListFilterForm
from apps.leaderboard.tables import KeyPaginator, Row, headers
from apps.results.diff import diff_runs, flatten, load_runs
from apps.results.editions import edition_entries
from apps.results.freshness import cache_page_until_data_changes
from apps.results.models import Edition, EditionEntry, Run, StorageSystem

MAX_COMPARED = 6
FAVICON = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
           '<rect width="16" height="16" rx="3" fill="#1f5fbf"/>'
           '<path d="M4 12V7M8 12V4M12 12V9" stroke="#fff" stroke-width="2"/></svg>')


@dataclass(frozen=True)
class ListInfo:
    kind: str
    title: str
    description: str
    default_sort: str


LISTS = {
    info.kind: info
    for info in (
        ListInfo("io500", "IO500 list", "Each storage system's best valid run, ranked by total score.", "rank"),
        ListInfo("ten-node", "10-node challenge",
                 "Each storage system's best valid run among runs on exactly 10 client nodes.", "rank"),
        ListInfo("historic", "Historic list",
                 "Every IO500 run. Runs kept off the ranked lists are marked, with the reason.", "-score"),
    )
}


def _list_info(kind: str) -> ListInfo:
    if kind not in LISTS:
        raise Http404(f"no list {kind!r}")
    return LISTS[kind]


@cache_page_until_data_changes
def live_list(request, kind: str = "io500"):
    info = _list_info(kind)
    form = ListFilterForm(request.GET)
    runs = Run.objects.listing(kind).filter_listed(**form.criteria()).sort_listed(form.sort_key)
    page = KeyPaginator(runs.ranked_keys(), Run.objects.load_rows, form.page_size).get_page(request.GET.get("page"))
    return render(request, "leaderboard/list.html", {
        "info": info,
        "form": form,
        "page": page,
        "rows": [Row.from_run(run) for run in page],
        "headers": headers(form.sort_key, info.default_sort),
        "filesystems": StorageSystem.objects.order_by("filesystem").values_list("filesystem", flat=True).distinct(),
        "editions": Edition.objects.filter(list_kind=kind).order_by("-frozen_at"),
        "lists": LISTS.values(),
    })


def live_list_export(request, kind: str, fmt: str):
    info = _list_info(kind)
    form = ListFilterForm(request.GET)
    runs = Run.objects.listing(kind).filter_listed(**form.criteria()).sort_listed(form.sort_key)
    filename = f"ioboard-{kind}"
    records = exports.run_records(runs)
    if fmt == "csv":
        return exports.csv_response(records, exports.RUN_COLUMNS, exports.phase_columns(runs), filename)
    meta = {"list": info.kind, "title": info.title, "filters": form.criteria(),
            "sort": form.sort_key or info.default_sort}
    return exports.json_response(records, meta, filename)


def _edition(name: str, kind: str | None) -> tuple[Edition, list[Edition]]:
    siblings = list(Edition.objects.filter(name=name).order_by("list_kind"))
    if not siblings:
        raise Http404(f"no edition {name!r}")
    by_kind = {edition.list_kind: edition for edition in siblings}
    if kind is None:
        return by_kind.get(Edition.ListKind.IO500, siblings[0]), siblings
    if kind not in by_kind:
        raise Http404(f"edition {name!r} has no {kind!r} list")
    return by_kind[kind], siblings


def edition_index(request):
    """Editions by name (newest first), each with its lists ("ISC19": IO500, 10-node)."""
    editions = Edition.objects.annotate(entry_count=Count("entries")).order_by("-frozen_at", "name", "list_kind")
    grouped: dict[str, list[Edition]] = {}
    for edition in editions:
        grouped.setdefault(edition.name, []).append(edition)
    groups = [{"name": name, "lists": sorted(lists, key=lambda edition: edition.list_kind),
               "title": next((edition.title for edition in lists if edition.title), ""),
               "frozen_at": min(edition.frozen_at for edition in lists)}
              for name, lists in grouped.items()]
    return render(request, "leaderboard/editions.html", {"groups": groups})


def edition_list(request, name: str, kind: str | None = None):
    edition, siblings = _edition(name, kind)
    form = ListFilterForm(request.GET)
    entries = edition_entries(edition, form.criteria(), form.sort_key)
    page = Paginator(entries, form.page_size).get_page(request.GET.get("page"))
    info = LISTS[edition.list_kind]
    return render(request, "leaderboard/list.html", {
        "info": info,
        "edition": edition,
        "siblings": siblings,
        "form": form,
        "page": page,
        "rows": [Row.from_entry(entry) for entry in page],
        "headers": headers(form.sort_key, "rank"),
        "filesystems": edition.entries.order_by("filesystem").values_list("filesystem", flat=True).distinct(),
        "lists": LISTS.values(),
    })


def edition_export(request, name: str, kind: str, fmt: str):
    edition, _ = _edition(name, kind)
    form = ListFilterForm(request.GET)
    entries = edition_entries(edition, form.criteria(), form.sort_key).select_related("edition")
    filename = f"ioboard-{edition.name}-{edition.list_kind}"
    records = exports.entry_records(entries)
    if fmt == "csv":
        return exports.csv_response(records, exports.ENTRY_COLUMNS, [], filename)
    meta = {"edition": edition.name, "list": edition.list_kind, "title": edition.title,
            "frozen_at": edition.frozen_at, "filters": form.criteria(), "sort": form.sort_key or "rank"}
    return exports.json_response(records, meta, filename)


def _score_checks(run) -> list[dict]:
    checks = []
    for label, computed, reported in (("Score", run.score_total, run.reported_total),
                                      ("Bandwidth (GiB/s)", run.score_bw, run.reported_bw),
                                      ("Metadata (kIOPS)", run.score_md, run.reported_md)):
        percent = 100 * (computed / reported - 1) if computed is not None and reported else None
        checks.append({"label": label, "computed": computed, "reported": reported, "percent": percent,
                       "agrees": percent is not None and abs(percent) < 0.5})
    return checks


def run_detail(request, pk: int):
    run = get_object_or_404(Run.objects.with_details(), pk=pk)
    phases = list(run.phases.all())
    placements = [(LISTS[kind], Run.objects.listing(kind).placement(run=run.pk).get(run.pk))
                  for kind in ("io500", "ten-node")]
    medians = Run.objects.io500_list().phase_medians()
    return render(request, "leaderboard/run_detail.html", {
        "run": run,
        "system": run.system,
        "phases": phases,
        "score_checks": _score_checks(run),
        "placements": placements,
        "edition_entries": run.edition_entries.select_related("edition").order_by("-edition__frozen_at"),
        "config": sorted(flatten(run.config or {}).items()),
        "info_fields": sorted(flatten(run.info or {}).items()),
        "chart": charts.phases_against_median(phases, medians, LISTS["io500"].title),
    })


def run_upload(request, pk: int):
    """The upload a run came from, byte for byte, as an attachment under its original name."""
    run = get_object_or_404(Run.objects.select_related("upload"), pk=pk)
    upload = run.upload
    if upload is None or not upload.file:
        raise Http404("this run has no stored upload")
    try:
        handle = upload.file.open("rb")
    except FileNotFoundError as exc:
        raise Http404("the stored upload is missing") from exc
    return FileResponse(handle, as_attachment=True, filename=upload.original_name or upload.file.name)


def system_detail(request, pk: int):
    system = get_object_or_404(StorageSystem.objects.select_related("institution"), pk=pk)
    runs = list(
        system.runs.select_related("lustre_build")
        .defer("config", "info", "facts", "extended_scores")
        .with_badges()
        .order_by(F("run_timestamp").desc(nulls_last=True), F("year").desc(nulls_last=True), "-pk")
    )
    placements = []
    for kind in ("io500", "ten-node"):
        ranks = Run.objects.listing(kind).placement(system=system.pk)
        placements.extend((LISTS[kind], run_id, rank) for run_id, rank in ranks.items())
    return render(request, "leaderboard/system_detail.html", {
        "system": system,
        "runs": runs,
        "placements": placements,
        "edition_entries": EditionEntry.objects.filter(system=system).select_related("edition")
        .order_by("-edition__frozen_at", "edition__list_kind"),
        "aliases": system.aliases.all(),
        "chart": charts.score_timeline(runs),
    })


def _compared_ids(request) -> list[int]:
    ids: list[int] = []
    for value in request.GET.getlist("runs"):
        for part in value.replace(" ", ",").split(","):
            if part.strip().isdigit() and int(part) not in ids:
                ids.append(int(part))
    return ids


def compare(request):
    ids = _compared_ids(request)
    context = {"ids": ids, "max_compared": MAX_COMPARED, "query": ",".join(map(str, ids))}
    if len(ids) < 2 or len(ids) > MAX_COMPARED:
        context["problem"] = (f"Give between 2 and {MAX_COMPARED} run ids, e.g. ?runs=12,34." if ids else "")
        return render(request, "leaderboard/compare.html", context, status=400 if ids else 200)
    try:
        runs = load_runs(ids)
    except Run.DoesNotExist as missing:
        raise Http404(str(missing)) from missing
    diff = diff_runs(runs)
    context.update({"runs": runs, "diff": diff, "summaries": list(zip(runs[1:], diff.summaries(), strict=True)),
                    "chart": charts.compare_phases(diff)})
    return render(request, "leaderboard/compare.html", context)


@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico on every site; answering keeps their consoles free of 404s."""
    return HttpResponse(FAVICON, content_type="image/svg+xml")
