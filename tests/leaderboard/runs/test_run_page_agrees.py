"""A run page reads the same facts as the lists: node count, edition, awards, track medians, flags and words."""

from datetime import UTC, datetime

import pytest

from apps.results.judgements.anomalies import RunFacts
from apps.results.models import ListState
from tests.factories import AnomalyFactory, RunFactory

pytestmark = pytest.mark.django_db

PRODUCTION = {
    "run_timestamp": datetime(2024, 3, 1, tzinfo=UTC),
    "reproducibility_level": "fully_reproducible",
    "production_accepted": True,
}


def facts(**fields) -> dict:
    return RunFacts(era="capp", benchmark_version="io500-isc24_v1", run_date="2024-03-01", **fields).to_dict()


def html(client, run) -> str:
    return client.get(f"/runs/{run.pk}/").content.decode()


def row(page: str, clause: str) -> str:
    start = page.index(f"<code>{clause}</code>")
    return page[start : page.index("</tr>", start)]


def test_the_rules_table_uses_the_client_nodes_the_lists_use(client):
    # The tools' counts disagree (so the facts alone name no count); the run is listed on 10 nodes.
    run = RunFactory(
        client_nodes=10,
        facts=facts(
            tool_node_counts=[
                {"phase": "ior_easy_write", "nodes": 10, "tasks": 160},
                {"phase": "mdtest_easy_write", "nodes": 160},
            ]
        ),
    )
    page = html(client, run)
    assert "client node count unknown" not in page
    assert "10 client nodes: eligible for the 10-node list" in row(page, "IO500-TEN-NODE-CLIENTS")
    assert "10 client nodes: eligible for awards" in row(page, "IO500-AWARD-MIN-NODES")
    assert "gives no awards" not in page


def test_the_rules_heading_names_the_release_and_the_list_of_the_run_date(client):
    run = RunFactory(run_timestamp=datetime(2024, 3, 1, tzinfo=UTC), facts=facts())
    page = html(client, run)
    assert "Submission rules of ISC24" in page
    assert "its run date places it on the ISC24 list" in page


def test_outcomes_and_levels_are_words_not_identifiers(client):
    run = RunFactory(
        facts=RunFacts(era="capp", benchmark_version="io500-isc24_v1", run_date="2024-03-01").to_dict(),
        run_timestamp=datetime(2024, 3, 1, tzinfo=UTC),
    )
    page = html(client, run)
    assert ">not applicable<" in page
    assert "not_applicable" not in page


def test_evidence_reads_as_a_table_not_a_dump(client):
    run = RunFactory()
    AnomalyFactory(
        run=run,
        rule="node_count_mismatch",
        evidence={
            "pieces": [{"source": "tool", "nodes": 420, "detail": "mdtest reports 420 task(s) on 420 node(s)"}],
            "best_supported": 10,
            "reported": [420],
            "valid": False,
        },
    )
    page = html(client, run)
    evidence = page[page.index('class="compact evidence"') :]
    evidence = evidence[: evidence.index("</details>")]
    for header in ("<th>source</th>", "<th>nodes</th>", "<th>detail</th>"):  # jsonb keeps no key order
        assert header in evidence
    assert "best supported" in evidence
    for dump in ("[{", "{'", '{"', "['", "None", "False"):
        assert dump not in evidence


def test_a_flagged_ranked_run_says_it_is_ranked_with_its_warnings(client):
    run = RunFactory()
    AnomalyFactory(run=run, rule="write_phase_under_minimum", severity="warn")
    page = html(client, run)
    assert "ranked, with 1 warning" in page
    assert ">eligible for ranking<" not in page


def test_a_production_run_is_drawn_against_the_production_medians(
    client, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        run = RunFactory(score_bw=100, score_md=100, **PRODUCTION)
        RunFactory(score_bw=1, score_md=1)  # research
    assert ListState.objects.get(kind="production").phase_medians
    response = client.get(f"/runs/{run.pk}/")
    assert response.context["medians_list"].slug == "production"
    assert "Phases against the Production list" in response.content.decode()
    _this_run, median = response.context["chart"]["data"][:2]
    assert median["y"][0] == pytest.approx(100.0)  # the production run itself, not the research run's 1.0


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([3.0, 450.0], ["10", "100"]),  # decades when the data spans two or more
        ([30.0, 90.0], ["20", "50", "100"]),  # within a decade: 2 and 5 multiples, written in full
        ([1200.0, 4800.0], ["1,000", "2,000", "5,000"]),  # never a bare "5" above 1000
    ],
)
def test_log_axes_are_labelled_with_full_numbers(values, expected):
    from apps.leaderboard.common.plotly_json import log_ticks

    assert log_ticks(values)[1] == expected
