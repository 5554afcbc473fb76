"""Change points in one short, irregular series of benchmark results: steps and one-off outliers.

Plain Python (numpy, scipy, ruptures); no Django. `detect(values)` takes one (system, metric) series in
time order and returns the persistent steps and the single-run outliers in it.

Why this method
---------------
A site's history of one metric is short (3 to a few hundred runs), irregular in time and noisy by a few
per cent from run to run; what changes it is a discrete event (an upgrade, a patch, a tunable), after
which the level stays put. That is a piecewise-constant signal, so the model is asv's: a step fit of
the log values (ratios, not differences, are what a storage team reads) with the L2 cost and a BIC-like
penalty ``beta * sigma**2 * ln(n)`` per change point, solved exactly by Pelt (no greedy splitting).
It runs as `ruptures.KernelCPD` with the linear kernel, whose cost is that same L2 cost and whose Pelt is
compiled: 300 runs take milliseconds where `ruptures.Pelt(model="l2")` (pure Python) takes seconds.
conbench's lookback z-score needs a long stable window before each point and Mann-Whitney/t-test alerts
(LNT, perfherder) compare fixed windows; both lose the short histories this is for.

The noise ``sigma`` comes from the series itself, robustly: the trimmed root mean square of the
successive differences, leaving out those across a known change of the inputs (``hints``, below), which
are not run-to-run noise (a step spoils one difference and an outlier two; the largest quarter, and at
least two, are dropped), scaled to a standard deviation, shrunk towards a prior when the series is
short (``prior_noise_pct`` counted as ``prior_weight`` differences), never below ``noise_floor_pct``.

Then each proposed step must pass on its own: the two neighbouring segments' geometric means differ
by at least ``magnitude_floor_pct`` and by ``step_sigmas`` standard errors (a z-test with the robust
sigma; its two-sided p-value gives the confidence). A step that fails is merged away and its
neighbours are judged again. A segment has at least ``min_segment`` runs, so one run alone never makes
a step: a single value that reverts at the next run is an **outlier**, found before the step fit (it
deviates by ``outlier_sigmas`` and the magnitude floor from the median level of up to three runs on
each side, in the same direction) and left out of it. The last run of a series is neither: until the
next run arrives, nobody can tell whether it reverts.

Known change points of the inputs may be given as ``hints`` (runs whose provenance differs from the
run before): a step found one run away from a hint moves onto it when that costs less than
``snap_sigmas**2`` in the fit, since noise can shift a boundary by one run but a file system changes
at an upgrade. ``baselines`` (annotations of an expected change) start a new baseline: the series is
fitted piece by piece, nothing is compared across the boundary except the boundary itself, and a
step there is reported with ``at_baseline=True``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import ruptures
from scipy.stats import norm

UP, DOWN = "up", "down"
# The noise estimate ignores the largest quarter of the successive differences, and at least two of them.
DROPPED_SHARE = 0.25
DROPPED_AT_LEAST = 2
NEIGHBOURS = 3
# The noise is measured again inside the levels found while that lowers it by more than this factor.
REFINE_BELOW = 0.9


@dataclass(frozen=True)
class DetectionParameters:
    """The knobs; `settings.IOBOARD_CHANGE_DETECTION` overrides any of them (see docs/changes.md)."""

    min_segment: int = 2
    penalty_beta: float = 6.0
    step_sigmas: float = 4.0
    magnitude_floor_pct: float = 3.0
    outlier_sigmas: float = 6.0
    noise_floor_pct: float = 1.0
    prior_noise_pct: float = 4.0
    prior_weight: int = 4
    snap_sigmas: float = 2.0

    @classmethod
    def from_mapping(cls, overrides: dict | None) -> DetectionParameters:
        overrides = dict(overrides or {})
        unknown = set(overrides) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown change-detection parameters: {', '.join(sorted(unknown))}")
        return cls(**overrides)


@dataclass(frozen=True)
class Step:
    """A persistent change: `index` is the first run at the new level, `before_index` the last run before."""

    before_index: int
    index: int
    direction: str
    magnitude_pct: float
    confidence: float
    z: float = 0.0
    at_baseline: bool = False


@dataclass(frozen=True)
class Outlier:
    index: int
    direction: str
    magnitude_pct: float
    confidence: float
    z: float = 0.0


@dataclass
class Detection:
    steps: list[Step] = field(default_factory=list)
    outliers: list[Outlier] = field(default_factory=list)
    noise: float | None = None  # sigma of the log values (0.04 is about 4 % run-to-run)


def noise_of(log_values: Sequence[float] | np.ndarray, pieces: Iterable[tuple[int, int]] | None = None) -> float | None:
    """Robust run-to-run sigma of log values, from successive differences inside each piece; None if none.

    The root mean square of the smallest three quarters of the differences, scaled to a standard deviation:
    a step spoils one difference and an outlier two, and trimming a quarter drops them, while keeping
    three quarters wastes less of a short series than the median does (about twice the efficiency).
    """
    values = np.asarray(log_values, dtype=float)
    pieces = list(pieces) if pieces is not None else [(0, len(values))]
    differences = np.concatenate([np.diff(values[start:end]) for start, end in pieces] or [np.array([])])
    if differences.size == 0:
        return None
    dropped = max(DROPPED_AT_LEAST, math.ceil(DROPPED_SHARE * differences.size))
    keep = max(1, differences.size - dropped)
    kept = np.sort(np.abs(differences))[:keep]
    return float(np.sqrt(np.mean(kept**2)) / _trimmed_rms_of_unit_normal(keep / differences.size) / math.sqrt(2))


def _trimmed_rms_of_unit_normal(share: float) -> float:
    """The root mean square of a standard normal variable within its central `share` (|z| <= q)."""
    if share >= 1:
        return 1.0
    q = norm.ppf(0.5 + share / 2)
    return math.sqrt((share - 2 * q * norm.pdf(q)) / share)


def detect(
    values: Sequence[float],
    *,
    baselines: Iterable[int] = (),
    hints: Iterable[int] = (),
    parameters: DetectionParameters | None = None,
) -> Detection:
    """Steps and outliers of a series of positive values in time order.

    `baselines`: indices of runs that start a new baseline (an expected change). `hints`: indices of runs
    whose inputs differ from the run before; steps one run away move onto them when the fit allows.
    """
    parameters = parameters or DetectionParameters()
    series = np.asarray(values, dtype=float)
    if series.size and (not np.all(np.isfinite(series)) or np.any(series <= 0)):
        raise ValueError("change detection needs positive, finite values")
    detection = Detection()
    if series.size < 3:
        return detection
    log_values = np.log(series)
    bounds = sorted({0, series.size, *(b for b in baselines if 0 < b < series.size)})
    pieces = list(itertools.pairwise(bounds))
    hints = set(hints)
    sigma = _shrunk_noise(log_values, _quiet_pieces(pieces, hints), parameters)
    while True:
        detection = Detection(noise=sigma, outliers=_outliers(log_values, pieces, sigma, parameters))
        kept = np.array(sorted(set(range(series.size)) - {o.index for o in detection.outliers}))
        detection.steps = _steps(log_values, kept, pieces, sigma, hints, parameters)
        # Once more with the noise measured inside the levels found: the steps and outliers of a short
        # series inflate the first estimate, and an inflated noise hides the next step.
        cuts = {0, kept.size} | {
            int(np.searchsorted(kept, index))
            for index in [s.index for s in detection.steps] + [start for start, _ in pieces]
        }
        refined = _shrunk_noise(log_values[kept], list(itertools.pairwise(sorted(cuts))), parameters)
        if refined >= REFINE_BELOW * sigma:
            return detection
        sigma = refined


def _quiet_pieces(pieces, hints: set[int]) -> list[tuple[int, int]]:
    """The pieces cut at every input change too: a difference across an upgrade is not run-to-run noise.

    Unless the inputs change so often that fewer than half the differences would be left.
    """
    bounds = sorted({bound for piece in pieces for bound in piece} | hints)
    quiet = [(start, end) for start, end in itertools.pairwise(bounds) if end - start > 1]
    remaining = sum(end - start - 1 for start, end in quiet)
    total = sum(end - start - 1 for start, end in pieces)
    return quiet if remaining * 2 >= total else list(pieces)


def _shrunk_noise(log_values: np.ndarray, pieces, parameters: DetectionParameters) -> float:
    measured = noise_of(log_values, pieces)
    count = sum(end - start - 1 for start, end in pieces)
    prior = math.log1p(parameters.prior_noise_pct / 100)
    if measured is None:
        sigma = prior
    else:
        weight = parameters.prior_weight
        sigma = math.sqrt((count * measured**2 + weight * prior**2) / (count + weight))
    return max(sigma, math.log1p(parameters.noise_floor_pct / 100))


def _confidence(z: float) -> float:
    """1 - the two-sided p-value of a standard normal statistic."""
    return float(1 - 2 * norm.sf(abs(z)))


def _pct(log_ratio: float) -> float:
    return 100 * math.expm1(log_ratio)


def _outliers(log_values: np.ndarray, pieces, sigma: float, parameters: DetectionParameters) -> list[Outlier]:
    floor = math.log1p(parameters.magnitude_floor_pct / 100)
    found: list[Outlier] = []
    for start, end in pieces:
        flagged: set[int] = set()
        for index in range(start + 1, end - 1):
            before = [log_values[i] for i in range(start, index) if i not in flagged][-NEIGHBOURS:]
            after = log_values[index + 1 : min(end, index + 1 + NEIGHBOURS)]
            if not before:
                continue
            from_before = log_values[index] - float(np.median(before))
            from_after = log_values[index] - float(np.median(after))
            if from_before * from_after <= 0:
                continue
            smaller = min(abs(from_before), abs(from_after))
            if smaller < parameters.outlier_sigmas * sigma or smaller < floor:
                continue
            flagged.add(index)
            deviation = (from_before + from_after) / 2
            found.append(
                Outlier(
                    index=index,
                    direction=UP if deviation > 0 else DOWN,
                    magnitude_pct=_pct(deviation),
                    confidence=_confidence(smaller / sigma),
                    z=smaller / sigma,
                )
            )
    return found


def _steps(
    log_values: np.ndarray, kept: np.ndarray, pieces, sigma: float, hints: set[int], parameters: DetectionParameters
) -> list[Step]:
    """Steps on the runs that are not outliers: Pelt per piece, then every boundary judged on its own."""
    series = log_values[kept]
    boundaries: list[int] = [0]  # positions in `series` where a segment starts
    forced: set[int] = set()
    for start, end in pieces:
        positions = np.flatnonzero((kept >= start) & (kept < end))
        if positions.size == 0:
            continue
        first = int(positions[0])
        if first:
            boundaries.append(first)
            forced.add(first)
        piece = series[positions]
        boundaries.extend(first + cut for cut in _pelt(piece, sigma, parameters))
    boundaries.append(series.size)
    boundaries = _judge(series, sorted(set(boundaries)), forced, sigma, parameters)
    boundaries = _snap(series, kept, boundaries, forced, hints, sigma, parameters)
    scale = max(sigma, _residual_sigma(series, boundaries))
    steps = []
    for left, cut, right in zip(boundaries[:-2], boundaries[1:-1], boundaries[2:], strict=True):
        z, shift = _z(series, left, cut, right, scale)
        if cut in forced and not _significant(z, shift, parameters):
            continue
        steps.append(
            Step(
                before_index=int(kept[cut - 1]),
                index=int(kept[cut]),
                direction=UP if shift > 0 else DOWN,
                magnitude_pct=_pct(shift),
                confidence=_confidence(z),
                z=abs(z),
                at_baseline=cut in forced,
            )
        )
    return steps


def _pelt(piece: np.ndarray, sigma: float, parameters: DetectionParameters) -> list[int]:
    if piece.size < 2 * parameters.min_segment:
        return []
    penalty = parameters.penalty_beta * sigma**2 * math.log(piece.size)
    algorithm = ruptures.KernelCPD(kernel="linear", min_size=parameters.min_segment, jump=1).fit(piece.reshape(-1, 1))
    return [int(cut) for cut in algorithm.predict(pen=penalty)[:-1]]


def _z(series: np.ndarray, left: int, cut: int, right: int, sigma: float) -> tuple[float, float]:
    """The shift of the robust log level across `cut`, and that shift in its standard errors.

    Medians, so that one wild run in a level moves neither the shift nor the verdict much, and a level of one
    or two runs counts as its run nearer the other level (one wild run next to the last run is not a new
    level). The standard error of a median of n runs is ``sqrt(pi/2) * sigma / sqrt(n)`` (its large-sample
    efficiency against the mean), of one or two runs ``sigma / sqrt(n)``.
    """
    before, after = series[left:cut], series[cut:right]
    level_before = _level(before, float(np.median(after)))
    shift = float(_level(after, level_before) - level_before)
    error = sigma * math.sqrt(_median_variance(before.size) + _median_variance(after.size))
    return shift / error, shift


def _level(segment: np.ndarray, other_level: float) -> float:
    """A segment's robust level: its median, or for one or two runs the run nearest the other level."""
    if segment.size > 2:
        return float(np.median(segment))
    return float(segment[np.argmin(np.abs(segment - other_level))])


