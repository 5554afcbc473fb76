"""HTML pages. Views fetch with one queryset method and render; the rules live in apps.results.

Every page runs a constant number of SQL queries whatever the number of rows (tests hold them to it).
"""

from django.core.paginator import Paginator
from django.db.models import Count, F
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.cache import cache_control

from apps.leaderboard import charts, exports
from apps.leaderboard.filters import ListFilterForm, SystemSearchForm
from apps.leaderboard.front import newest_shown_runs
from apps.leaderboard.tables import KeyPaginator, Row, column_choices, headers
from apps.results.judgements.diff import diff_runs, flatten
from apps.results.judgements.submission_rules import rules_edition_of_date
from apps.results.models import CustomList, Edition, EditionEntry, ListEntry, ListState, Run, Stack, StorageSystem
from apps.results.models.list_kinds import LIST_KINDS, PRIMARY_LIST, SPLIT_EDITION, ListKind
from apps.results.models.querysets import entries_with_rank, load_listed
from apps.results.services.awards import edition_awards
from apps.results.services.changes.noise import NOISE_SIGMAS, noise_verdicts
from apps.results.services.citations import citations_from, mixed_lists_warning
from apps.results.services.custom_lists import CustomListRows
from apps.results.services.diff import load_runs
from apps.results.services.editions import edition_entries
from apps.results.services.review import clause_outcomes, reproducibility_report
from apps.web.page_cache import cache_page_until_data_changes
from apps.web.query_guard import database_id

MAX_COMPARED = 6
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<rect width="16" height="16" rx="3" fill="#1f5fbf"/>'
    '<path d="M4 12V7M8 12V4M12 12V9" stroke="#fff" stroke-width="2"/></svg>'
)


def _list_info(kind: str) -> ListKind:
    if kind not in LIST_KINDS:
        raise Http404(f"no list {kind!r}")
    return LIST_KINDS[kind]


@cache_page_until_data_changes
def live_list(request, kind: str = PRIMARY_LIST):
    info = _list_info(kind)
    form = ListFilterForm(request.GET)
    state = ListState.objects.filter(kind=kind).first()
    entries = ListEntry.objects.page_entries(kind, form.criteria(), form.sort_key, state)
    page = KeyPaginator(entries, load_listed, form.page_size).get_page(request.GET.get("page"))
    return render(
        request,
        "leaderboard/list.html",
        {
            "info": info,
            "form": form,
            "page": page,
            "rows": [Row.from_listed(entry) for entry in page],
            "headers": headers(form.sort_key, info.default_sort, request.GET),
            "column_choices": column_choices(form.sort_key),
            "filesystems": state.filesystems if state else [],
            "editions": Edition.objects.filter(list_kind=kind).order_by("-frozen_at"),
            "lists": LIST_KINDS.values(),
            "split_edition": SPLIT_EDITION,
        },
    )


def live_list_export(request, kind: str, fmt: str):
    info = _list_info(kind)
    form = ListFilterForm(request.GET)
    entries = ListEntry.objects.listed(kind).filter_listed(**form.criteria()).sort_listed(form.sort_key)
    filename = f"ioboard-{kind}"
    records = exports.run_records(entries.runs())
    if fmt == "csv":
        return exports.csv_response(records, exports.RUN_COLUMNS, exports.phase_columns(entries), filename)
    meta = {
        "list": info.slug,
        "title": info.title,
        "filters": form.criteria(),
        "sort": form.sort_key or info.default_sort,
    }
    return exports.json_response(records, meta, filename)


def _edition(name: str, kind: str | None) -> tuple[Edition, list[Edition]]:
    siblings = list(Edition.objects.filter(name=name).order_by("list_kind"))
    if not siblings:
        raise Http404(f"no edition {name!r}")
    by_kind = {edition.list_kind: edition for edition in siblings}
    if kind is None:
        return by_kind.get(PRIMARY_LIST, siblings[0]), siblings
    if kind not in by_kind:
        raise Http404(f"edition {name!r} has no {kind!r} list")
    return by_kind[kind], siblings


def edition_index(request):
    """Editions by name (newest first), each with its lists ("ISC19": IO500, 10-node)."""
    editions = Edition.objects.annotate(entry_count=Count("entries")).order_by("-frozen_at", "name", "list_kind")
    grouped: dict[str, list[Edition]] = {}
    for edition in editions:
        grouped.setdefault(edition.name, []).append(edition)
    groups = [
        {
            "name": name,
            "lists": sorted(lists, key=lambda edition: edition.list_kind),
            "title": next((edition.title for edition in lists if edition.title), ""),
            "frozen_at": min(edition.frozen_at for edition in lists),
        }
        for name, lists in grouped.items()
    ]
    return render(request, "leaderboard/editions.html", {"groups": groups})


