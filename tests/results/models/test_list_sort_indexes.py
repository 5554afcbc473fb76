"""Every sort a list page or the list API offers has an index in its exact order, ties included.

Sorted by a column without one, a page sorts every entry of its list before its first row (at 1M runs,
the historic list by institution took 1.5 s). With sorting disabled, PostgreSQL still sorts where no index
gives the order, so a plan without a Sort node shows the index exists. PostgreSQL only: SQLite cannot
state NULLS LAST in an index, and its lists are small.
"""

import json

import pytest
from django.db import connection

from apps.results.models import ListEntry
from apps.results.models.list_columns import SORT_KEYS

pytestmark = pytest.mark.django_db


def _plan_nodes(plan: dict):
    """The node types of a plan, but for its subplans (a rank's shift sum, run for each of the page's rows)."""
    yield plan["Node Type"]
    for child in plan.get("Plans", []):
        if child.get("Parent Relationship") not in ("SubPlan", "InitPlan"):
            yield from _plan_nodes(child)


@pytest.mark.parametrize("key", sorted(SORT_KEYS))
@pytest.mark.parametrize("direction", ["", "-"])
def test_a_sorted_page_is_read_in_order_from_an_index(key, direction):
    if connection.vendor != "postgresql":
        pytest.skip("NULLS LAST indexes are PostgreSQL's; run with DATABASE_URL=postgres://...")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_sort = off")
    page = ListEntry.objects.page_entries("historic", {}, f"{direction}{key}").keys[:50]
    plan = json.loads(page.explain(format="json"))[0]["Plan"]
    assert not [node for node in _plan_nodes(plan) if "Sort" in node], json.dumps(plan, indent=1)
