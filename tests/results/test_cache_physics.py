"""Cache rules from the physics of the run: locality, client network, client memory, and the ratio."""

import pytest

from apps.results.anomalies import PhaseFacts, RunFacts, evaluate_all
from apps.results.anomalies.cache_physics import GBIT_PER_GIB, judge
from apps.results.anomalies.facts import TaskReordering


def ior_run(read: float, write: float = 1.0, reordering: bool | None = True, **declared) -> RunFacts:
    return RunFacts(
        era="capp",
        client_nodes_declared=10,
        phases={
            "ior_easy_write": PhaseFacts(value=write, unit="GiB/s", seconds=300.0),
            "ior_easy_read": PhaseFacts(
                value=read, unit="GiB/s", seconds=100.0,
                task_reordering=None if reordering is None else TaskReordering(constant=reordering, offset=1),
            ),
        },
        **declared,
    )  # fmt: skip


def read_findings(facts: RunFacts) -> list:
    return evaluate_all(facts, rules=["cache_effect_read"])


def test_a_ratio_at_its_threshold_is_decisive_and_every_piece_is_kept():
    # 10 x the write rate >= 9.6; 10 GiB/s over 10 nodes = 8.59 Gbit/s per node, within 100 GbE
    (finding,) = read_findings(ior_run(10.0, client_network_gbit=100.0, client_memory_gib=512.0))

    assert finding.evidence["decisive"] == "ratio"
    pieces = {piece["piece"]: piece for piece in finding.evidence["cache_evidence"]}
    assert set(pieces) == {"ratio", "locality", "network", "memory"}
    assert pieces["locality"]["verdict"] == "other_node"
    assert pieces["network"]["per_node_gbit"] == pytest.approx(10.0 * GBIT_PER_GIB / 10)
    assert pieces["network"]["verdict"] == "within"
    # 10 GiB/s x 100 s / 10 nodes = 100 GiB per node, fits in 512 GiB
    assert (pieces["memory"]["data_per_node_gib"], pieces["memory"]["verdict"]) == (100.0, "fits")


def test_reading_faster_than_the_client_network_is_decisive_without_any_ratio():
    # 2x the write rate only, but 20 GiB/s over 10 nodes = 17.2 Gbit/s per node on a 10 GbE client
    (finding,) = read_findings(ior_run(20.0, write=10.0, client_network_gbit=10.0))

    assert finding.evidence["decisive"] == "network"
    assert finding.evidence["ratio"] == 2.0


def test_reads_of_the_own_nodes_data_need_only_part_of_the_ratio():
    # 8x: below 9.6, above 0.75 x 9.6 = 7.2, and no task reordering (each node reads its own data)
    (finding,) = read_findings(ior_run(8.0, reordering=False))

    assert finding.evidence["decisive"] == "ratio_with_own_data_reads"


@pytest.mark.parametrize(
    ("facts", "why"),
    [
        (ior_run(8.0, reordering=True), "reordered reads come from another node: no client cache"),
        (ior_run(8.0, reordering=None), "unknown locality: the ratio alone decides"),
        (ior_run(8.0, reordering=False, client_memory_gib=50.0), "80 GiB per node do not fit in 50 GiB"),
        (ior_run(7.0, reordering=False), "7x is below 0.75 x 9.6"),
    ],
)
def test_below_the_ratio_threshold_without_supporting_physics_nothing_is_flagged(facts, why):
    assert read_findings(facts) == [], why


def test_mdtest_stat_without_rank_shift_reads_its_own_files():
    facts = RunFacts(phases={
        "mdtest_easy_write": PhaseFacts(value=10.0, rank_shift=0),
        "mdtest_easy_stat": PhaseFacts(value=400.0, rank_shift=0),
    })  # fmt: skip

    decisive, pieces = judge(facts, "mdtest_easy_stat", 40.0, 48.0, 0.75)

    assert decisive == "ratio_with_own_data_reads"
    assert {"piece": "locality", "rank_shift": 0, "verdict": "own_data"} in pieces
    (finding,) = evaluate_all(facts, rules=["cache_effect_stat"])
    assert finding.evidence["decisive"] == "ratio_with_own_data_reads"
