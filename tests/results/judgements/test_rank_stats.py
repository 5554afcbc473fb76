"""Per-rank summary figures, checked against hand computation."""

import pytest

from apps.results.judgements.rank_stats import summarise_ranks


def test_a_straggler_shows_as_imbalance_and_slow_tail():
    # runtimes 10, 10, 11, 20 -> median 10.5, cut 10.5 * 1.15 = 12.075: only rank 3 is in the tail
    summary = summarise_ranks([(0, 10.0, 4.0), (1, 10.0, 4.0), (2, 11.0, 4.0), (3, 20.0, 2.0)])

    assert (summary.ranks, summary.slowest_rank, summary.fastest_rank) == (4, 3, 0)
    assert (summary.runtime_max, summary.runtime_min, summary.runtime_median) == (20.0, 10.0, 10.5)
    assert summary.imbalance == 2.0
    # throughputs 4, 4, 4, 2: mean 3.5, population sd sqrt((3 * 0.25 + 2.25) / 4) = sqrt(0.75)
    assert summary.cv == pytest.approx(0.75**0.5 / 3.5)
    assert summary.slow_tail == [3]


def test_even_ranks_have_no_tail_and_no_spread():
    summary = summarise_ranks([(1, 5.0, 7.0), (0, 5.0, 7.0)])

    assert (summary.imbalance, summary.cv, summary.slow_tail, summary.slowest_rank) == (1.0, 0.0, [], 0)


def test_a_zero_runtime_leaves_imbalance_undefined():
    assert summarise_ranks([(0, 0.0, 1.0), (1, 2.0, 1.0)]).imbalance is None


def test_no_ranks_is_an_error():
    with pytest.raises(ValueError, match="no ranks"):
        summarise_ranks([])
