"""Analysis of a parameter study: pivots, pairwise comparisons with verdicts, in words.

A study is a set of points; each point is one configuration (its *axes*: api, hints, nodes, file
system...) and one operation, with the max/min/mean/stddev IOR printed and the per-iteration values.
Inputs are any objects with the ``StudyPoint`` attribute names (model rows or plain records).

**Which axes are held fixed.** Some columns follow from others: a hint-set label describes the hint
set, ``tasks`` is ``nodes`` x processes per node. Such a column *travels with* its axis: when a
comparison varies an axis X, every axis that is a function of X over the study's points varies with
it, and only the other (independent) axes are held fixed. Without this rule, "hint4 vs hint7 with the
label fixed" would never find a pair.

**The unit of replication is the job.** One log (``log_hash``) is one job: its iterations share the
job's node placement, striping and cache state, so they are not independent replicates of the
configuration, and a test that counted them as such would give p-values far too small whenever jobs
differ more than iterations do (they do on shared file systems). Each job is summarised by its mean
(IOR's printed mean of its iterations; the average of the iterations when no mean was printed), and
the jobs are the sample. A mixed model with a job random effect would use the iterations too, but
with 2-5 jobs a side its variance components are barely estimable (REML often puts the job variance
at zero, which is the error this replaces), it needs statsmodels, and with equal iteration counts the
test on job means is the exact test of that model's fixed effect anyway.

**The test.** Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``: two configurations need
not share a variance) on the logarithms of the job means. Storage noise is multiplicative (a
configuration twice as fast varies twice as much in MiB/s), so on the log scale the variances are
comparable and the difference of means is the log of the ratio reported. SciPy's own
``confidence_interval`` of that difference (Welch's degrees of freedom), exponentiated, is the
ratio's interval. With 2-5 jobs a side a rank test cannot reach p < 0.05 at all.

**Multiple comparisons.** A group (one operation, one axis, one set of fixed values) holds
k(k-1)/2 pairs, so the p-values are corrected with Holm's step-down method within each group: it
controls the family-wise error rate at ``alpha`` without assuming independence, and is uniformly
more powerful than Bonferroni. SciPy has no Holm (``false_discovery_control`` is Benjamini-Hochberg,
which controls the false discovery rate, a weaker promise than "this group has no false positive"),
and statsmodels is not a dependency, so Holm is the ten lines of ``holm_adjust`` below.

**Verdicts** (``Verdict``), with the study's ``margin`` m (default 5 %):

* ``not_testable``: either side has fewer than 2 jobs (or the job means do not vary at all);
* ``different``: Holm-adjusted p < alpha and the faster side is at least (1 + m) times the slower:
  a significant difference too small to matter is not reported as one;
* ``same``: the 90 % confidence interval of the ratio lies within [1/(1+m), 1+m] - two one-sided
  tests at 5 % (TOST), the standard test of equivalence;
* ``inconclusive``: neither.

The margin's bounds are symmetric on the log scale, so "a is 1.05x b" and "b is 1.05x a" are judged
alike; ``different`` and ``same`` cannot both hold (one needs the ratio outside the bounds, the other
its whole interval inside them).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from itertools import combinations
from typing import Any

from scipy import stats

DEFAULT_ALPHA = 0.05
DEFAULT_MARGIN = 0.05
MIN_JOBS = 2
RATIO_CI_LEVEL = 0.95
EQUIVALENCE_CI_LEVEL = 0.90  # two one-sided tests at 5 % each


class Verdict(StrEnum):
    NOT_TESTABLE = "not_testable"
    DIFFERENT = "different"
    SAME = "same"
    INCONCLUSIVE = "inconclusive"


@dataclass
class WelchResult:
    """Welch's test of two sides' log job means: the raw p-value and the ratio's intervals."""

    p_value: float
    ratio_ci: tuple[float, float]  # 95 %
    equivalence_ci: tuple[float, float]  # 90 %


