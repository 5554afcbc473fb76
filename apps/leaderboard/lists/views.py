"""The ranked lists (`/lists/<kind>/`) and the frozen editions (`/editions/…`), their awards and their exports.

Like every page of the leaderboard, views fetch with one queryset method and render; the rules live in
apps.results. Every page runs a constant number of SQL queries whatever the number of rows (tests hold them to it).
"""

from datetime import date

from django.http import Http404
from django.shortcuts import render

from apps.leaderboard.lists import exports
from apps.leaderboard.lists.filters import ListFilterForm
from apps.leaderboard.lists.tables import KeyPaginator, Row, column_choices, headers
from apps.results.models import Edition, ListEntry, ListState
from apps.results.models.list_kinds import LIST_KINDS, PRIMARY_LIST, SPLIT_EDITION, ListKind
from apps.results.models.querysets import load_listed
from apps.results.services.awards import edition_awards
from apps.results.services.editions import edition_entries, edition_page_entries, load_entries
from apps.web.page_cache import cache_page_until_data_changes
from apps.web.rate_limits import ExportThrottle, rate_limited


def _list_info(kind: str) -> ListKind:
    if kind not in LIST_KINDS:
        raise Http404(f"no list {kind!r}")
    return LIST_KINDS[kind]


#: What a list page reads of its query: the filter form's fields and the page number.
LIST_PARAMETERS = [*ListFilterForm.base_fields, "page"]


@cache_page_until_data_changes(parameters=LIST_PARAMETERS)
def live_list(request, kind: str = PRIMARY_LIST):
    info = _list_info(kind)
    form = ListFilterForm(request.GET)
    state = ListState.objects.filter(kind=kind).first()
    entries = ListEntry.objects.page_entries(kind, form.criteria(), form.sort_key, state)
    page = KeyPaginator(entries, load_listed, form.page_size).get_page(request.GET.get("page"))
    return render(
        request,
        "lists/list.html",
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


@rate_limited(ExportThrottle)
def live_list_export(request, kind: str, fmt: str):
    info = _list_info(kind)
    form = ListFilterForm(request.GET)
    entries = ListEntry.objects.listed(kind).filter_listed(**form.criteria()).sort_listed(form.sort_key)
    page = exports.ExportPage.asked(request)
    run_ids = list(entries.values_list("run_id", flat=True)[page.start : page.stop_with_one_more])
    page.found(request, run_ids)
    entries = entries.filter(run_id__in=run_ids[: page.rows])
    filename = f"ioboard-{kind}"
    records = exports.run_records(entries.runs())
    if fmt == "csv":
        return page.linked(exports.csv_response(records, exports.RUN_COLUMNS, exports.phase_columns(entries), filename))
    meta = {
        "list": info.slug,
        "title": info.title,
        "filters": form.criteria(),
        "sort": form.sort_key or info.default_sort,
        **page.meta(),
    }
    return page.linked(exports.json_response(records, meta, filename))


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
    """Editions by name (newest first), each with its lists ("ISC19": IO500, 10-node); the releases of io500.org's
    published record apart, newest release first, each linked to its page as published."""
    editions = Edition.objects.order_by("-frozen_at", "name", "list_kind")
    grouped: dict[tuple[str, str], list[Edition]] = {}
    for edition in editions:
        grouped.setdefault((edition.source, edition.name), []).append(edition)
    groups = [
        {
            "name": name,
            "published": source == Edition.Source.PUBLISHED,
            "lists": sorted(lists, key=lambda edition: edition.list_kind),
            "title": next((edition.title for edition in lists if edition.title), ""),
            "frozen_at": min(edition.frozen_at for edition in lists),
            "released_on": lists[0].released_on,
        }
        for (source, name), lists in grouped.items()
    ]
    published = sorted(
        (group for group in groups if group["published"]),
        key=lambda group: (group["released_on"] or date.min, group["name"]),
        reverse=True,
    )
    frozen = [group for group in groups if not group["published"]]
    return render(request, "lists/editions.html", {"groups": frozen, "published": published})


def edition_list(request, name: str, kind: str | None = None):
    edition, siblings = _edition(name, kind)
    form = ListFilterForm(request.GET)
    entries = edition_page_entries(edition, form.criteria(), form.sort_key)
    page = KeyPaginator(entries, load_entries, form.page_size).get_page(request.GET.get("page"))
    info = LIST_KINDS[edition.list_kind]
    return render(
        request,
        "lists/list.html",
        {
            "info": info,
            "edition": edition,
            "siblings": siblings,
            "form": form,
            "page": page,
            "rows": [Row.from_entry(entry) for entry in page],
            "headers": headers(form.sort_key, "rank", request.GET),
            "column_choices": column_choices(form.sort_key),
            "filesystems": edition.filesystems,
            "lists": LIST_KINDS.values(),
        },
    )


@rate_limited(ExportThrottle)
def edition_export(request, name: str, kind: str, fmt: str):
    edition, _ = _edition(name, kind)
    form = ListFilterForm(request.GET)
    entries = edition_entries(edition, form.criteria(), form.sort_key).select_related("edition")
    page = exports.ExportPage.asked(request)
    entry_ids = list(entries.values_list("pk", flat=True)[page.start : page.stop_with_one_more])
    page.found(request, entry_ids)
    filename = f"ioboard-{edition.name}-{edition.list_kind}"
    records = exports.entry_records(entries.filter(pk__in=entry_ids[: page.rows]))
    if fmt == "csv":
        return page.linked(exports.csv_response(records, exports.ENTRY_COLUMNS, [], filename))
    meta = {
        "edition": edition.name,
        "list": edition.list_kind,
        "title": edition.title,
        "frozen_at": edition.frozen_at,
        "filters": form.criteria(),
        "sort": form.sort_key or "rank",
        **page.meta(),
    }
    return page.linked(exports.json_response(records, meta, filename))


def edition_awards_page(request, name: str):
    """The 12 awards of an edition, from its frozen lists."""
    if not Edition.objects.filter(name=name).exists():
        raise Http404(f"no edition {name!r}")
    return render(request, "lists/awards.html", {"name": name, "awards": edition_awards(name)})
