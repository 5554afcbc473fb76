"""Pages keep their plans when the planner's statistics call the tables empty (autovacuum off, no ANALYZE
after a bulk load). PostgreSQL only: SQLite has no planner statistics to go stale.

Worst is when the empty tables still hold pages (the rolled-back rows of earlier tests, or a load deleted by
`seed_synthetic --replace`): PostgreSQL then reckons every table at one row however much is loaded after, and
picks nested loops that scan a whole index for every row. The IO500 list's medians took 81 s and page 20 of the
historic list 0.5 s in that state before both were made to keep off such plans.

That state is set here, not waited for: `pg_class.reltuples = 0` with `relpages = 1` on the run, phase and
entry tables is exactly "pages that hold no rows" to the planner, whatever the tables hold. The tests then
assert the *plans* PostgreSQL makes of the statements the code runs (`EXPLAIN (FORMAT JSON)`), which a
machine's load cannot move, instead of a wall-clock bound, which it can.
"""

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from apps.results.models import ListEntry, PhaseResult, Run
from apps.results.services import list_entries

pytestmark = pytest.mark.django_db

RUNS = 300  # enough for page 2 of a list (50 a page); the estimates, not the rows, make the plan


@pytest.fixture
def loaded_on_stale_statistics(monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's; run with DATABASE_URL=postgres://...")
    monkeypatch.setattr(list_entries, "analyze", lambda *models: None)
    call_command("seed_synthetic", "--runs", str(RUNS), "--batch", "2000")
    with connection.cursor() as cursor:
        for model in (Run, PhaseResult, ListEntry):
            cursor.execute(
                "UPDATE pg_class SET reltuples = 0, relpages = 1 WHERE oid = %s::regclass", [model._meta.db_table]
            )
        cursor.execute("SELECT min(reltuples) FROM pg_class WHERE oid = %s::regclass", [Run._meta.db_table])
        assert cursor.fetchone()[0] == 0


def plan_of(statements: list[str]) -> dict:
    """PostgreSQL's plan of the last statement, run after the others (``SET LOCAL`` ones) in one transaction."""
    with transaction.atomic(), connection.cursor() as cursor:
        for statement in statements[:-1]:
            cursor.execute(statement)
        cursor.execute(f"EXPLAIN (FORMAT JSON) {statements[-1]}")
        (document,) = cursor.fetchone()[0]
    return document["Plan"]


def nodes(plan: dict):
    yield plan
    for child in plan.get("Plans", []):
        yield from nodes(child)


def test_the_list_medians_read_each_listed_runs_phases_by_the_run_index(loaded_on_stale_statistics):
    """On one-row estimates PostgreSQL joined phases to entries by a nested loop that read the whole entry index
    for every phase row (81 s at 4,000 runs), and a hash join reads every phase of every run. The medians' work
    must be the list's size: the ranked entries first, then each one's phases through the phase table's run
    index, never a scan of the whole phase table."""
    with CaptureQueriesContext(connection) as captured:
        medians = list_entries.phase_medians("io500")
    statements = [query["sql"] for query in captured.captured_queries]
    select = next(index for index, sql in enumerate(statements) if "percentile_cont" in sql)
    settings = [sql for sql in statements[:select] if sql.upper().startswith("SET ")]

    plan = plan_of([*settings, statements[select]])

    assert medians, "no medians: the list is empty"
    phases, entries = PhaseResult._meta.db_table, ListEntry._meta.db_table
    (loop,) = [node for node in nodes(plan) if node["Node Type"] == "Nested Loop"]
    outer, inner = loop["Plans"]
    assert entries in {node.get("Relation Name") for node in nodes(outer)}
    phase_reads = [node for node in nodes(inner) if node.get("Relation Name") == phases]
    assert [node["Node Type"] for node in phase_reads] == ["Index Scan"]
    assert "run_id" in phase_reads[0]["Index Cond"]
    assert "Seq Scan" not in {node["Node Type"] for node in nodes(plan) if node.get("Relation Name") == phases}


def test_a_page_past_the_first_reads_its_run_ids_first_and_plans_no_loop_over_a_limit(
    client, loaded_on_stale_statistics
):
    """Page 2 of the historic list: the page's run ids in a query of their own (LIMIT/OFFSET), then the
    entries of those ids; as an `IN (subquery)` the LIMIT was re-run inside a nested loop for every entry."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/lists/historic/?page=2")
    assert response.status_code == 200
    entries = ListEntry._meta.db_table
    statements = [query["sql"] for query in captured.captured_queries if f'FROM "{entries}"' in query["sql"]]
    ids_first = next(index for index, sql in enumerate(statements) if "OFFSET 50" in sql)
    page = next(index for index, sql in enumerate(statements) if f'"{entries}"."run_id" IN (' in sql)

    assert ids_first < page
    outer_where = statements[page].rsplit(" WHERE ", 1)[1].split(" ORDER BY ", 1)[0]  # the select list's come first
    assert "run_id" in outer_where
    assert "LIMIT" not in outer_where
    plan = plan_of([statements[page]])
    for loop in (node for node in nodes(plan) if node["Node Type"] == "Nested Loop"):
        assert "Limit" not in {node["Node Type"] for node in nodes(loop)}, "a LIMIT re-run inside a nested loop"


def test_every_page_answers_on_stale_statistics(client, loaded_on_stale_statistics):
    run = Run.objects.filter(client_nodes=10).order_by("pk").first() or Run.objects.order_by("pk").first()
    listed = ListEntry.objects.filter(kind="io500").values_list("run_id", flat=True)[:2]
    pages = [
        "/lists/io500/",
        "/lists/io500/?filesystem=Lustre&nodes_min=10&sort=-bw",
        "/lists/ten-node/",
        "/lists/ten-node/?sort=-md",
        "/lists/historic/?page=2",
        "/lists/historic/?sort=nodes&year=2020",
        f"/runs/{run.pk}/",
        f"/systems/{run.system.pk}/",
        f"/compare/?runs={','.join(map(str, listed))}",
        "/api/v1/lists/io500/",
        "/api/v1/lists/ten-node/?nodes_min=10",
        "/api/v1/lists/historic/?ordering=-bw",
        "/api/v1/runs/?page_size=50",
        f"/api/v1/runs/{run.pk}/",
    ]
    for url in pages:
        assert client.get(url).status_code == 200, url