@dataclass
class Comparison:
    operation: str
    axis: str
    a: Any
    b: Any
    fixed: dict[str, Any]
    mean_a: float | None  # geometric mean of side a's job means
    mean_b: float | None
    p_raw: float | None
    jobs: tuple[int, int] = (0, 0)
    welch: WelchResult | None = None
    margin: float = DEFAULT_MARGIN
    alpha: float = DEFAULT_ALPHA
    p_value: float | None = None  # Holm-adjusted within the group
    travelling: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """The ratio of the two sides' geometric means of job means: what is tested and what ``ratio_ci``
        bounds; with one job a side, mean(a)/mean(b) as printed."""
        if self.mean_a is None or not self.mean_b:
            return None
        return self.mean_a / self.mean_b

    @property
    def ratio_ci(self) -> tuple[float, float] | None:
        return self.welch.ratio_ci if self.welch else None

    @property
    def verdict_code(self) -> Verdict:
        if self.welch is None or self.p_value is None or self.ratio is None:
            return Verdict.NOT_TESTABLE
        if self.p_value < self.alpha and max(self.ratio, 1 / self.ratio) >= 1 + self.margin:
            return Verdict.DIFFERENT
        low, high = self.welch.equivalence_ci
        if 1 / (1 + self.margin) <= low and high <= 1 + self.margin:
            return Verdict.SAME
        return Verdict.INCONCLUSIVE

    @property
    def significant(self) -> bool:
        """Whether the verdict is ``different``: significant and at least the margin."""
        return self.verdict_code is Verdict.DIFFERENT

    def as_dict(self) -> dict[str, Any]:
        ratio_ci = self.ratio_ci
        return {
            "operation": self.operation,
            "axis": self.axis,
            "a": self.a,
            "b": self.b,
            "fixed": dict(self.fixed),
            "p_value": _rounded(self.p_value),
            "ratio": _rounded(self.ratio),
            "significant": self.significant,
            "verdict": self.verdict_code.value,
            "ratio_ci": [_rounded(ratio_ci[0]), _rounded(ratio_ci[1])] if ratio_ci else None,
            "jobs": list(self.jobs),
        }

    @property
    def verdict(self) -> str:
        """The comparison in words, e.g. "hint4 is 2.9x faster than hint7 (write; CephFS, MPIIO, 8 nodes,
        95 % CI 2.6-3.2x, p=0.001, 5 and 5 jobs)"."""
        where = describe_fixed(self.fixed)
        context = f"{self.operation}; {where}" if where else self.operation
        a, b = describe_value(self.axis, self.a), describe_value(self.axis, self.b)
        code = self.verdict_code
        if code is Verdict.NOT_TESTABLE:
            return f"{a} vs {b}: not testable, {self.reason_untestable} ({context}{self._measured()})"
        evidence = f"{self._interval()}, p={self.p_value:.2g}, {self.jobs[0]} and {self.jobs[1]} jobs"
        if code is Verdict.DIFFERENT:
            ratio = self.ratio or 0.0
            faster, slower, factor = (a, b, ratio) if ratio >= 1 else (b, a, 1 / ratio)
            return f"{faster} is {factor:.2g}x faster than {slower} ({context}, {evidence})"
        if code is Verdict.SAME:
            return f"{a} and {b} are the same within ±{self.margin_words} ({context}, {evidence})"
        return (
            f"{a} vs {b}: inconclusive, neither a difference of {self.margin_words} or more nor sameness "
            f"within ±{self.margin_words} shown ({context}, {evidence})"
        )

    @property
    def verdict_label(self) -> str:
        """The verdict alone, for a table cell: "2.9x faster", "same within ±5 %", "not testable"."""
        code = self.verdict_code
        if code is Verdict.DIFFERENT:
            ratio = self.ratio or 0.0
            return f"{ratio:.2g}x faster" if ratio >= 1 else f"{1 / ratio:.2g}x slower"
        if code is Verdict.SAME:
            return f"same within ±{self.margin_words}"
        return "inconclusive" if code is Verdict.INCONCLUSIVE else "not testable"

    @property
    def margin_words(self) -> str:
        return margin_words(self.margin)

    @property
    def reason_untestable(self) -> str:
        if min(self.jobs) < MIN_JOBS:
            return (
                f"{self.jobs[0]} job{'' if self.jobs[0] == 1 else 's'} against {self.jobs[1]}: "
                f"a side needs {MIN_JOBS} jobs (logs), its iterations are not independent"
            )
        return "the job means do not vary"

    def _interval(self) -> str:
        low, high = self.ratio_ci or (math.nan, math.nan)
        return f"ratio {self.ratio:.3g}, 95 % CI {low:.3g}-{high:.3g}"

    def _measured(self) -> str:
        return f"; measured ratio {self.ratio:.3g}" if self.ratio is not None else ""


