"""Every sort of an edition's page by a column its entries store, and every award, reads its rows in order from an
index, ties included (migration 0041).

Sorted without one, a page sorts every entry of the edition before its first row (at 1M runs, the frozen IO500
list sorted by bandwidth took 48x /healthz, its awards 51x). With sorting disabled, PostgreSQL still sorts where
no index gives the order, so a plan without a Sort node shows the index exists. PostgreSQL only: SQLite cannot
state NULLS LAST in an index, and its editions are small.
"""

import json

import pytest
from django.db import connection

from apps.results.models import EditionEntry
from apps.results.models.list_columns import SORT_KEYS
from apps.results.services import editions
from apps.results.services.awards import CATEGORIES, award_order
from apps.results.services.editions import edition_page_entries, freeze_edition
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

#: Sort keys that order by a column of a joined row, which no index of the entries holds: the run's year and
#: warning flag (read from the run, not frozen) and the ratios per storage server (the system's server count).
JOINED = {"year", "flagged", "score_per_server", "bw_per_server", "md_per_server"}


def _plan_nodes(plan: dict):
    """The node types of a plan, but for its subplans."""
    yield plan["Node Type"]
    for child in plan.get("Plans", []):
        if child.get("Parent Relationship") not in ("SubPlan", "InitPlan"):
            yield from _plan_nodes(child)


def _sorts(queryset) -> list[str]:
    """The plan of `queryset` with sorting disabled, if it sorts anyway (else nothing)."""
    if connection.vendor != "postgresql":
        pytest.skip("NULLS LAST indexes are PostgreSQL's; run with DATABASE_URL=postgres://...")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
    plan = json.loads(queryset.explain(format="json"))[0]["Plan"]
    sorts = [node for node in _plan_nodes(plan) if "Sort" in node]
    return [json.dumps(plan, indent=1)] if sorts else []


@pytest.fixture
def edition():
    RunFactory(phases=False)
    return freeze_edition("ISC19", "io500")


@pytest.mark.parametrize("key", sorted(set(SORT_KEYS) - JOINED))
@pytest.mark.parametrize("direction", ["", "-"])
def test_a_sorted_edition_page_is_read_in_order_from_an_index(edition, key, direction):
    assert _sorts(edition_page_entries(edition, {}, f"{direction}{key}").keys[:50]) == []


def test_an_edition_page_in_rank_order_is_read_from_an_index(edition):
    assert _sorts(edition_page_entries(edition, {}, None).keys[:50]) == []


@pytest.mark.parametrize("field", sorted(CATEGORIES.values()))
def test_an_award_reads_its_winner_from_an_index(edition, field):
    ranked = EditionEntry.objects.filter(edition=edition, rank__isnull=False, **{f"{field}__isnull": False})
    assert _sorts(ranked.order_by(*award_order(field))[:1]) == []


def test_freezing_a_large_edition_gathers_the_statistics_its_pages_are_planned_on(monkeypatch):
    """With none, PostgreSQL guesses a few dozen rows an edition and sorts a 125,000-entry edition for each page
    instead of reading its first fifty from an index (at 1M runs: 77 ms against 0.7 ms)."""
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's")
    monkeypatch.setattr(editions, "BULK_RUNS", 4)  # a bulk write of four entries, so the spec needs few runs
    for _ in range(5):
        RunFactory(phases=False)

    frozen = freeze_edition("ISC20", "historic")

    plan = json.loads(EditionEntry.objects.filter(edition=frozen).explain(format="json"))[0]["Plan"]
    assert frozen.entry_count == 5
    assert plan["Plan Rows"] == 5