def edition_list(request, name: str, kind: str | None = None):
    edition, siblings = _edition(name, kind)
    form = ListFilterForm(request.GET)
    entries = edition_entries(edition, form.criteria(), form.sort_key)
    page = Paginator(entries, form.page_size).get_page(request.GET.get("page"))
    info = LIST_KINDS[edition.list_kind]
    return render(
        request,
        "leaderboard/list.html",
        {
            "info": info,
            "edition": edition,
            "siblings": siblings,
            "form": form,
            "page": page,
            "rows": [Row.from_entry(entry) for entry in page],
            "headers": headers(form.sort_key, "rank", request.GET),
            "column_choices": column_choices(form.sort_key),
            "filesystems": edition.entries.order_by("filesystem").values_list("filesystem", flat=True).distinct(),
            "lists": LIST_KINDS.values(),
        },
    )


def edition_export(request, name: str, kind: str, fmt: str):
    edition, _ = _edition(name, kind)
    form = ListFilterForm(request.GET)
    entries = edition_entries(edition, form.criteria(), form.sort_key).select_related("edition")
    filename = f"ioboard-{edition.name}-{edition.list_kind}"
    records = exports.entry_records(entries)
    if fmt == "csv":
        return exports.csv_response(records, exports.ENTRY_COLUMNS, [], filename)
    meta = {
        "edition": edition.name,
        "list": edition.list_kind,
        "title": edition.title,
        "frozen_at": edition.frozen_at,
        "filters": form.criteria(),
        "sort": form.sort_key or "rank",
    }
    return exports.json_response(records, meta, filename)


def _score_checks(run) -> list[dict]:
    """Computed against reported score; "agrees" is the run's print-precision rule (Run.score_agreement)."""
    agreement = run.score_agreement()
    checks = []
    for label, component, computed, reported in (
        ("Score", "total", run.score_total, run.reported_total),
        ("Bandwidth (GiB/s)", "bw", run.score_bw, run.reported_bw),
        ("Metadata (kIOPS)", "md", run.score_md, run.reported_md),
    ):
        percent = 100 * (computed / reported - 1) if computed is not None and reported else None
        checks.append(
            {
                "label": label,
                "computed": computed,
                "reported": reported,
                "percent": percent,
                "agrees": agreement.get(component, False),
            }
        )
    return checks


def _medians_list(run, placements) -> ListKind:
    """The list whose per-phase medians a run's phases are drawn against: one of its own track (a production run
    against production runs), keeping medians (ListKind.keeps_medians). The track is that of the run's first ranked
    placement, else production when the committee accepted its production declaration, else research."""
    track = next(
        (kind.track for kind, rank in placements if rank and kind.track),
        "production" if run.production_accepted else "research",
    )
    return next(
        (kind for kind in LIST_KINDS.values() if kind.track == track and kind.keeps_medians), LIST_KINDS[PRIMARY_LIST]
    )


def run_detail(request, pk: int):
    run = get_object_or_404(Run.objects.with_details().prefetch_related("rank_stats"), pk=pk)
    phases = list(run.phases.all())
    ranks = {kind: rank for kind, rank in entries_with_rank().filter(run=run).values_list("kind", "rank")}
    placements = [(kind, ranks.get(kind.slug)) for kind in LIST_KINDS.values() if kind.on_run_pages]
    medians_list = _medians_list(run, placements)
    statistics = ListState.objects.filter(kind=medians_list.slug).first()
    edition_placements = list(run.edition_entries.select_related("edition").order_by("-edition__frozen_at"))
    edition, outcomes = clause_outcomes(run)
    stack = Stack.of_system(run.system_id)
    anomalies = list(run.anomalies.all())
    return render(
        request,
        "leaderboard/run_detail.html",
        {
            "stack": stack,
            "hardware_efficiency": stack.run_efficiency(phases) if stack else [],
            "run": run,
            "system": run.system,
            "phases": phases,
            "score_checks": _score_checks(run),
            "placements": placements,
            "ranked_placements": [(kind, rank) for kind, rank in placements if rank],
            "list_edition": rules_edition_of_date(run.run_timestamp.date().isoformat()) if run.run_timestamp else None,
            "warnings": [anomaly for anomaly in anomalies if anomaly.severity == "warn"],
            "errors": [anomaly for anomaly in anomalies if anomaly.severity == "error"],
            "medians_list": medians_list,
            "edition_entries": edition_placements,
            "config": sorted(flatten(run.config or {}).items()),
            "info_fields": sorted(flatten(run.info or {}).items()),
            "statistics": statistics,
            "chart": charts.phases_against_median(
                phases, statistics.phase_medians if statistics else {}, medians_list.title
            ),
            "rank_charts": [(stats, charts.rank_runtimes(stats)) for stats in run.rank_stats.all()],
            "edition": edition,
            "clause_outcomes": outcomes,
            "citations": citations_from(run, edition_placements, ranks),
            "reproducibility": reproducibility_report(run, staff=request.user.is_staff),
        },
    )


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
        system.runs.without_pending_claims()
        .select_related("lustre_build")
        .without_large_fields()
        .with_badges()
        .order_by(F("run_timestamp").desc(nulls_last=True), F("year").desc(nulls_last=True), "-pk")
    )
    shown = [kind.slug for kind in LIST_KINDS.values() if kind.on_run_pages]
    entries = entries_with_rank().filter(system=system, kind__in=shown).values_list("kind", "run_id", "rank")
    placements = sorted(
        ((LIST_KINDS[kind], run_id, rank) for kind, run_id, rank in entries),
        key=lambda placement: shown.index(placement[0].slug),
    )
    return render(
        request,
        "leaderboard/system_detail.html",
        {
            "system": system,
            "runs": runs,
            "placements": placements,
            "edition_entries": EditionEntry.objects.filter(system=system)
            .select_related("edition")
            .order_by("-edition__frozen_at", "edition__list_kind"),
            "aliases": system.aliases.all(),
            "chart": charts.score_timeline(runs),
        },
    )