@dataclass
class GroupVerdict:
    """All comparisons along one axis with the other axes fixed, summarised in one sentence."""

    operation: str
    axis: str
    fixed: dict[str, Any]
    comparisons: list[Comparison]

    @property
    def any_significant(self) -> bool:
        return any(c.significant for c in self.comparisons)

    @property
    def testable(self) -> bool:
        return any(c.verdict_code is not Verdict.NOT_TESTABLE for c in self.comparisons)

    @property
    def sentence(self) -> str:
        where = describe_fixed(self.fixed)
        context = f"{self.operation}, {where}" if where else self.operation
        if not self.testable:
            return (
                f"not testable: no {self.axis} value has {MIN_JOBS} jobs (logs) on both sides of a "
                f"comparison ({context})"
            )
        if not self.any_significant:
            return f"no significant difference between any {self.axis} value ({context})"
        return "; ".join(c.verdict for c in self.comparisons if c.significant)


def margin_words(margin: float) -> str:
    """A margin as people write it: 0.05 -> "5%", 0.025 -> "2.5%"."""
    return f"{margin * 100:g}%"


# What a counted axis counts, one and many ("1 node", "4 MDTs"); other axes' values read as themselves.
COUNTED_AXES = {
    "nodes": ("node", "nodes"),
    "tasks": ("task", "tasks"),
    "mdt_count": ("MDT", "MDTs"),
    "files_per_dir": ("file per dir", "files per dir"),
}
# mdtest -u: a directory per task, or one directory shared by all.
UNIQUE_DIR_WORDS = {True: "a directory per task", False: "a shared directory"}


def describe_value(axis: str, value: Any) -> str:
    """An axis value in a sentence: "8 nodes", "1 MDT", "a directory per task", "hint4"."""
    if axis == "unique_dir" and isinstance(value, bool):
        return UNIQUE_DIR_WORDS[value]
    if axis in COUNTED_AXES:
        one, many = COUNTED_AXES[axis]
        return f"{value} {one if value == 1 else many}"
    return str(value)


def describe_fixed(fixed: dict[str, Any]) -> str:
    return ", ".join(describe_value(name, value) for name, value in fixed.items())


def printed_float(text: Any) -> float | None:
    """A printed value (string or number) as float; None for NA/empty."""
    if text is None or text == "":
        return None
    try:
        value = Decimal(str(text))
    except InvalidOperation:
        return None
    return float(value) if value.is_finite() else None


def axis_names(points: Iterable[Any]) -> list[str]:
    """Every axis name, in first-seen order."""
    names: dict[str, None] = {}
    for point in points:
        names.update(dict.fromkeys(point.axes))
    return list(names)


def varying_axes(points: Sequence[Any]) -> list[str]:
    return [name for name in axis_names(points) if len({_key(p.axes.get(name)) for p in points}) > 1]


def is_function_of(points: Sequence[Any], dependent: str, axes: Sequence[str]) -> bool:
    """Whether ``dependent``'s value is determined by the values of ``axes`` over the study's points."""
    seen: dict[Any, Any] = {}
    for point in points:
        key = tuple(_key(point.axes.get(name)) for name in axes)
        if seen.setdefault(key, _key(point.axes.get(dependent))) != _key(point.axes.get(dependent)):
            return False
    return True


def independent_axes(points: Sequence[Any]) -> list[str]:
    """The varying axes that are not functions of the ones before them (in axis order): a label that
    describes a config, or ``tasks`` = ``nodes`` x processes per node, is *derived* and travels.

    An axis with a different value for every configuration (a run id, a date) is considered last, so
    that, placed first in a manifest, it does not make every real factor look derived from it."""
    varying = varying_axes(points)
    configurations = len({tuple(sorted((k, repr(v)) for k, v in p.axes.items())) for p in points})
    identifying = [name for name in varying if len({_key(p.axes.get(name)) for p in points}) == configurations]
    independent: list[str] = []
    for name in [n for n in varying if n not in identifying] + identifying:
        if not independent or not is_function_of(points, name, independent):
            independent.append(name)
    return independent


