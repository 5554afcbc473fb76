"""The systems collection's count (`count` of /api/v1/systems/) is what its reader may see, and counting it does not
read the run table for every system (issue 41).

Counted by testing each system for a hidden run, the count probed the run table once per system: 200 ms at a
million runs (125,000 systems), the one read of the collection that grew with the data. A system can only be
hidden by an embargoed run, so the run table is read for the systems holding one, whatever the number of others.
"""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from apps.results.models import Run
from tests.api.embargo import signed_in
from tests.factories import RunFactory, StorageSystemFactory, UploadFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def systems(alice):
    """Three systems with a public run, one with none yet, Wolf known only from alice's embargoed upload, and Emu
    with a public run and one of alice's embargoed runs."""
    for name in ("Quokka", "Numbat", "Dingo"):
        RunFactory(system=StorageSystemFactory(name=name), review_status="accepted")
    StorageSystemFactory(name="Wombat")
    embargoed = UploadFactory(uploader=alice, embargoed=True)
    RunFactory(system=StorageSystemFactory(name="Wolf"), upload=embargoed)
    emu = StorageSystemFactory(name="Emu")
    RunFactory(system=emu, review_status="accepted")
    RunFactory(system=emu, upload=embargoed)


def counted(client, address: str = "/api/v1/systems/") -> tuple[int, int]:
    """The collection's count and the rows it lists (all on one page here)."""
    body = client.get(address).json()
    return body["count"], len(body["results"])


def test_each_reader_counts_the_systems_they_may_see(systems, alice, bob, staff):
    assert counted(APIClient()) == (5, 5)  # not Wolf
    assert counted(signed_in(bob)) == (5, 5)
    assert counted(signed_in(alice)) == (6, 6)
    assert counted(signed_in(staff)) == (6, 6)


def test_a_filtered_collection_counts_the_systems_each_reader_may_see(systems, alice):
    assert counted(APIClient(), "/api/v1/systems/?name=wolf") == (0, 0)
    assert counted(signed_in(alice), "/api/v1/systems/?name=wolf") == (1, 1)
    assert counted(APIClient(), "/api/v1/systems/?name=emu&ordering=-run_count") == (1, 1)


def _run_table_loops(plan: dict, table: str) -> int:
    """How many times a plan's nodes read `table`, subplans included."""
    own = plan.get("Actual Loops", 0) if plan.get("Relation Name") == table else 0
    return own + sum(_run_table_loops(child, table) for child in plan.get("Plans", []))


def test_counting_the_systems_reads_the_run_table_for_the_embargoed_ones_only(systems):
    if connection.vendor != "postgresql":
        pytest.skip("reads PostgreSQL's EXPLAIN ANALYZE; run with DATABASE_URL=postgres://...")
    for index in range(40):
        RunFactory(system=StorageSystemFactory(name=f"Bilby {index}"), review_status="accepted", phases=False)
    with CaptureQueriesContext(connection) as queries:
        assert counted(APIClient(), "/api/v1/systems/?page_size=1")[0] == 45
    counts = [query["sql"] for query in queries.captured_queries if '"__count"' in query["sql"]]
    assert counts, "the collection was not counted"
    loops = 0
    with connection.cursor() as cursor:
        for sql in counts:
            cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}")
            plan = cursor.fetchone()[0]
            plan = json.loads(plan) if isinstance(plan, str) else plan
            loops += _run_table_loops(plan[0]["Plan"], Run._meta.db_table)
    # Two systems hold an embargoed run: a probe for a hidden run and one for a visible run of each is the bound
    # (one per system before: 45 and more).
    assert loops <= 4, counts