def _median_variance(runs: int) -> float:
    """The variance of the median of `runs` unit-variance normal values, to the large-sample approximation."""
    return (1.0 if runs <= 2 else math.pi / 2) / runs


def _significant(z: float, shift: float, parameters: DetectionParameters) -> bool:
    return abs(z) >= parameters.step_sigmas and abs(_pct(shift)) >= parameters.magnitude_floor_pct


def _judge(
    series: np.ndarray, boundaries: list[int], forced: set[int], sigma: float, parameters: DetectionParameters
) -> list[int]:
    """Drop the weakest boundary that fails the magnitude or z test, then judge the rest again.

    The z test uses the larger of the series' noise and the scatter around the fitted levels: a run of
    successive differences that happen to be small must not make an ordinary wander look significant.
    """
    boundaries = list(boundaries)
    while True:
        scale = max(sigma, _residual_sigma(series, boundaries))
        failing = []
        for position in range(1, len(boundaries) - 1):
            cut = boundaries[position]
            if cut in forced:
                continue
            z, shift = _z(series, boundaries[position - 1], cut, boundaries[position + 1], scale)
            if not _significant(z, shift, parameters):
                failing.append((abs(z), position))
        if not failing:
            return boundaries
        del boundaries[min(failing)[1]]


def _residual_sigma(series: np.ndarray, boundaries: list[int]) -> float:
    """Standard deviation around the segment means (degrees of freedom: points minus segments)."""
    freedom = series.size - (len(boundaries) - 1)
    if freedom <= 0:
        return 0.0
    cost = sum(_sse(series[left:right]) for left, right in itertools.pairwise(boundaries))
    return math.sqrt(cost / freedom)


def _sse(values: np.ndarray) -> float:
    return float(((values - values.mean()) ** 2).sum())


def _snap(
    series: np.ndarray,
    kept: np.ndarray,
    boundaries: list[int],
    forced: set[int],
    hints: set[int],
    sigma: float,
    parameters: DetectionParameters,
) -> list[int]:
    """Move a step by one run onto a known change of the inputs when the fit barely differs."""
    boundaries = list(boundaries)
    tolerance = parameters.snap_sigmas**2 * sigma**2
    for position in range(1, len(boundaries) - 1):
        left, cut, right = boundaries[position - 1 : position + 2]
        if cut in forced or int(kept[cut]) in hints:
            continue
        cost = _sse(series[left:cut]) + _sse(series[cut:right])
        for moved in (cut - 1, cut + 1):
            if moved - left < parameters.min_segment or right - moved < parameters.min_segment:
                continue
            if int(kept[moved]) not in hints:
                continue
            if _sse(series[left:moved]) + _sse(series[moved:right]) - cost <= tolerance:
                boundaries[position] = moved
                break
    return boundaries
