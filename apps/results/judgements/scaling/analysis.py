"""Saturation analysis of a DNE scaling series.

A Lustre administrator deciding how many MDTs a namespace needs asks, per metadata operation and
directory layout: how fast does each MDT count go at best, how much does each doubling buy, and
after which count does adding MDTs stop paying? OLCF answered that by eye from curves ("four MDS
nodes per namespace"); here it is computed, with the thresholds as explicit parameters:

* points are grouped by (operation, files per directory, striping);
* the **peak** of an MDT count is its best mean rate over the client counts measured, because an
  MDT count is only judged fairly with enough clients to load it;
* **speedup** and **efficiency** are relative to the smallest MDT count measured;
* the **saturation MDT count** is the smallest measured count after which the next measured count
  gains less than ``saturation_threshold`` (default 10 %) in peak rate; None when every step
  still gains (the campaign did not reach the knee) or only one count was measured;
* the same rule along the client axis gives the client count at which each MDT count saturates;
* a **decline** is reported when the next MDT count's peak is lower by more than
  ``decline_tolerance`` (run-to-run noise is not a decline);
* a point is **noisy** when its iterations vary by more than ``variation_threshold``
  (coefficient of variation = Std Dev / Mean of its SUMMARY row).

Rows whose mean is 0 or missing are phases mdtest did not run (it prints 0.000 for them) and are
left out. Inputs are any objects with the ScalingPoint attribute names (model rows or records).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise
from typing import Any

DEFAULT_SATURATION_THRESHOLD = 0.10
DEFAULT_DECLINE_TOLERANCE = 0.02
DEFAULT_VARIATION_THRESHOLD = 0.10

OPERATION_ORDER = (
    "directory_creation",
    "directory_stat",
    "directory_read",
    "directory_removal",
    "directory_rename",
    "file_creation",
    "file_stat",
    "file_read",
    "file_removal",
    "tree_creation",
    "tree_removal",
)


def operation_label(operation: str) -> str:
    """``file_creation`` -> ``File creation``."""
    return operation.replace("_", " ").capitalize()


def _as_float(value: Any) -> float | None:
    if value is None:
        return None
    return float(value) if isinstance(value, Decimal | int | float) else float(str(value))


@dataclass(frozen=True)
class GroupKey:
    operation: str
    files_per_dir: int | None
    striping: str

    @property
    def operation_label(self) -> str:
        return operation_label(self.operation)

    def describe(self) -> str:
        load = f"{self.files_per_dir:,} files/dir" if self.files_per_dir else "files/dir unknown"
        return f"{operation_label(self.operation)} ({load}, {self.striping} striping)"

    def sort_key(self) -> tuple:
        rank = OPERATION_ORDER.index(self.operation) if self.operation in OPERATION_ORDER else len(OPERATION_ORDER)
        return rank, self.operation, self.files_per_dir or 0, self.striping


@dataclass(frozen=True)
class ClientPoint:
    """The best measurement of one MDT count at one client task count."""

    tasks: int | None
    client_nodes: int | None
    mean: float
    min: float | None
    max: float | None
    stddev: float | None
    source: Any = field(default=None, compare=False, repr=False)


@dataclass
class MdtLevel:
    """Everything measured at one MDT count, and how it compares with the smallest count."""

    mdt_count: int
    curve: list[ClientPoint]
    speedup: float = 1.0
    efficiency: float = 1.0
    client_saturation: ClientPoint | None = None

    @property
    def peak_point(self) -> ClientPoint:
        return max(self.curve, key=lambda point: point.mean)

    @property
    def peak(self) -> float:
        return self.peak_point.mean


@dataclass(frozen=True)
class RateDecline:
    """Adding MDTs lowered the peak rate: the warning an administrator must not miss."""

    key: GroupKey
    from_mdt_count: int
    to_mdt_count: int
    from_rate: float
    to_rate: float

    @property
    def fraction(self) -> float:
        return (self.from_rate - self.to_rate) / self.from_rate

    def describe(self) -> str:
        return (
            f"{self.from_mdt_count}→{self.to_mdt_count} MDTs: {self.from_rate:,.0f} → {self.to_rate:,.0f} ops/s "
            f"(−{self.fraction:.0%})"
        )


@dataclass
class GroupAnalysis:
    key: GroupKey
    levels: list[MdtLevel]
    saturation_mdt_count: int | None
    declines: list[RateDecline]
    saturation_threshold: float

    @property
    def warnings(self) -> list[str]:
        """One sentence per group whose peak rate drops when MDTs are added."""
        if not self.declines:
            return []
        steps = "; ".join(decline.describe() for decline in self.declines)
        return [f"{self.key.describe()}: adding MDTs lowers the peak rate ({steps})"]

    def level(self, mdt_count: int) -> MdtLevel | None:
        return next((level for level in self.levels if level.mdt_count == mdt_count), None)


@dataclass(frozen=True)
class NoisyPoint:
    """A point whose iterations disagree more than the variation threshold allows."""

    point: Any
    coefficient_of_variation: float


@dataclass
class ScalingAnalysis:
    groups: list[GroupAnalysis]
    noisy_points: list[NoisyPoint]
    saturation_threshold: float
    decline_tolerance: float
    variation_threshold: float

    def group(self, operation: str, files_per_dir: int | None, striping: str) -> GroupAnalysis | None:
        key = GroupKey(operation, files_per_dir, striping)
        return next((group for group in self.groups if group.key == key), None)

    @property
    def warnings(self) -> list[str]:
        return [warning for group in self.groups for warning in group.warnings]

    def saturation_table(self) -> list[dict[str, Any]]:
        """One row per group, in the export format: operation, files_per_dir, striping, mdt_count."""
        return [
            {
                "operation": group.key.operation,
                "files_per_dir": group.key.files_per_dir,
                "striping": group.key.striping,
                "mdt_count": group.saturation_mdt_count,
            }
            for group in self.groups
        ]


def knee(steps: list[tuple[int, float]], threshold: float) -> int | None:
    """The smallest x after which the next measured x gains less than ``threshold`` (relative) in y.

    ``steps`` are (x, y) pairs sorted by x. None when every step gains at least the threshold
    (no knee within what was measured) or there is no step at all."""
    for (x, y), (_, next_y) in pairwise(steps):
        if y > 0 and (next_y - y) / y < threshold:
            return x
    return None


def coefficient_of_variation(point: Any) -> float | None:
    """Std Dev / Mean of a point's SUMMARY row; None when it cannot be computed."""
    mean, stddev = _as_float(getattr(point, "mean", None)), _as_float(getattr(point, "stddev", None))
    if mean is None or stddev is None or mean <= 0:
        return None
    return stddev / mean


