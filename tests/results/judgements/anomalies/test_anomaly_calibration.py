"""The calibration helpers behind `python -m bench anomaly_calibration` and the corpus test."""

import pytest

from apps.results.judgements.anomalies import PhaseFacts, RunFacts
from apps.results.judgements.anomalies.calibration import (
    agreement,
    load_expected_labels,
    percentile,
    phase_ratios,
    round_significant,
    submission_id,
    suggested_ratio_threshold,
)


def run_with(**values) -> RunFacts:
    return RunFacts(phases={name: PhaseFacts(value=value) for name, value in values.items()})


def test_percentile_interpolates_linearly():
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.9) == pytest.approx(4.6)


def test_percentile_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="no values"):
        percentile([], 0.5)


@pytest.mark.parametrize(("value", "rounded"), [(48.38, 48.0), (216.5, 220.0), (9.59, 9.6), (0.01234, 0.012)])
def test_thresholds_keep_two_significant_digits(value, rounded):
    assert round_significant(value) == rounded


def test_the_suggested_threshold_is_five_times_the_90th_percentile():
    """By hand: the 90th percentile of 2, 4, 6, 8, 10 sits at position 0.9 * 4 = 3.6, so 8 + 0.6 * 2 = 9.2;
    five times that is 46, already two significant digits."""
    assert suggested_ratio_threshold([2.0, 4.0, 6.0, 8.0, 10.0]) == pytest.approx(46.0)


def test_the_suggested_threshold_is_rounded_to_two_significant_digits():
    """By hand: the 90th percentile of 1, 2, 3, 100 sits at position 2.7, so 3 + 0.7 * 97 = 70.9;
    five times that is 354.5, rounded to 350."""
    assert suggested_ratio_threshold([1.0, 2.0, 3.0, 100.0]) == pytest.approx(350.0)


def test_ratios_skip_runs_without_both_positive_phases():
    runs = [
        run_with(mdtest_easy_stat=10.0, mdtest_easy_write=2.0),
        run_with(mdtest_easy_stat=10.0, mdtest_easy_write=0.0),
        run_with(mdtest_easy_stat=10.0),
    ]

    assert phase_ratios(runs, "mdtest_easy_stat", "mdtest_easy_write") == [5.0]


def test_a_result_set_belongs_to_its_submission_folder():
    assert submission_id("DKRZ/Mistral/lustre02/2019/submission-109/JCAHPC/results") == "109"
    assert submission_id("somewhere/else") is None


def test_expected_labels_are_read_per_submission(tmp_path):
    labels = tmp_path / "expected.csv"
    labels.write_text(
        "path,submission_id,anomaly_kinds\na/submission-3,3,cache_effect_stat;duplicate_submission\nb,4,\n"
    )

    assert load_expected_labels(labels) == {"3": {"cache_effect_stat", "duplicate_submission"}, "4": set()}


def test_agreement_counts_recall_and_false_positives_per_submission():
    expected = {"1": {"cache_effect_stat"}, "2": {"cache_effect_stat"}, "3": set(), "4": set()}
    flagged = {"1": {"cache_effect_stat"}, "3": {"cache_effect_stat"}}

    (tally,) = agreement(flagged, expected, {"cache_effect_stat": "cache_effect_stat"})

    assert (tally.recall, tally.missed) == (0.5, ["2"])
    assert (tally.false_positive_rate, tally.false_positives) == (0.5, ["3"])