def fixed_axes(points: Sequence[Any], axis: str) -> list[str]:
    """The axes held fixed when comparing values of ``axis``: the other independent axes, except, for a
    derived axis, those it stands for (``config`` travels with its ``label``, ``nodes`` with ``tasks``)."""
    independent = independent_axes(points)
    if axis in independent:
        return [name for name in independent if name != axis]
    return [name for name in independent if not is_function_of(points, name, [axis])]


def covarying_axes(points: Sequence[Any]) -> list[list[str]]:
    """The varying axes in sets that change together (each a function of the other: a config and its
    label, nodes and tasks at a fixed tasks per node), in axis order, the first of each set first.
    Comparing along any axis of a set gives the same comparisons, so a reader is shown them once."""
    sets: list[list[str]] = []
    for name in varying_axes(points):
        for members in sets:
            if is_function_of(points, name, [members[0]]) and is_function_of(points, members[0], [name]):
                members.append(name)
                break
        else:
            sets.append([name])
    return sets


def travelling_axes(points: Sequence[Any], axis: str) -> list[str]:
    """The varying axes that change along with ``axis`` (functions of it: ``label`` of ``config``)."""
    return [name for name in varying_axes(points) if name != axis and is_function_of(points, name, [axis])]


def holm_adjust(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given)."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    count = len(p_values)
    adjusted = [1.0] * count
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (count - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def welch_tests(pairs: Sequence[tuple[Sequence[float], Sequence[float]]]) -> list[WelchResult | None]:
    """Welch's test of each pair of samples (job means) on the log scale: one vectorised ``ttest_ind``
    call per (len(a), len(b)) shape, because a call costs milliseconds of argument handling and a
    study holds thousands of pairs. None for a side with fewer than 2 values, a value <= 0, or no
    spread on either side."""
    results: list[WelchResult | None] = [None] * len(pairs)
    by_shape: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, (a, b) in enumerate(pairs):
        if len(a) >= MIN_JOBS and len(b) >= MIN_JOBS and min(a) > 0 and min(b) > 0:
            by_shape[(len(a), len(b))].append(index)
    for indices in by_shape.values():
        logs_a = [[math.log(v) for v in pairs[i][0]] for i in indices]
        logs_b = [[math.log(v) for v in pairs[i][1]] for i in indices]
        test = stats.ttest_ind(logs_a, logs_b, axis=1, equal_var=False)
        wide, narrow = test.confidence_interval(RATIO_CI_LEVEL), test.confidence_interval(EQUIVALENCE_CI_LEVEL)
        for position, (index, log_a, log_b) in enumerate(zip(indices, logs_a, logs_b, strict=True)):
            p_value = float(test.pvalue[position])
            if (_spread(log_a) > 0 or _spread(log_b) > 0) and not math.isnan(p_value):
                results[index] = WelchResult(
                    p_value=p_value,
                    ratio_ci=(math.exp(wide.low[position]), math.exp(wide.high[position])),
                    equivalence_ci=(math.exp(narrow.low[position]), math.exp(narrow.high[position])),
                )
    return results


def compare(
    points: Sequence[Any],
    *,
    alpha: float = DEFAULT_ALPHA,
    margin: float = DEFAULT_MARGIN,
    axes: Sequence[str] | None = None,
) -> list[GroupVerdict]:
    """Every pair of values of every varying axis (or of ``axes``), other independent axes fixed,
    per operation; jobs as the replicates, Holm-corrected within each group, judged with ``margin``."""
    groups: list[GroupVerdict] = []
    samples: list[tuple[list[float], list[float]]] = []
    for axis in axes if axes is not None else varying_axes(points):
        fixed_names = fixed_axes(points, axis)
        travelling = travelling_axes(points, axis)
        for (operation, fixed_values), by_value in sorted(
            _cells(points, axis, fixed_names).items(), key=lambda item: _sort_key(item[0])
        ):
            values = sorted(by_value, key=_sort_key)
            if len(values) < 2:
                continue
            fixed = {name: value for name, value in zip(fixed_names, fixed_values, strict=True)}
            job_means = {value: job_means_of(by_value[value]) for value in values}
            comparisons = []
            for a, b in combinations(values, 2):
                comparisons.append(
                    Comparison(
                        operation=operation,
                        axis=axis,
                        a=a,
                        b=b,
                        fixed=fixed,
                        mean_a=geometric_mean(job_means[a]),
                        mean_b=geometric_mean(job_means[b]),
                        p_raw=None,
                        jobs=(len(job_means[a]), len(job_means[b])),
                        margin=margin,
                        alpha=alpha,
                        travelling=travelling,
                    )
                )
                samples.append((job_means[a], job_means[b]))
            groups.append(GroupVerdict(operation, axis, fixed, comparisons))
    for comparison, result in zip(comparisons_of(groups), welch_tests(samples), strict=True):
        comparison.welch = result
        comparison.p_raw = result.p_value if result else None
    for group in groups:
        _apply_holm(group.comparisons)
    return groups


def comparison_count(points: Sequence[Any]) -> int:
    """How many comparisons ``compare(points)`` makes (every varying axis), counted without making them: a group
    of k values holds k(k-1)/2 pairs. What an upload may add to a study is bounded by it (``StudyBudget``)."""
    return sum(
        len(by_value) * (len(by_value) - 1) // 2
        for axis in varying_axes(points)
        for by_value in _cells(points, axis, fixed_axes(points, axis)).values()
    )


def _cells(points: Sequence[Any], axis: str, fixed_names: Sequence[str]) -> dict[tuple, dict[Any, list[Any]]]:
    """The points having ``axis``, by group (the operation and the values of ``fixed_names``), then by their value
    of ``axis``: the values of one group are compared pairwise."""
    cells: dict[tuple, dict[Any, list[Any]]] = defaultdict(lambda: defaultdict(list))
    for point in points:
        if axis in point.axes:
            group_key = (point.operation, tuple(_key(point.axes.get(name)) for name in fixed_names))
            cells[group_key][_key(point.axes[axis])].append(point)
    return cells


@dataclass(frozen=True)
class StudyBudget:
    """The most a study may hold: distinct configurations (sets of axis values), axes, values of one axis and
    comparisons. Every reader of a study's page and API pays for its comparisons (k values of one axis make
    k(k-1)/2 of them), so an upload that would take a study past any of these is refused before it is stored."""

    configurations: int
    axes: int
    values_per_axis: int
    comparisons: int

    def excess(self, points: Sequence[Any]) -> str:
        """What of ``points`` is past the budget, in words ("" when nothing is). The cheap counts come first: the
        comparisons are counted only for a study within the others, whose grouping is then bounded too."""
        configurations = len({tuple(sorted((name, repr(value)) for name, value in p.axes.items())) for p in points})
        values: dict[str, set] = defaultdict(set)
        for point in points:
            for name, value in point.axes.items():
                values[name].add(_key(value))
        widest = max(values, key=lambda name: len(values[name]), default=None)
        if configurations > self.configurations:
            return f"{configurations:,} configurations, more than the {self.configurations:,} a study may hold"
        if len(values) > self.axes:
            return f"{len(values):,} axes, more than the {self.axes:,} a study may have"
        if widest is not None and len(values[widest]) > self.values_per_axis:
            return (
                f"{len(values[widest]):,} values of axis {widest!r}, more than the {self.values_per_axis:,} "
                f"an axis may take"
            )
        comparisons = comparison_count(points)
        if comparisons > self.comparisons:
            return f"{comparisons:,} pairwise comparisons, more than the {self.comparisons:,} a study may make"
        return ""


def job_means_of(points: Iterable[Any]) -> list[float]:
    """One value per job (log) among ``points``: the job's printed mean (IOR's mean of its iterations),
    or the average of its iterations when none was printed; several points of one job (tests of one
    log that share this configuration) are averaged. Jobs without any positive value are left out."""
    by_job: dict[Any, list[float]] = defaultdict(list)
    for point in points:
        value = printed_float(point.mean)
        if value is None:
            iterations = [v for v in (printed_float(x) for x in point.iterations) if v is not None]
            value = sum(iterations) / len(iterations) if iterations else None
        if value is not None and value > 0:
            by_job[job_of(point)].append(value)
    return [sum(values) / len(values) for values in by_job.values()]


def job_of(point: Any) -> Any:
    """What identifies a point's job: the log it came from (its hash; its source for plain records)."""
    return getattr(point, "log_hash", None) or getattr(point, "source", None) or id(point)


def geometric_mean(values: Sequence[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def comparisons_of(groups: Iterable[GroupVerdict]) -> list[Comparison]:
    return [comparison for group in groups for comparison in group.comparisons]


@dataclass
class PivotCell:
    mean: float | None
    stddev: float | None
    count: int
    printed: str


def pivot(points: Sequence[Any], operation: str, rows: Sequence[str], columns: Sequence[str]) -> dict[str, Any]:
    """A table of mean +/- stddev over the repetitions: rows keyed by ``rows`` axes (e.g. filesystem, api,
    config), columns by ``columns`` axes (e.g. nodes). A cell holding several points (another axis
    varies inside it) shows the mean of their means and says how many it pooled."""
    table: dict[tuple, dict[tuple, list[Any]]] = defaultdict(lambda: defaultdict(list))
    column_keys: set[tuple] = set()
    for point in points:
        if point.operation != operation:
            continue
        row_key = tuple(_key(point.axes.get(name)) for name in rows)
        column_key = tuple(_key(point.axes.get(name)) for name in columns)
        table[row_key][column_key].append(point)
        column_keys.add(column_key)
    ordered_columns = sorted(column_keys, key=_sort_key)
    body = []
    for row_key in sorted(table, key=_sort_key):
        cells = []
        for column_key in ordered_columns:
            members = table[row_key].get(column_key, [])
            cells.append(_pivot_cell(members))
        body.append({"row": list(row_key), "cells": cells})
    return {
        "operation": operation,
        "rows": list(rows),
        "columns": list(columns),
        "column_values": [list(key) for key in ordered_columns],
        "body": body,
    }


def _pivot_cell(members: list[Any]) -> PivotCell | None:
    if not members:
        return None
    if len(members) == 1:
        point = members[0]
        mean, stddev = printed_float(point.mean), printed_float(point.stddev)
        printed = f"{point.mean} ± {point.stddev}" if point.mean not in (None, "") else "NA"
        return PivotCell(mean, stddev, 1, printed)
    means = [m for m in (printed_float(p.mean) for p in members) if m is not None]
    if not means:
        return PivotCell(None, None, len(members), "NA")
    mean = sum(means) / len(means)
    stddev = math.sqrt(sum((m - mean) ** 2 for m in means) / len(means))
    return PivotCell(mean, stddev, len(members), f"{mean:.2f} ± {stddev:.2f} (mean of {len(means)})")


def _apply_holm(comparisons: list[Comparison]) -> None:
    tested = [(comparison, p_raw) for comparison in comparisons if (p_raw := comparison.p_raw) is not None]
    adjusted = holm_adjust([p_raw for _, p_raw in tested])
    for (comparison, _), p_value in zip(tested, adjusted, strict=True):
        comparison.p_value = p_value


def _spread(values: list[float]) -> float:
    return max(values) - min(values)


def _key(value: Any) -> Any:
    """Axis values are JSON scalars; anything else (a list, an object) is compared by its text."""
    return repr(value) if isinstance(value, list | dict) else value


def _sort_key(value: Any) -> Any:
    """Numbers before strings, numbers numerically (4 < 8 < 16 nodes) and the digits inside strings too
    ("stripe4" < "stripe16"; "4 MiB" sorts before "64 KiB": units are not interpreted)."""
    if isinstance(value, tuple):
        return tuple(_sort_key(v) for v in value)
    if isinstance(value, bool) or value is None:
        return (2, str(value))
    if isinstance(value, int | float):
        return (0, value)
    chunks = re.split(r"(\d+)", str(value))
    # isdecimal, not isdigit: a superscript ("4²") is a digit int() cannot read, and names come from uploads.
    return (1, tuple((0, int(chunk), "") if chunk.isdecimal() else (1, 0, chunk) for chunk in chunks))


def _rounded(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.6g}")