def analyse_points(
    points: Iterable[Any],
    *,
    saturation_threshold: float = DEFAULT_SATURATION_THRESHOLD,
    decline_tolerance: float = DEFAULT_DECLINE_TOLERANCE,
    variation_threshold: float = DEFAULT_VARIATION_THRESHOLD,
) -> ScalingAnalysis:
    """Group points and analyse each group; see the module docstring for the rules."""
    by_group: dict[GroupKey, dict[int, dict[int | None, ClientPoint]]] = defaultdict(lambda: defaultdict(dict))
    noisy = []
    for point in points:
        mean = _as_float(point.mean)
        if mean is None or mean <= 0:
            continue
        variation = coefficient_of_variation(point)
        if variation is not None and variation > variation_threshold:
            noisy.append(NoisyPoint(point, variation))
        key = GroupKey(point.operation, point.files_per_dir, point.striping)
        candidate = ClientPoint(
            tasks=point.tasks,
            client_nodes=point.client_nodes,
            mean=mean,
            min=_as_float(point.min),
            max=_as_float(point.max),
            stddev=_as_float(point.stddev),
            source=point,
        )
        curve = by_group[key][point.mdt_count]
        if point.tasks not in curve or curve[point.tasks].mean < mean:
            curve[point.tasks] = candidate
    groups = [
        _analyse_group(key, by_mdt, saturation_threshold, decline_tolerance)
        for key, by_mdt in sorted(by_group.items(), key=lambda item: item[0].sort_key())
    ]
    return ScalingAnalysis(
        groups=groups,
        noisy_points=noisy,
        saturation_threshold=saturation_threshold,
        decline_tolerance=decline_tolerance,
        variation_threshold=variation_threshold,
    )


def _analyse_group(
    key: GroupKey, by_mdt: dict[int, dict[int | None, ClientPoint]], threshold: float, decline_tolerance: float
) -> GroupAnalysis:
    levels = [
        MdtLevel(mdt_count=mdt_count, curve=sorted(curve.values(), key=lambda point: point.tasks or 0))
        for mdt_count, curve in sorted(by_mdt.items())
    ]
    base = levels[0]
    for level in levels:
        level.speedup = level.peak / base.peak
        level.efficiency = level.speedup / (level.mdt_count / base.mdt_count)
        client_knee = knee([(index, point.mean) for index, point in enumerate(level.curve)], threshold)
        level.client_saturation = level.curve[client_knee] if client_knee is not None else None
    declines = [
        RateDecline(key, lower.mdt_count, higher.mdt_count, lower.peak, higher.peak)
        for lower, higher in pairwise(levels)
        if higher.peak < lower.peak * (1 - decline_tolerance)
    ]
    saturation = knee([(level.mdt_count, level.peak) for level in levels], threshold)
    return GroupAnalysis(
        key=key, levels=levels, saturation_mdt_count=saturation, declines=declines, saturation_threshold=threshold
    )
