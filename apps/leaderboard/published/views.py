"""io500.org's published record (`/published/…`): a release's lists as published with their change log, the audit
of each list against its raw files beside the list those files make, and the audit's summary across the record.

Thin: the record is read by apps.results.services.published and audited by apps.results.services.published_audit;
each page runs a constant number of SQL queries whatever the number of rows (tests hold them to it). The audit is
stored with each entry when the record is imported and when a linked run is written (the summary is one grouped
count), so no page recomputes it; the page cache, until the data changes, is a bonus.
"""

from django.http import Http404
from django.shortcuts import render

from apps.results.models import Edition
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.published import change_log, published_lists
from apps.results.services.published_audit import audit_summary, list_audit
from apps.web.page_cache import cache_page_until_data_changes


def _published(name: str) -> list[Edition]:
    """A release's published lists, in the registry's order of list kinds (the IO500 list first)."""
    order = list(LIST_KINDS)
    editions = Edition.objects.filter(source=Edition.Source.PUBLISHED, name=name)
    if not editions:
        raise Http404(f"no published edition {name!r}")
    return sorted(editions, key=lambda edition: order.index(edition.list_kind))


@cache_page_until_data_changes(parameters=())
def published_edition(request, name: str):
    """A release as io500.org published it: its source and release date, each list's rows, its change log."""
    editions = _published(name)
    rows = published_lists(name)
    return render(
        request,
        "published/edition.html",
        {
            "name": name,
            "first": editions[0],
            "lists": [(edition, rows.get(edition.list_kind, [])) for edition in editions],
            "changes": change_log(name),
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
