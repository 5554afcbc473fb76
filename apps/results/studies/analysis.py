"""Analysis of a parameter study: pivots, pairwise comparisons with significance, verdicts in words.

A study is a set of points; each point is one configuration (its *axes*: api, hints, nodes, file
system...) and one operation, with the max/min/mean/stddev IOR printed and the per-iteration values.
Inputs are any objects with the ``StudyPoint`` attribute names (model rows or plain records).

**Which axes are held fixed.** Some columns follow from others: a hint-set label describes the hint
set, ``tasks`` is ``nodes`` x processes per node. Such a column *travels with* its axis: when a
comparison varies an axis X, every axis that is a function of X over the study's points varies with
it, and only the other (independent) axes are held fixed. Without this rule, "hint4 vs hint7 with the
label fixed" would never find a pair.

**The test.** For each pair of values (a, b) of an axis, with the other independent axes fixed,
Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``: the two configurations need not share
a variance) compares the per-iteration bandwidths. It runs on their logarithms: storage noise is
multiplicative (a configuration twice as fast varies twice as much in MiB/s), so on the log scale
the variances are comparable and the question asked is the one reported, the ratio. With 3-5
repetitions this is the usual choice; a rank test cannot reach p < 0.05 with 3 against 3.

**Multiple comparisons.** A group (one operation, one axis, one set of fixed values) holds
k(k-1)/2 pairs, so the p-values are corrected with Holm's step-down method within each group: it
controls the family-wise error rate at ``alpha`` without assuming independence, and is uniformly
more powerful than Bonferroni. SciPy has no Holm (``false_discovery_control`` is Benjamini-Hochberg,
which controls the false discovery rate, a weaker promise than "this group has no false positive"),
and statsmodels is not a dependency, so Holm is the ten lines of ``holm_adjust`` below.
A comparison's ``p_value`` is the Holm-adjusted one, so ``significant`` is ``p_value <= alpha``.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from itertools import combinations
from typing import Any

from scipy import stats

DEFAULT_ALPHA = 0.05


@dataclass
class Comparison:
    operation: str
    axis: str
    a: Any
    b: Any
    fixed: dict[str, Any]
    mean_a: float | None
    mean_b: float | None
    p_raw: float | None
    p_value: float | None = None  # Holm-adjusted within the group
    significant: bool = False
    travelling: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """mean(a) / mean(b), from the printed means."""
        if self.mean_a is None or not self.mean_b:
            return None
        return self.mean_a / self.mean_b

    def as_dict(self) -> dict[str, Any]:
        ratio = self.ratio
        return {
            "operation": self.operation,
            "axis": self.axis,
            "a": self.a,
            "b": self.b,
            "fixed": dict(self.fixed),
            "p_value": _rounded(self.p_value),
            "ratio": _rounded(ratio),
            "significant": self.significant,
        }

    @property
    def verdict(self) -> str:
        """The comparison in words, e.g. "hint4 is 2.9x faster than hint7 (write; CephFS, MPIIO, 8 nodes)"."""
        where = describe_fixed(self.fixed)
        context = f"{self.operation}; {where}" if where else self.operation
        a, b = describe_value(self.axis, self.a), describe_value(self.axis, self.b)
        if self.p_value is None:
            return f"{a} vs {b}: not testable, fewer than 2 repetitions or no spread ({context})"
        if not self.significant:
            return f"no significant difference between {a} and {b} ({context}, p={self.p_value:.2g})"
        ratio = self.ratio or 0.0
        faster, slower, factor = (a, b, ratio) if ratio >= 1 else (b, a, 1 / ratio)
        return f"{faster} is {factor:.2g}x faster than {slower} ({context}, p={self.p_value:.2g})"


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
    def sentence(self) -> str:
        where = describe_fixed(self.fixed)
        context = f"{self.operation}, {where}" if where else self.operation
        if not self.any_significant:
            return f"no significant difference between any {self.axis} value ({context})"
        return "; ".join(c.verdict for c in self.comparisons if c.significant)


# What a counted axis counts, one and many ("1 node", "4 MDTs"); other axes' values read as themselves.
COUNTED_AXES = {"nodes": ("node", "nodes"), "tasks": ("task", "tasks"), "mdt_count": ("MDT", "MDTs"),
                "files_per_dir": ("file per dir", "files per dir")}
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


def welch_p_value(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided Welch t-test on log bandwidths; None when it cannot be computed."""
    return welch_p_values([(a, b)])[0]