def _compared_ids(request) -> tuple[list[int], str]:
    """The run ids of `?runs=` (commas or spaces between them, repeated parameters), and what is wrong with them."""
    ids: list[int] = []
    for value in request.GET.getlist("runs"):
        for part in value.replace(" ", ",").split(","):
            part = part.strip()
            if not part:
                continue
            run_id = database_id(part)
            if run_id is None:
                return ids, f"{part[:30]!r} is not a run id: give whole numbers, e.g. ?runs=12,34."
            if run_id not in ids:
                ids.append(run_id)
    return ids, ""


def compare(request):
    ids, problem = _compared_ids(request)
    context = {"ids": ids, "max_compared": MAX_COMPARED, "query": ",".join(map(str, ids))}
    if not problem and ids and not 2 <= len(ids) <= MAX_COMPARED:
        problem = f"Give between 2 and {MAX_COMPARED} run ids, e.g. ?runs=12,34."
    if problem or not ids:
        picker_form = SystemSearchForm(request.GET)
        context.update(
            {"problem": problem, "picker_query": picker_form.query, "picker": newest_shown_runs(picker_form.query)}
        )
        return render(request, "leaderboard/compare.html", context, status=400 if problem else 200)
    try:
        runs = load_runs(ids)
    except Run.DoesNotExist as missing:
        raise Http404(str(missing)) from missing
    diff = diff_runs(runs)
    noise = noise_verdicts(runs, diff)
    context.update(
        {
            "runs": runs,
            "diff": diff,
            "summaries": list(zip(runs[1:], diff.summaries(), strict=True)),
            "chart": charts.compare_phases(diff, noise),
            "noise": noise,
            "noise_by_row": {verdict.name: verdict.beyond for verdict in noise},
            "noise_sigmas": NOISE_SIGMAS,
            "list_warning": mixed_lists_warning(ids),
        }
    )
    return render(request, "leaderboard/compare.html", context)


def edition_awards_page(request, name: str):
    """The 12 awards of an edition, from its frozen lists."""
    if not Edition.objects.filter(name=name).exists():
        raise Http404(f"no edition {name!r}")
    return render(request, "leaderboard/awards.html", {"name": name, "awards": edition_awards(name)})


def custom_list(request, token: str):
    """A saved custom list, shared by its link: the base list's members ranked by the equation."""
    custom = get_object_or_404(CustomList, token=token)
    entries = CustomListRows(custom)
    page = Paginator(entries, ListFilterForm(request.GET).page_size).get_page(request.GET.get("page"))
    return render(
        request,
        "leaderboard/custom_list.html",
        {
            "custom": custom,
            "base": LIST_KINDS[custom.base_list],
            "page": page,
            "rows": page.object_list,
            "entries": entries,
        },
    )


def custom_list_export(request, token: str, fmt: str):
    custom = get_object_or_404(CustomList, token=token)
    entries = CustomListRows(custom, Run.objects.with_list_columns())
    values = {}

    def runs():
        for row in entries:
            values[row.run.pk] = row.value
            yield row.run

    records = ({**record, "equation_value": values.pop(record["id"])} for record in exports.run_records(runs()))
    filename = f"ioboard-custom-{custom.token}"
    if fmt == "csv":
        return exports.csv_response(records, [*exports.RUN_COLUMNS, "equation_value"], [], filename)
    meta = {
        "custom_list": custom.token,
        "name": custom.name,
        "equation": custom.equation,
        "base_list": custom.base_list,
        "complete": entries.complete,
    }
    return exports.json_response(records, meta, filename)


@cache_control(max_age=86400, public=True)
def favicon(request):
    """Browsers ask for /favicon.ico on every site; answering keeps their consoles free of 404s."""
    return HttpResponse(FAVICON, content_type="image/svg+xml")
