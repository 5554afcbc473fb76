"""Pages stay fast when the planner's statistics predate a bulk load (autovacuum off, no ANALYZE yet).

Before list entries were maintained, the 10-node list, run and system pages planned a nested-loop
anti-join on a "one row" estimate right after seed_synthetic and ran past gunicorn's timeout. The
statistics here are gathered on empty tables, then a few thousand runs are loaded without ANALYZE:
every page must still answer within a bound that a quadratic plan over these rows cannot meet.
PostgreSQL only: SQLite has no planner statistics to go stale.

Worst is when the empty tables still hold pages (the rolled-back rows of earlier tests in the same test
database, or a load deleted by `seed_synthetic --replace`): PostgreSQL then reckons every table at one row
however much is loaded after, and picks nested loops that scan a whole index for every row. In the suite's
order that is the state here: the IO500 list's medians took 81 s and page 20 of the historic list 0.5 s
before both were made to keep off such plans.
"""

import time

import pytest
from django.core.management import call_command
from django.db import connection

from apps.results import list_entries
from apps.results.models import ListEntry, ListState, Run

pytestmark = pytest.mark.django_db

RUNS = 4000
#: Far above what these pages take on these rows (a few ms each), far below a quadratic plan over them.
BOUND_SECONDS = 0.5
#: A list's statistics read every phase of its entries once (tens of ms here); quadratic, they took 81 s.
STATISTICS_BOUND_SECONDS = 3


@pytest.fixture
def loaded_on_stale_statistics(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's; run with DATABASE_URL=postgres://...")
    list_entries.analyze_after_bulk_write()  # statistics of the empty tables: "no rows"
    monkeypatch.setattr(list_entries, "analyze", lambda *models: None)
    call_command("seed_synthetic", "--runs", str(RUNS), "--batch", "2000")
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [Run._meta.db_table])
        assert cursor.fetchone()[0] <= 0, "the run table was analysed after all"


def test_every_page_answers_within_the_bound_on_stale_statistics(client, loaded_on_stale_statistics):
    run = Run.objects.filter(client_nodes=10).order_by("pk").first()
    system = run.system
    listed = ListEntry.objects.filter(kind="io500").values_list("run_id", flat=True)[:2]
    pages = [
        "/lists/io500/", "/lists/io500/?filesystem=Lustre&nodes_min=10&sort=-bw", "/lists/ten-node/",
        "/lists/ten-node/?sort=-md", "/lists/historic/?page=20", "/lists/historic/?sort=nodes&year=2020",
        f"/runs/{run.pk}/", f"/systems/{system.pk}/", f"/compare/?runs={','.join(map(str, listed))}",
        "/api/v1/lists/io500/", "/api/v1/lists/ten-node/?nodes_min=10", "/api/v1/lists/historic/?ordering=-bw",
        "/api/v1/runs/?page_size=50", f"/api/v1/runs/{run.pk}/",
    ]
    for url in pages:
        client.get(url)  # connection and template warm-up
        started = time.monotonic()
        response = client.get(url)
        elapsed = time.monotonic() - started
        assert response.status_code == 200, url
        assert elapsed < BOUND_SECONDS, f"{url} took {elapsed:.2f} s on stale statistics"


def test_a_lists_statistics_are_refreshed_within_the_bound_on_stale_statistics(loaded_on_stale_statistics):
    ListState.objects.filter(kind="io500").update(statistics_stale=True, phase_medians={})
    started = time.monotonic()
    list_entries.refresh_statistics("io500")
    elapsed = time.monotonic() - started
    assert ListState.objects.get(kind="io500").phase_medians, "the medians were not refreshed"
    assert elapsed < STATISTICS_BOUND_SECONDS, f"the IO500 list's statistics took {elapsed:.2f} s on stale statistics"
