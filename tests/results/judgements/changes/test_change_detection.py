"""Change detection on hand-made series (plain Python): what is a step, an outlier, and what is neither."""

import math
import random

import pytest

from apps.results.judgements.changes.detection import DetectionParameters, detect, noise_of

LEVEL = [100, 102, 98, 101, 99, 103, 97, 100]


def test_a_flat_series_has_no_change():
    detection = detect(LEVEL * 3)
    assert (detection.steps, detection.outliers) == ([], [])


def test_a_persistent_rise_is_one_step_at_its_first_run():
    detection = detect(LEVEL + [130 * v / 100 for v in LEVEL])
    assert [(s.before_index, s.index, s.direction) for s in detection.steps] == [(7, 8, "up")]
    # Both halves have the same noise pattern, so the ratio of geometric means is exactly 1.3.
    assert detection.steps[0].magnitude_pct == pytest.approx(30.0, abs=0.01)
    assert detection.outliers == []


def test_a_value_that_reverts_at_the_next_run_is_an_outlier_not_a_step():
    detection = detect([*LEVEL, 40, *LEVEL])
    assert [(o.index, o.direction) for o in detection.outliers] == [(8, "down")]
    assert detection.steps == []


def test_the_last_run_is_neither_until_the_next_one_says_whether_it_reverts():
    detection = detect([*LEVEL, 150])
    assert (detection.steps, detection.outliers) == ([], [])


def test_a_rise_below_the_magnitude_floor_is_not_a_step():
    quiet = [100.0] * 20 + [102.0] * 20  # exact values: the noise floor (1 %) makes +2 % 'significant'
    assert detect(quiet, parameters=DetectionParameters(prior_noise_pct=1)).steps == []  # the floor is 3 %
    assert len(detect(quiet, parameters=DetectionParameters(prior_noise_pct=1, magnitude_floor_pct=1)).steps) == 1


def test_an_annotated_baseline_marks_the_step_there_as_expected_and_nothing_else():
    series = LEVEL + [130 * v / 100 for v in LEVEL]
    steps = detect(series, baselines=[8]).steps
    assert [(s.index, s.at_baseline) for s in steps] == [(8, True)]
    assert detect(LEVEL * 2, baselines=[8]).steps == []


def test_a_step_one_run_from_a_known_input_change_moves_onto_it():
    series = [100, 101, 99, 100, 100, 114, 130, 131, 129, 130]  # 114 = 100 * sqrt(1.3): half-way in ratio
    without_hint = detect(series).steps
    assert len(without_hint) == 1
    other = 11 - without_hint[0].index  # 5 or 6: the position the fit did not choose
    assert [s.index for s in detect(series, hints=[other]).steps] == [other]


def test_noise_is_the_run_to_run_sigma_of_log_values():
    alternating = [math.exp(0.04 * (-1) ** i) for i in range(41)]  # every difference is ±0.08
    # Differences of N(0, 2 sigma^2) trimmed to |d| <= 0.08: every kept difference is 0.08, so the
    # estimate is 0.08 / (the trimmed RMS of a unit normal) / sqrt(2), above 0.04 (constant |d|).
    assert noise_of([math.log(v) for v in alternating]) > 0.04
    assert noise_of([0.0]) is None


def test_bad_input_and_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="positive"):
        detect([1, 0, 2])
    with pytest.raises(ValueError, match="unknown change-detection parameters: bogus"):
        DetectionParameters.from_mapping({"bogus": 1})
    assert detect([1, 2]).steps == []


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_the_noise_of_a_seeded_series_is_its_sigma_within_3_percent(seed):
    """4,000 log values drawn with sigma 0.03: the trimmed successive-difference estimate recovers it
    (its standard error at this length is about 1.2 %)."""
    rng = random.Random(seed)
    values = [rng.gauss(0.0, 0.03) for _ in range(4000)]
    assert noise_of(values) == pytest.approx(0.03, rel=0.03)
