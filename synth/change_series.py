"""Held-out histories for judging change detection series by series (docs/changes.md, "Benchmark").

Plain numpy, no Django: `history(seed)` returns one system's IO500 history as 15 metric series (12 phases,
score_bw, score_md, score) with the truth injected into it. It is deliberately disjoint from the shared
sample (../shared/history-sample: noise 3-4 %, steps at a provenance change, 3+ runs a level) and from the
old generator (synth/history.py: noise 3-5 %, steps of 18 % or more, 4+ runs apart):

- other systems: phase scales drawn per seed (x0.1 to x10 of a 2024 run), 14 to 40 runs;
- noise 1-8 % per phase (a system's base noise, x0.7-1.3 per phase), Gaussian in half the systems and
  Student-t with 3-5 degrees of freedom (heavy tails, scaled to the same standard deviation) in the others;
- job-level noise: a share (0-50 %) of each run's noise variance is common to all its phases, as when a
  whole job runs on a busy night; it does not average out in the derived scores;
- levels of 3-6 runs, so steps can be three runs apart; 2 to 6 events a history;
- each event moves 1-3 phases of one group (one phase in half the events) by 5-60 % up or down (as a ratio:
  down 30 % is x1/1.3), or nothing (one event in eight, a provenance change only);
- three events in ten change nothing recorded (no provenance change): an unexplained step;
- wild runs: in half the systems one or two injected one-off outliers (x1.3-2.5 or its inverse, one phase,
  interior, not next to an event or another outlier).

The derived scores are computed from the phases as IO500 does (geometric means), so a step of one metadata
phase moves score_md by an eighth of it and score by a sixteenth. Their true steps are recorded with that
shift; their noise is the phases' noise averaged plus the job-level part.

Detectability of a true step: ``z = |ln(1+step)| / (sigma * sqrt(1/n_before + 1/n_after))`` with the
metric's own noise and the runs of the metric's levels on each side (from the metric's previous true step
to its next one).

Neutral findings (neither required nor false): an outlier at a run whose noise draw was beyond 5 sigma (a
Student-t tail: a wild run is an outlier), and a derived score's outlier at an injected phase outlier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

BW = ["ior_easy_write", "ior_hard_write", "ior_easy_read", "ior_hard_read"]
MD = [
    "mdtest_easy_write",
    "mdtest_hard_write",
    "find",
    "mdtest_easy_stat",
    "mdtest_hard_stat",
    "mdtest_easy_delete",
    "mdtest_hard_read",
    "mdtest_hard_delete",
]
PHASES = BW + MD
DERIVED = ["score_bw", "score_md", "score"]
METRICS = PHASES + DERIVED
#: A noise draw beyond this many sigma is a wild run: reporting it as an outlier is not counted false.
WILD_SIGMAS = 5.0
#: Seeds the detector's parameters may be tuned on; everything reported comes from HELD_OUT.
TRAINING = range(1, 101)
HELD_OUT = range(1001, 1201)


@dataclass
class TrueStep:
    metric: str
    index: int  # first run at the new level
    log_shift: float
    explained: bool  # a provenance change at `index`
    z: float = 0.0

    @property
    def pct(self) -> float:
        return 100 * math.expm1(abs(self.log_shift))


@dataclass
class History:
    seed: int
    length: int
    values: dict[str, np.ndarray]
    sigma: dict[str, float]
    hints: set[int]  # runs whose provenance differs from the run before
    steps: list[TrueStep] = field(default_factory=list)
    outliers: set[tuple[str, int]] = field(default_factory=set)
    neutral_outliers: set[tuple[str, int]] = field(default_factory=set)


def history(seed: int) -> History:
    rng = np.random.default_rng(seed)
    levels = [int(rng.integers(3, 7)) for _ in range(int(rng.integers(3, 8)))]
    while sum(levels) > 40:
        levels.pop()
    length = sum(levels)
    boundaries = list(np.cumsum(levels)[:-1])
    base = rng.uniform(0.01, 0.08)
    sigma = {p: float(np.clip(base * rng.uniform(0.7, 1.3), 0.01, 0.08)) for p in PHASES}
    job_share = rng.uniform(0, 0.5)
    job_sigma = math.sqrt(job_share) * base
    df = None if rng.random() < 0.5 else int(rng.integers(3, 6))

    def draws(size, scale):
        if df is None:
            return rng.normal(0, 1, size) * scale
        return rng.standard_t(df, size) * scale * math.sqrt((df - 2) / df)

    job = draws(length, job_sigma)
    own_sigma = {p: math.sqrt(max(sigma[p] ** 2 - job_sigma**2, (0.3 * sigma[p]) ** 2)) for p in PHASES}
    sigma = {p: math.sqrt(own_sigma[p] ** 2 + job_sigma**2) for p in PHASES}
    noise = {p: draws(length, own_sigma[p]) + job for p in PHASES}
    level = {p: np.full(length, math.log(rng.uniform(0.1, 10))) for p in PHASES}

    hints: set[int] = set()
    true: list[TrueStep] = []
    for boundary in boundaries:
        explained = rng.random() >= 0.3
        if explained:
            hints.add(int(boundary))
        if rng.random() < 0.125:
            continue
        group = BW if rng.random() < 0.5 else MD
        count = 1 if rng.random() < 0.5 else int(rng.integers(2, 4))
        for phase in rng.choice(group, count, replace=False):
            shift = float(rng.choice([-1, 1]) * math.log1p(rng.uniform(0.05, 0.6)))
            level[phase][boundary:] += shift
            true.append(TrueStep(str(phase), int(boundary), shift, explained))

    logs = {p: level[p] + noise[p] for p in PHASES}
    outliers: set[tuple[str, int]] = set()
    if rng.random() < 0.5:
        quiet = [i for i in range(1, length - 1) if all(abs(i - b) >= 2 and i != b - 1 for b in boundaries)]
        for _ in range(int(rng.integers(1, 3))):
            if not quiet:
                break
            index = int(rng.choice(quiet))
            phase = str(rng.choice(PHASES))
            logs[phase][index] += float(rng.choice([-1, 1]) * math.log(rng.uniform(1.3, 2.5)))
            outliers.add((phase, index))
            quiet = [i for i in quiet if abs(i - index) > 1]

    logs["score_bw"] = np.mean([logs[p] for p in BW], axis=0)
    logs["score_md"] = np.mean([logs[p] for p in MD], axis=0)
    logs["score"] = (logs["score_bw"] + logs["score_md"]) / 2

    def averaged(phases):
        return math.sqrt(job_sigma**2 + sum(own_sigma[p] ** 2 for p in phases) / len(phases) ** 2)

    sigma["score_bw"], sigma["score_md"] = averaged(BW), averaged(MD)
    sigma["score"] = math.sqrt(
        job_sigma**2 + (sum(own_sigma[p] ** 2 for p in BW) / 16 + sum(own_sigma[p] ** 2 for p in MD) / 64) / 4
    )
    by_place: dict[int, list[TrueStep]] = {}
    for step in true:
        by_place.setdefault(step.index, []).append(step)
    for index, moved in by_place.items():
        bw = sum(s.log_shift for s in moved if s.metric in BW) / len(BW)
        md = sum(s.log_shift for s in moved if s.metric in MD) / len(MD)
        for metric, shift in (("score_bw", bw), ("score_md", md), ("score", (bw + md) / 2)):
            if shift:
                true.append(TrueStep(metric, index, shift, moved[0].explained))

    noise["score_bw"] = np.mean([noise[p] for p in BW], axis=0)
    noise["score_md"] = np.mean([noise[p] for p in MD], axis=0)
    noise["score"] = (noise["score_bw"] + noise["score_md"]) / 2
    neutral = {
        (metric, int(i))
        for metric in METRICS
        for i in np.flatnonzero(np.abs(noise[metric]) > WILD_SIGMAS * sigma[metric])
    }
    neutral |= {(metric, index) for _, index in outliers for metric in DERIVED}
    for step in true:
        places = sorted({0, length, *(s.index for s in true if s.metric == step.metric)})
        position = places.index(step.index)
        before, after = step.index - places[position - 1], places[position + 1] - step.index
        step.z = abs(step.log_shift) / (sigma[step.metric] * math.sqrt(1 / before + 1 / after))
    return History(seed, length, {m: np.exp(logs[m]) for m in METRICS}, sigma, hints, true, outliers, neutral)
