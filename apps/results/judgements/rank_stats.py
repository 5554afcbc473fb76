"""How evenly the ranks of one phase shared the work: the figures behind the per-rank chart.

Plain Python on the standard library's ``statistics`` (exact, no fitting involved). Given per-rank
``(rank, runtime, throughput)`` triples:

* ``slowest_rank`` / ``fastest_rank``: the ranks with the longest / shortest runtime;
* ``imbalance`` = runtime_max / runtime_min (1.0 is perfectly even; None when a runtime is 0);
* ``cv``: coefficient of variation of the per-rank throughput (IOR) or rate (mdtest), population
  standard deviation over the mean: the share of the spread in what each rank delivered;
* ``slow_tail``: the ranks whose runtime exceeds the median by more than ``STRAGGLER_FRACTION``,
  slowest first. 0.15 is Drishti's straggler threshold (``drishti/includes/module.py``), a published
  starting point, not a value fitted to this corpus.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

STRAGGLER_FRACTION = 0.15


@dataclass
class RankSummary:
    ranks: int
    slowest_rank: int
    fastest_rank: int
    runtime_max: float
    runtime_min: float
    runtime_median: float
    imbalance: float | None
    cv: float | None
    slow_tail: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def summarise_ranks(samples: Iterable[tuple[int, float, float]]) -> RankSummary:
    """Summarise ``(rank, runtime, throughput)`` triples; ties go to the lowest rank number."""
    rows = sorted(samples)
    if not rows:
        raise ValueError("no ranks to summarise")
    runtimes = [runtime for _, runtime, _ in rows]
    throughputs = [throughput for _, _, throughput in rows]
    slowest = max(rows, key=lambda row: (row[1], -row[0]))
    fastest = min(rows, key=lambda row: (row[1], row[0]))
    median = statistics.median(runtimes)
    mean = statistics.fmean(throughputs)
    cut = median * (1 + STRAGGLER_FRACTION)
    return RankSummary(
        ranks=len(rows),
        slowest_rank=slowest[0],
        fastest_rank=fastest[0],
        runtime_max=slowest[1],
        runtime_min=fastest[1],
        runtime_median=median,
        imbalance=slowest[1] / fastest[1] if fastest[1] > 0 else None,
        cv=statistics.pstdev(throughputs) / mean if mean > 0 else None,
        slow_tail=[rank for rank, runtime, _ in sorted(rows, key=lambda row: -row[1]) if runtime > cut],
    )