def welch_p_values(pairs: Sequence[tuple[Sequence[float], Sequence[float]]]) -> list[float | None]:
    """``welch_p_value`` of many pairs: one vectorised ``ttest_ind`` call per (len(a), len(b)) shape,
    because a call costs milliseconds of argument handling and a study holds thousands of pairs."""
    results: list[float | None] = [None] * len(pairs)
    by_shape: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, (a, b) in enumerate(pairs):
        if len(a) >= 2 and len(b) >= 2 and min(a) > 0 and min(b) > 0:
            by_shape[(len(a), len(b))].append(index)
    for indices in by_shape.values():
        logs_a = [[math.log(v) for v in pairs[i][0]] for i in indices]
        logs_b = [[math.log(v) for v in pairs[i][1]] for i in indices]
        p_values = stats.ttest_ind(logs_a, logs_b, axis=1, equal_var=False).pvalue
        for index, log_a, log_b, p_value in zip(indices, logs_a, logs_b, p_values, strict=True):
            if (_spread(log_a) > 0 or _spread(log_b) > 0) and not math.isnan(p_value):
                results[index] = float(p_value)
    return results


def compare(points: Sequence[Any], *, alpha: float = DEFAULT_ALPHA,
            axes: Sequence[str] | None = None) -> list[GroupVerdict]:
    """Every pair of values of every varying axis (or of ``axes``), other independent axes fixed,
    per operation; Holm-corrected within each group."""
    groups: list[GroupVerdict] = []
    samples: list[tuple[list[float], list[float]]] = []
    for axis in axes if axes is not None else varying_axes(points):
        fixed_names = fixed_axes(points, axis)
        travelling = travelling_axes(points, axis)
        cells: dict[tuple, dict[Any, list[Any]]] = defaultdict(lambda: defaultdict(list))
        for point in points:
            if axis not in point.axes:
                continue
            group_key = (point.operation, tuple(_key(point.axes.get(name)) for name in fixed_names))
            cells[group_key][_key(point.axes[axis])].append(point)
        for (operation, fixed_values), by_value in sorted(cells.items(), key=lambda item: _sort_key(item[0])):
            values = sorted(by_value, key=_sort_key)
            if len(values) < 2:
                continue
            fixed = {name: value for name, value in zip(fixed_names, fixed_values, strict=True)}
            pooled = {value: _pooled(by_value[value]) for value in values}
            comparisons = []
            for a, b in combinations(values, 2):
                comparisons.append(Comparison(
                    operation=operation, axis=axis, a=a, b=b, fixed=fixed,
                    mean_a=pooled[a][1], mean_b=pooled[b][1], p_raw=None, travelling=travelling,
                ))
                samples.append((pooled[a][0], pooled[b][0]))
            groups.append(GroupVerdict(operation, axis, fixed, comparisons))
    for comparison, p_raw in zip(comparisons_of(groups), welch_p_values(samples), strict=True):
        comparison.p_raw = p_raw
    for group in groups:
        _apply_holm(group.comparisons, alpha)
    return groups


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


def _apply_holm(comparisons: list[Comparison], alpha: float) -> None:
    tested = [c for c in comparisons if c.p_raw is not None]
    for comparison, adjusted in zip(tested, holm_adjust([c.p_raw for c in tested]), strict=True):
        comparison.p_value = adjusted
        comparison.significant = adjusted <= alpha


def _pooled(points: list[Any]) -> tuple[list[float], float | None]:
    """Per-iteration values of the points of one value (usually one point) and their printed mean."""
    iterations = [v for p in points for v in (printed_float(x) for x in p.iterations) if v is not None]
    means = [m for m in (printed_float(p.mean) for p in points) if m is not None]
    mean = sum(means) / len(means) if means else (sum(iterations) / len(iterations) if iterations else None)
    return iterations, mean


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
    return (1, tuple((0, int(chunk), "") if chunk.isdigit() else (1, 0, chunk) for chunk in chunks))


def _rounded(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.6g}")
