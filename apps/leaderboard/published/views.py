"""io500.org's published record (`/published/…`): a release's lists as published, one a page, with its change log
on a tab beside them, the audit of each list against its raw files beside the list those files make, and the
audit's summary across the record.

Thin: the record is read by apps.results.services.published and audited by apps.results.services.published_audit;
each page runs a constant number of SQL queries whatever the number of rows (tests hold them to it). The audit is
stored with each entry when the record is imported and when a linked run is written (the summary is one grouped
count), so no page recomputes it; the page cache, until the data changes, is a bonus.
"""

from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import render

from apps.results.models import Edition
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.published import change_log, change_log_rows, published_lists, published_rows
from apps.results.services.published_audit import audit_summary, list_audit
from apps.web.page_cache import cache_page_until_data_changes


def _published(name: str) -> list[Edition]:
    """A release's published lists, in the registry's order of list kinds (the IO500 list first), with their
    entry counts."""
    editions = published_lists(name)
    if not editions:
        raise Http404(f"no published edition {name!r}")
    return editions


#: Rows of a published list a page: an IO500 or 10-node list on one (at most 58 and 55 rows), a full or historical
#: list (up to 197 and 303) on two to four. Django's floatformat, three figures a row at 9 us each, was most of the
#: time of 300 rows.
PUBLISHED_ROWS_PER_PAGE = 100


@cache_page_until_data_changes(parameters=("page",))
def published_edition(request, name: str, kind: str | None = None):
    """A release as io500.org published it: its source and release date, one of its lists (the first unless
    `kind`), a hundred rows a page, and tabs to the others and to its change log. One list a page: ISC21's four
    lists and its change log on one page were 265 KB of HTML and 15 times /healthz."""
    editions = _published(name)
    shown = next((edition for edition in editions if edition.list_kind == kind), None) if kind else editions[0]
    if shown is None:
        raise Http404(f"published edition {name!r} has no {kind!r} list")
    return render(
        request,
        "published/edition.html",
        {
            "name": name,
            "editions": editions,
            "first": editions[0],
            "tab": shown.list_kind,
            "shown": shown,
            "page": Paginator(published_rows(shown), PUBLISHED_ROWS_PER_PAGE).get_page(request.GET.get("page")),
            "change_count": change_log(name).count(),
        },
    )


@cache_page_until_data_changes(parameters=())
def change_log_page(request, name: str):
    """What io500.org's corrective migrations changed in a release after it was published, on the release's
    tabs."""
    editions = _published(name)
    changes = change_log_rows(name)
    return render(
        request,
        "published/changes.html",
        {
            "name": name,
            "editions": editions,
            "first": editions[0],
            "tab": "changes",
            "changes": changes,
            "change_count": len(changes),
        },
    )


@cache_page_until_data_changes(parameters=())
def list_audit_page(request, name: str, kind: str):
    """One published list against its raw files: each linked entry's differences, and the list beside the one
    ioboard makes from the same runs."""
    editions = {edition.list_kind: edition for edition in _published(name)}
    if kind not in editions:
        raise Http404(f"published edition {name!r} has no {kind!r} list")
    audited = list_audit(editions[kind])
    linked = [row for row in audited if row.differences is not None]
    differing = [row for row in linked if row.differences]
    return render(
        request,
        "published/audit.html",
        {
            "edition": editions[kind],
            "info": LIST_KINDS.get(kind),
            "siblings": editions.values(),
            "audited": audited,
            "linked": linked,
            "differing": differing,
            "agreeing": len(linked) - len(differing),
            "moved": sum(1 for row in linked if row.move and row.move.move),
        },
    )


@cache_page_until_data_changes(parameters=())
def audit_summary_page(request):
    """Per published list: its entries, those with raw files, those that agree and those that differ."""
    summary = audit_summary()
    totals = {key: sum(row[key] for row in summary) for key in ("entries", "with_raw_files", "agree", "differ")}
    return render(request, "published/audit_summary.html", {"summary": summary, "totals": totals})
