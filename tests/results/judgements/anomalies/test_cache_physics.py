"""Cache rules from the physics of the run and from corroboration, as docs/anomalies.md specifies them.

The ratio thresholds (9.6x ior-easy, 44x ior-hard, 48x/220x stat) are 5 x the corpus p90 of each
ratio; supporting evidence lowers the ratio needed to p90 x 5 ** (1 / (1 + total weight)).
"""

import pytest

from apps.results.judgements.anomalies import PhaseFacts, RunFacts, evaluate_all
from apps.results.judgements.anomalies.cache_physics import GBIT_PER_GIB
from apps.results.judgements.anomalies.facts import TaskReordering

REORDERED = TaskReordering(constant=True, offset=1)  # -C -Q 1, as io500 runs IOR
OWN_DATA = TaskReordering()  # no -C, no -Z: each task reads back what it wrote


def io500_run(
    easy_read: float = 1.1,
    hard_read: float = 2.0,
    easy_stat: float = 3.0,
    reordering: TaskReordering | None = REORDERED,
    rank_shift: int = 1,
    client_nodes: int = 10,
    **declared,
) -> RunFacts:
    """A run (10 nodes unless told) with every write at 1 GiB/s (300 s) / 10 kIOPS; reads and stats given as ratios.

    The defaults sit at the corpus medians: nothing in it looks cached.
    """

    def ior(value: float, seconds: float = 300.0, read: bool = False) -> PhaseFacts:
        return PhaseFacts(value=value, unit="GiB/s", seconds=seconds, task_reordering=reordering if read else None)

    def mdtest(value: float) -> PhaseFacts:
        return PhaseFacts(value=value, unit="kIOPS", seconds=300.0, rank_shift=rank_shift)

    return RunFacts(
        era="capp",
        client_nodes_declared=client_nodes,
        phases={
            "ior_easy_write": ior(1.0),
            "ior_easy_read": ior(easy_read, seconds=300.0 / easy_read, read=True),
            "ior_hard_write": ior(1.0),
            "ior_hard_read": ior(hard_read, seconds=300.0 / hard_read, read=True),
            "mdtest_easy_write": mdtest(10.0),
            "mdtest_easy_stat": mdtest(10.0 * easy_stat),
            "mdtest_hard_write": mdtest(10.0),
            "mdtest_hard_stat": mdtest(30.0),
            "mdtest_hard_read": mdtest(20.0),
        },
        **declared,
    )


def findings(facts: RunFacts, rule: str = "cache_effect_read") -> dict[str, object]:
    return {finding.phase: finding for finding in evaluate_all(facts, rules=[rule])}


def pieces_of(finding) -> dict[str, dict]:
    return {piece["piece"]: piece for piece in finding.evidence["cache_evidence"]}


def test_a_run_at_the_corpus_medians_is_not_flagged():
    assert findings(io500_run()) == {}
    assert findings(io500_run(), "cache_effect_stat") == {}


# -- The two held-out misses of the issue --------------------------------------------------------


def test_an_ior_easy_read_at_5_4x_of_its_own_data_that_fits_in_client_memory_is_a_cache_effect():
    """Held-out miss 1: ior-easy read at 5.4x its write rate, no task reordering, the data per node
    (5.4 GiB/s x 55.6 s / 10 nodes = 30 GiB) within the client memory (256 GiB)."""
    facts = io500_run(easy_read=5.4, reordering=OWN_DATA, client_memory_gib=256.0)

    finding = findings(facts)["ior_easy_read"]

    pieces = pieces_of(finding)
    assert pieces["locality"]["verdict"] == "own_data"
    assert pieces["memory"]["verdict"] == "fits"
    assert pieces["memory"]["data_per_node_gib"] == pytest.approx(30.0)
    assert finding.evidence["ratio"] == pytest.approx(5.4)
    assert finding.evidence["threshold"] == 9.6  # below the ratio threshold: the physics decides
    assert finding.evidence["decisive"] == "locality"
    assert "each node read its own data" in finding.message


