"""Measure the study verdicts on held-out studies with job-level noise (known truth).

    .venv/bin/python -m bench study_verdicts [--studies N]

Generates studies with ``synth.study`` (several jobs per configuration,
each job's iterations sharing a log-normal job factor), runs ``apps.results.judgements.studies.analysis.compare``
on their points in memory (the fields ingest stores; no database) and prints, with 95 % Wilson
intervals (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``):

* the false ``different`` rate on null pairs (true ratio 1) with job noise 5-10 %;
* the power at a 20 % effect with 5 (and 4, 3) jobs a side at 5 % job noise;
* the coverage of the true ratio by ``ratio_ci`` (95 %) over every testable pair;
* how a single job a side is judged (``not_testable``, always).

``docs/studies.md`` quotes its output.
"""

from __future__ import annotations

import argparse
from collections import Counter

from scipy import stats

from apps.results.judgements.studies.analysis import Verdict, compare, comparisons_of
from synth.study import StudySpec, study_points

GROUP_AXES = ("filesystem", "api", "nodes")


def judged_pairs(spec: StudySpec, margin: float = 0.05) -> list[tuple[float, object]]:
    """(true ratio, comparison) for every config pair of the generated study."""
    points = study_points(spec)
    varying = [len({p.axes[axis] for p in points}) > 1 for axis in GROUP_AXES]
    by_key = {}
    for comparison in comparisons_of(compare(points, margin=margin, axes=["config"])):
        fixed = tuple(comparison.fixed.get(axis) for axis in GROUP_AXES)
        by_key[(*fixed, comparison.operation, comparison.a, comparison.b)] = (comparison, False)
        by_key[(*fixed, comparison.operation, comparison.b, comparison.a)] = (comparison, True)
    judged = []
    for *pair, true_ratio in spec.truth["ratios"]:
        fixed = tuple(value if vary else None for value, vary in zip(pair[:3], varying, strict=True))
        comparison, flipped = by_key[(*fixed, *pair[3:])]
        judged.append((1 / true_ratio if flipped else true_ratio, comparison))
    return judged


def wilson(successes: int, trials: int) -> str:
    if not trials:
        return "n/a"
    interval = stats.binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    return f"{successes}/{trials} = {successes / trials:.1%} (95 % Wilson {interval.low:.1%}-{interval.high:.1%})"


def null_specs(count: int) -> list[StudySpec]:
    """Studies where every config is equal (one level): all pairs are null pairs."""
    return [
        StudySpec(
            seed=1000 + index,
            filesystems={"GPFS": 0.03, "BeeGFS": 0.05},
            apis=["POSIX"],
            nodes=[2, 8],
            configs=["c1", "c2", "c3", "c4"],
            repetitions=3 + index % 3,
            effect_range=(1.0, 1.0),
            jobs=2 + index % 4,
            job_noise=(0.05, 0.075, 0.10)[index % 3],
        )
        for index in range(count)
    ]


def power_specs(count: int, jobs: int) -> list[StudySpec]:
    """Two configs per cell, 20 % apart when they differ, 5 % job noise, 3 % iteration noise."""
    return [
        StudySpec(
            seed=5000 + 100 * jobs + index,
            filesystems={"Lustre": 0.03},
            apis=["MPIIO"],
            nodes=[4, 16],
            configs=["base", "tuned"],
            repetitions=3,
            effect_range=(1.2, 1.2),
            jobs=jobs,
            job_noise=0.05,
        )
        for index in range(count)
    ]


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench study_verdicts", description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=60, help="generated studies per scenario")
    args = parser.parse_args(argv)

    null = [(ratio, c) for spec in null_specs(args.studies) for ratio, c in judged_pairs(spec)]
    verdicts = Counter(c.verdict_code for _, c in null)
    print(f"null pairs (job noise 5-10 %, 2-5 jobs a side): {Counter({k.value: v for k, v in verdicts.items()})}")
    print(f"  false different: {wilson(verdicts[Verdict.DIFFERENT], len(null))}")
    print(f"  same shown:      {wilson(verdicts[Verdict.SAME], len(null))}")
    testable = [(ratio, c) for ratio, c in null if c.ratio_ci]
    for jobs in (5, 4, 3):
        pairs = [(ratio, c) for spec in power_specs(args.studies, jobs) for ratio, c in judged_pairs(spec)]
        effects = [c for ratio, c in pairs if abs(ratio - 1) > 1e-9]
        called = sum(c.verdict_code is Verdict.DIFFERENT for c in effects)
        print(f"power at a 20 % effect, {jobs} jobs a side, 5 % job noise: {wilson(called, len(effects))}")
        testable += [(ratio, c) for ratio, c in pairs if c.ratio_ci]
    covered = sum(c.ratio_ci[0] <= ratio <= c.ratio_ci[1] for ratio, c in testable)
    print(f"ratio_ci (95 %) covers the true ratio: {wilson(covered, len(testable))}")
    single = [c for spec in power_specs(max(args.studies // 6, 1), 1) for _, c in judged_pairs(spec)]
    untestable = sum(c.verdict_code is Verdict.NOT_TESTABLE for c in single)
    print(f"one job a side, not testable: {wilson(untestable, len(single))}")
