"""Client-node counts from every piece of evidence (apps.results.judgements.anomalies.node_counts) and the rule that
names them."""

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.judgements.anomalies import RunFacts, evaluate_all
from apps.results.judgements.anomalies.node_counts import best_supported, node_count_evidence, resolved_client_nodes
from apps.results.models import ListEntry, Run
from tests.conftest import shared_path

ONE_PER_PROCESS = [
    {"phase": "ior_easy_write", "tool": "ior", "nodes": 420, "tasks": 420, "source_file": "ior.txt"},
    {
        "phase": "mdtest_easy_write",
        "tool": "mdtest",
        "nodes": 420,
        "tasks": 420,
        "source_file": "mdtest.txt",
        "nodemap_nodes": 10,
    },
]


def mismatch(facts: RunFacts):
    return [finding for finding in evaluate_all(facts) if finding.rule == "node_count_mismatch"]


def test_a_count_of_one_node_per_process_yields_to_the_nodemap_and_is_flagged_with_every_piece():
    facts = RunFacts(
        tool_node_counts=ONE_PER_PROCESS,
        hostfile_node_counts=[{"phase": "find", "hostfile": "cli_hosts_10", "nodes": 10}],
    )
    assert resolved_client_nodes(facts, 420) == 10
    (finding,) = mismatch(facts)
    assert finding.evidence["best_supported"] == 10
    assert {(piece["source"], piece["nodes"]) for piece in finding.evidence["pieces"]} == {
        ("tool", 420),
        ("nodemap", 10),
        ("hostfile", 10),
    }
    assert "420 task(s) on 420 node(s)" in finding.message
    assert "Nodemap in mdtest.txt places the ranks on 10 node(s) (42 ranks each)" in finding.message
    assert "cli_hosts_10" in finding.message


def test_agreeing_evidence_keeps_the_tools_count_and_stays_silent():
    facts = RunFacts(
        client_nodes_declared=10,
        tool_node_counts=[
            {"phase": "ior_easy_write", "nodes": 10, "tasks": 160},
            {"phase": "mdtest_easy_write", "nodes": 10, "tasks": 160, "nodemap_nodes": 10},
        ],
    )
    assert resolved_client_nodes(facts, 10) == 10
    assert mismatch(facts) == []


def test_a_measurement_outweighs_a_declared_count_and_the_disagreement_is_flagged():
    facts = RunFacts(
        client_nodes_declared=16,
        client_nodes_declared_source="io500_info_num_client_nodes",
        tool_node_counts=[{"phase": "ior_easy_write", "nodes": 32, "tasks": 32}],
    )
    assert resolved_client_nodes(facts, 32) == 32
    (finding,) = mismatch(facts)
    assert (finding.evidence["declared"], finding.evidence["reported"]) == (16, [32])


@pytest.mark.parametrize(
    ("counts", "labels"),
    [
        ([10, 20], []),  # two tools, no other witness: no count wins
        ([], [10, 12]),  # labels that disagree give no count
    ],
)
def test_no_count_wins_a_tie(counts, labels):
    facts = RunFacts(
        tool_node_counts=[
            {"phase": f"p{i}", "tool": f"t{i}", "nodes": n, "tasks": n * 4} for i, n in enumerate(counts)
        ],
        hostfile_node_counts=[{"phase": f"h{i}", "hostfile": f"hosts_{n}", "nodes": n} for i, n in enumerate(labels)],
    )
    assert best_supported(node_count_evidence(facts)) is None
    assert resolved_client_nodes(facts, counts[0] if counts else None) is None


@pytest.mark.corpus
@pytest.mark.django_db
def test_frontera_isc20_is_listed_on_10_nodes_with_a_flag_naming_the_disagreeing_evidence():
    """TACC Frontera's ISC20 run: mdtest and IOR print "420 task(s) on 420 node(s)"; its Nodemap and its hostfile
    (cli_hosts_10) say 10 nodes, as the IO500's own record does (expected.csv official_client_nodes)."""
    ingest_path(shared_path("io500-corpus", "TACC", "Frontera", "DAOS", "2020", "submission-13"))
    run = Run.objects.get()
    assert (run.client_nodes, run.client_procs, run.procs_per_node) == (10, 420, 42)
    anomaly = run.anomalies.get(rule="node_count_mismatch")
    sources = {piece["source"]: piece["nodes"] for piece in anomaly.evidence["pieces"]}
    assert sources == {"tool": 420, "nodemap": 10, "hostfile": 10}
    assert "cli_hosts_10" in anomaly.message
    assert set(ListEntry.objects.filter(run=run).values_list("client_nodes", flat=True)) <= {10}


CONTAINER_RUN = [
    {"phase": "ior_easy_write", "tool": "ior", "nodes": 10, "tasks": 160, "source_file": "ior-easy.txt"},
    {
        "phase": "mdtest_easy_write",
        "tool": "mdtest",
        "nodes": 10,
        "tasks": 160,
        "source_file": "mdtest-easy.txt",
        "nodemap_nodes": 1,
    },
]


def test_a_nodemap_of_one_node_cannot_outweigh_the_tools_count_of_several():
    """Containers: every rank reports the same host name, so mdtest's Nodemap puts all 160 ranks on rank 0's node
    while IOR and mdtest count 160 tasks on 10 nodes."""
    facts = RunFacts(tool_node_counts=CONTAINER_RUN)
    assert resolved_client_nodes(facts, 1) == 10
    assert best_supported(node_count_evidence(facts)) == 10


def test_a_nodemap_of_one_node_still_wins_over_a_count_of_one_node_per_process():
    pieces = [
        {"phase": "ior_easy_write", "tool": "ior", "nodes": 16, "tasks": 16, "source_file": "ior.txt"},
        {"phase": "mdtest_easy_write", "tool": "mdtest", "nodes": 16, "tasks": 16, "nodemap_nodes": 1},
    ]
    assert resolved_client_nodes(RunFacts(tool_node_counts=pieces), 16) == 1