def test_an_ior_easy_read_at_8_3x_with_11_6x_on_ior_hard_is_a_cache_effect_by_the_other_read_alone():
    """Held-out miss 2: ior-easy 8.3x, ior-hard 11.6x (beyond its p90 of 44 / 5 = 8.8), and the
    mdtest-easy stats 60x the creates. IOR ran with -C as io500 does. The stat cache effect no longer
    corroborates (it added false positives and no recall on the corpus): the unusual ior-hard read, weight
    0.69, brings the need to 1.92 x 5 ** (1 / 1.69) = 4.98x."""
    facts = io500_run(easy_read=8.3, hard_read=11.6, easy_stat=60.0)

    assert "mdtest_easy_stat" in findings(facts, "cache_effect_stat")
    finding = findings(facts)["ior_easy_read"]

    pieces = pieces_of(finding)
    assert (pieces["sibling_read"]["phase"], pieces["sibling_read"]["verdict"]) == ("ior_hard_read", "unusual")
    assert "stat_cache" not in pieces
    assert pieces["locality"]["verdict"] == "other_node"
    assert finding.evidence["decisive"] == "sibling_read"
    assert finding.evidence["required_ratio"] == pytest.approx(1.92 * 5 ** (1 / 1.69))
    assert "another node's data" in finding.message  # the reordering is named: not the node's own cache


@pytest.mark.parametrize(
    ("facts", "why"),
    [
        (io500_run(easy_read=8.3), "8.3x alone, read back with -C, stays below 9.6x"),
        # the other IOR read beyond its p90 weighs 0.69: 1.92 x 5 ** (1 / 1.69) = 4.98x is needed
        (io500_run(easy_read=4.0, hard_read=11.6), "4x with an unusual ior-hard read"),
    ],
)
def test_less_than_the_misses_showed_is_not_flagged(facts, why):
    assert "ior_easy_read" not in findings(facts), why


# -- Task reordering ------------------------------------------------------------------------------


def test_reordered_reads_below_the_threshold_get_no_help_from_the_client_cache_physics():
    """-C makes each node read another node's data: its own cache cannot serve it, whatever the ratio
    below the threshold, and the data fitting in memory does not matter."""
    for ratio in (5.4, 8.0, 9.5):
        facts = io500_run(easy_read=ratio, reordering=REORDERED, client_memory_gib=256.0)
        assert findings(facts) == {}, ratio


def test_a_reordered_read_beyond_the_threshold_is_flagged_by_the_ratio_and_names_the_reordering():
    finding = findings(io500_run(easy_read=12.0, reordering=REORDERED))["ior_easy_read"]

    assert finding.evidence["decisive"] == "ratio"
    assert pieces_of(finding)["locality"]["task_reordering"] == {"constant": True, "random": False, "offset": 1}
    assert pieces_of(finding)["locality"]["weight"] == 0.0
    assert "each node read another node's data (task reordering), so not from its own client cache" in finding.message


def test_on_one_client_node_task_reordering_cannot_take_the_read_off_the_node():
    """-C shifts each task to another node's data only when there is another node (hpc/ior#328): on one
    node a 5.4x read of data that fits in memory (5.4 GiB/s x 55.6 s = 300 GiB of 512 GiB) is the first
    held-out miss again."""
    facts = io500_run(easy_read=5.4, reordering=REORDERED, client_memory_gib=512.0, client_nodes=1)
    finding = findings(facts)["ior_easy_read"]
    assert pieces_of(finding)["locality"]["verdict"] == "own_data"
    assert pieces_of(finding)["locality"]["client_nodes"] == 1


@pytest.mark.parametrize(
    ("shift", "nodes", "verdict"), [(2, 2, "own_data"), (4, 2, "own_data"), (1, 2, "other_node"), (3, 10, "other_node")]
)
def test_a_constant_shift_by_a_multiple_of_the_node_count_comes_back_to_the_writing_node(shift, nodes, verdict):
    facts = io500_run(easy_read=12.0, reordering=TaskReordering(constant=True, offset=shift), client_nodes=nodes)
    assert pieces_of(findings(facts)["ior_easy_read"])["locality"]["verdict"] == verdict


