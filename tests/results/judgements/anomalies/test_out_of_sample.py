"""The out-of-sample calibration procedure: no run is judged with thresholds fitted on itself."""

import pytest

from apps.results.judgements.anomalies import PhaseFacts, RunFacts
from apps.results.judgements.anomalies.calibration import (
    MIN_TRAINING_RUNS,
    fit_cache_weights,
    fit_rank_imbalance,
    fit_ratio_thresholds,
    folder_year,
    held_out_rules,
    institution_of,
    piece_weight,
    split_by_institution,
    split_by_year,
)
from apps.results.judgements.anomalies.facts import TaskReordering


def run(path: str, easy_read_ratio: float = 1.0) -> RunFacts:
    return RunFacts(
        source_path=path,
        phases={"ior_easy_write": PhaseFacts(value=1.0), "ior_easy_read": PhaseFacts(value=easy_read_ratio)},
    )


def corpus(years=(2019, 2020, 2021), per_year=MIN_TRAINING_RUNS) -> list[RunFacts]:
    return [
        run(f"Site{n % 3}/System/FS/{year}/submission-{year * 100 + n}", easy_read_ratio=1.0 + n / per_year)
        for year in years
        for n in range(per_year)
    ]


def test_layout_gives_year_and_institution():
    assert folder_year("DKRZ/Mistral/lustre02/2019/submission-109/JCAHPC/results") == 2019
    assert institution_of("DKRZ/Mistral/lustre02/2019/submission-109") == "DKRZ"


def test_forward_chaining_trains_only_on_earlier_years_and_skips_years_without_enough_history():
    splits = split_by_year(corpus())

    assert [sorted({folder_year(r.source_path) for r in judged}) for _, judged in splits] == [[2020], [2021]]
    for training, judged in splits:
        (year,) = {folder_year(r.source_path) for r in judged}
        assert all(folder_year(r.source_path) < year for r in training)


def test_leave_one_institution_out_never_trains_on_the_judged_institution():
    splits = split_by_institution(corpus())

    assert len(splits) == 3
    for training, judged in splits:
        judged_sites = {institution_of(r.source_path) for r in judged}
        assert judged_sites.isdisjoint(institution_of(r.source_path) for r in training)


def test_the_fit_is_five_times_the_90th_percentile_of_the_training_ratios():
    # ratios 1..10: p90 by linear interpolation = 9.1, x5 = 45.5 -> two significant digits 46
    training = [run(f"S/s/f/2019/submission-{n}", easy_read_ratio=float(n)) for n in range(1, 11)]

    assert fit_ratio_thresholds(training)["read_over_write_ior_easy"] == 46.0


def test_a_judged_run_cannot_move_its_own_threshold():
    """An extreme run in the judged fold is flagged with the training fold's threshold, not its own."""
    runs = corpus(years=(2019, 2020))
    extreme = run("Other/System/FS/2020/submission-999", easy_read_ratio=1000.0)
    seen = []

    def evaluate(facts, thresholds):
        seen.append((facts.source_path, thresholds["read_over_write_ior_easy"]))
        ratio = facts.phases["ior_easy_read"].value / facts.phases["ior_easy_write"].value
        return {"cache_effect_read"} if ratio >= thresholds["read_over_write_ior_easy"] else set()

    flagged = held_out_rules([*runs, extreme], "by_year", evaluate)

    assert flagged["999"] == {"cache_effect_read"}
    # the 2019 ratios 1.00, 1.05 ... 1.95: p90 = 1.855 (position 17.1), x5 = 9.275 -> 9.3
    assert {threshold for _, threshold in seen} == {9.3}
    assert not any(submission.startswith("2019") for submission in flagged)


@pytest.mark.parametrize("split", ["by_year", "by_institution"])
def test_every_judged_submission_is_listed_even_when_nothing_fires(split):
    flagged = held_out_rules(corpus(), split, lambda facts, thresholds: set())

    assert flagged
    assert all(rules == set() for rules in flagged.values())


def with_imbalances(*fractions: float) -> RunFacts:
    return RunFacts(
        source_path="S/s/f/2023/submission-1",
        rank_stats={f"p{n}": {"runtime_max": 100.0, "runtime_min": 100.0 * (1 - f)} for n, f in enumerate(fractions)},
    )


def test_the_rank_imbalance_fit_starts_from_drishti_and_rises_to_the_95th_percentile():
    even = [with_imbalances(0.01, 0.02, 0.03)]
    # 21 phases 0.00 .. 1.00 in steps of 0.05: p95 at position 19 = 0.95
    spread = [with_imbalances(*(n / 20 for n in range(21)))]

    assert fit_rank_imbalance(even) == 0.30
    assert fit_rank_imbalance(spread) == pytest.approx(0.95)
    assert fit_rank_imbalance([RunFacts()]) is None


@pytest.mark.parametrize(
    ("present", "known", "weight"),
    [
        (0, 98, 1.0),  # share 1/100: log(100) / log(10) = 2, at most 1
        (8, 98, 1.0),  # share 9/100 = 0.09, rarer than a ratio beyond p90
        (18, 98, 0.72),  # share 19/100: log(1 / 0.19) / log(10) = 0.721
        (0, 0, 0.3),  # never known: share 1/2, log(2) / log(10) = 0.301
        (98, 98, 0.0),  # every run shows it: share 99/100, log(1 / 0.99) / log(10) = 0.0044
    ],
)
def test_a_piece_weighs_its_rarity_against_a_ratio_beyond_p90(present, known, weight):
    assert piece_weight(present, known) == pytest.approx(weight, abs=0.005)


def ior_run(path: str, reordered: bool) -> RunFacts:
    reordering = TaskReordering(constant=reordered, offset=1 if reordered else None)
    return RunFacts(
        source_path=path,
        phases={
            "ior_easy_write": PhaseFacts(value=1.0, unit="GiB/s"),
            "ior_easy_read": PhaseFacts(value=1.0, unit="GiB/s", task_reordering=reordering),
        },
    )


def test_the_weight_of_reading_own_data_is_how_rare_it_is_among_the_training_runs():
    # 3 of 8 runs read without reordering: share (3 + 1) / (8 + 2) = 0.4, log(2.5) / log(10) = 0.398 -> 0.4
    training = [ior_run(f"S/s/f/2019/submission-{n}", reordered=n >= 3) for n in range(8)]

    assert fit_cache_weights(training, {})["cache_weight_ior_own_data"] == 0.4


def test_the_weights_a_judged_run_sees_are_fitted_on_the_other_runs_only():
    """Every judged run of 2020 reads its own data; the training runs of 2019 never do, so the
    weight the judged runs get stays 1 (share 1 / (20 + 2)), not what their own fold would give."""
    runs = [ior_run(f"S{n % 3}/s/f/2019/submission-{n}", reordered=True) for n in range(MIN_TRAINING_RUNS)]
    runs += [ior_run(f"S{n % 3}/s/f/2020/submission-{100 + n}", reordered=False) for n in range(MIN_TRAINING_RUNS)]
    seen = set()

    def evaluate(facts, thresholds):
        seen.add(thresholds["cache_weight_ior_own_data"])
        return set()

    held_out_rules(runs, "by_year", evaluate)

    assert seen == {1.0}
