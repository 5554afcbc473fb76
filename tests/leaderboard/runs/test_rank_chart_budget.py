"""A per-rank chart draws at most a few thousand bars, whatever the number of ranks an upload reports: past
RANK_CHART_BARS, evenly spaced ranks of the sorted order (the fastest and the slowest among them) and the slow tail."""

from apps.leaderboard.runs import charts
from apps.results.models import PhaseRankStats

RANKS = 50_000


def stats_of(seconds: list[float], slow_tail: list[int]) -> PhaseRankStats:
    return PhaseRankStats(
        phase="ior_easy_write",
        ranks=len(seconds),
        imbalance=max(seconds) / min(seconds),
        slow_tail=slow_tail,
        per_rank=[[rank, value] for rank, value in enumerate(seconds)],
    )


def test_a_chart_of_fifty_thousand_ranks_draws_a_sample_with_the_ends_and_the_slow_tail():
    seconds = [10.0 + (rank * 7919 % RANKS) / RANKS for rank in range(RANKS)]
    tail = sorted(range(RANKS), key=seconds.__getitem__)[-5:]

    (trace,) = charts.rank_runtimes(stats_of(seconds, tail))["data"]

    assert len(trace["x"]) <= 2 * charts.RANK_CHART_BARS
    assert (trace["x"][0], trace["x"][-1]) == (0, RANKS - 1)
    assert (trace["y"][0], trace["y"][-1]) == (min(seconds), max(seconds))
    assert trace["y"] == sorted(trace["y"])
    assert {f"rank {rank}" for rank in tail} <= {text.split(":")[0] for text in trace["hovertext"]}


def test_a_chart_of_a_few_hundred_ranks_draws_every_rank():
    seconds = [1.0 + rank / 100 for rank in range(300)]

    (trace,) = charts.rank_runtimes(stats_of(seconds, [299]))["data"]

    assert trace["x"] == list(range(300))
