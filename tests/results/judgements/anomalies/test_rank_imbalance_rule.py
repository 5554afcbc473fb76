"""rank_imbalance: a phase whose slowest rank ran far longer than its fastest."""

from apps.results.judgements.anomalies import RunFacts, evaluate_all


def run_with_phase(runtime_max: float, runtime_min: float, ranks: int = 30) -> RunFacts:
    stats = {"ranks": ranks, "slowest_rank": 7, "fastest_rank": 3, "runtime_max": runtime_max,
             "runtime_min": runtime_min, "runtime_median": runtime_min, "imbalance": runtime_max / runtime_min,
             "cv": 0.2, "slow_tail": [7], "stonewall_pairs": {"min": 19723, "max": 34605},
             "source_file": "r/ior-easy-write.csv"}  # fmt: skip
    return RunFacts(rank_stats={"ior_easy_write": stats})


def test_a_phase_with_a_straggler_is_flagged_with_its_ranks_as_evidence():
    # (500 - 200) / 500 = 0.6 >= 0.48
    (finding,) = evaluate_all(run_with_phase(500.0, 200.0), rules=["rank_imbalance"])

    assert (finding.severity, finding.phase) == ("warn", "ior_easy_write")
    assert finding.evidence["time_imbalance"] == 0.6
    assert (finding.evidence["slowest_rank"], finding.evidence["fastest_rank"]) == (7, 3)
    assert finding.evidence["stonewall_pairs"] == {"min": 19723, "max": 34605}


def test_an_even_phase_is_not_flagged():
    # (500 - 300) / 500 = 0.4 < 0.48
    assert evaluate_all(run_with_phase(500.0, 300.0), rules=["rank_imbalance"]) == []


def test_the_threshold_can_be_lowered_to_drishtis():
    assert evaluate_all(run_with_phase(500.0, 300.0), {"rank_time_imbalance": 0.30}, rules=["rank_imbalance"])


def test_a_single_rank_or_no_rank_data_says_nothing():
    assert evaluate_all(run_with_phase(500.0, 100.0, ranks=1), rules=["rank_imbalance"]) == []
    assert evaluate_all(RunFacts(), rules=["rank_imbalance"]) == []