# -- Network and memory ---------------------------------------------------------------------------


def test_reading_faster_than_the_client_network_is_decisive_without_any_ratio():
    # 2x the write rate only, but 2 GiB/s over 10 nodes = 1.72 Gbit/s per node on a 1 Gbit/s client link
    finding = findings(io500_run(easy_read=2.0, client_network_gbit=1.0))["ior_easy_read"]

    assert finding.evidence["decisive"] == "network"
    assert pieces_of(finding)["network"]["per_node_gbit"] == pytest.approx(2.0 * GBIT_PER_GIB / 10)


def test_data_that_does_not_fit_in_the_client_memory_cannot_have_come_from_its_cache():
    # 5.4 GiB/s x 55.6 s / 10 nodes = 30 GiB per node, more than 16 GiB of client memory
    facts = io500_run(easy_read=5.4, reordering=OWN_DATA, client_memory_gib=16.0)

    assert findings(facts) == {}


def test_a_ratio_at_its_threshold_keeps_every_piece_in_the_evidence():
    facts = io500_run(easy_read=10.0, reordering=OWN_DATA, client_network_gbit=100.0, client_memory_gib=512.0)

    finding = findings(facts)["ior_easy_read"]

    assert finding.evidence["decisive"] == "ratio"
    assert set(pieces_of(finding)) == {"ratio", "locality", "network", "memory", "sibling_read"}


# -- The combination ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "required"),
    [
        ({}, 9.6),  # no support: the threshold, 1.92 x 5
        ({"reordering": OWN_DATA}, 1.92 * 5 ** (1 / 2)),  # weight 1: 4.29x
        ({"reordering": OWN_DATA, "hard_read": 11.6}, 1.92 * 5 ** (1 / 3)),  # weights 1 + 1: 3.28x
    ],
)
def test_each_supporting_piece_of_weight_1_takes_a_further_root_of_the_multiple(changes, required):
    """By hand, for ior-easy (p90 = 9.6 / 5 = 1.92) with both weights at 1."""
    thresholds = {"cache_weight_ior_own_data": 1.0, "cache_weight_sibling_read": 1.0}

    def easy_read_flagged(ratio: float) -> bool:
        found = evaluate_all(io500_run(easy_read=ratio, **changes), thresholds, rules=["cache_effect_read"])
        return any(finding.phase == "ior_easy_read" for finding in found)

    assert easy_read_flagged(required * 1.01)
    assert not easy_read_flagged(required * 0.99)


def test_mdtest_stats_without_rank_shift_are_recorded_as_reading_their_own_files_but_weigh_nothing():
    """Without -N an mdtest stat reads its own files; on the corpus that support (then weight 0.7) flagged
    sub-42 and sub-63 out of sample and found no labelled stat cache effect the ratio missed: it goes."""
    assert findings(io500_run(easy_stat=40.0, rank_shift=0), "cache_effect_stat") == {}  # 40x < 48x

    finding = findings(io500_run(easy_stat=50.0, rank_shift=0), "cache_effect_stat")["mdtest_easy_stat"]

    assert finding.evidence["decisive"] == "ratio"
    assert finding.evidence["required_ratio"] == pytest.approx(48.0)
    assert pieces_of(finding)["locality"] == {"piece": "locality", "rank_shift": 0, "client_nodes": 10,
                                              "verdict": "own_data", "weight": 0.0}  # fmt: skip


def test_a_stat_cache_effect_does_not_corroborate_the_mdtest_hard_read_of_the_same_metadata_path():
    facts = io500_run(easy_stat=60.0)
    facts.phases["mdtest_hard_read"] = PhaseFacts(value=10.0 * 80, unit="kIOPS", rank_shift=1)  # 80x < 88x

    assert "mdtest_hard_read" not in findings(facts)
