"""A DNE scaling series read as a parameter study: the one mapping from its points to study points.

A series keeps its typed points (``ScalingPoint``: decimal rates, the time table, stonewall rows, the
launch and block of each row) because the saturation analysis and ``export_scaling`` read them. A
study point holds less: axes, one operation's max/min/mean/stddev as printed, the per-iteration
values, the source. So the series stays the storage and its study (``Study.scaling_series``) is
written from its points by ``study_point_fields``, in the same transaction as the points themselves
(ingest) or once for the series stored before studies existed (migration 0022). Nothing is computed
here: each value is copied from the point, so the study's analysis and the series' agree by
construction.

Axes: ``mdt_count``, ``nodes`` (client nodes), ``tasks``, ``files_per_dir``, ``striping`` and
``unique_dir``; an axis whose value the point does not know (client nodes of a partial -f/-l/-s block,
files per directory mdtest did not print) is left out of that point's axes rather than stored as
null. The values are mdtest's ops/s; the per-iteration values are the rates mdtest printed with
``-v`` (none otherwise, and then a point cannot be tested for significance, only shown).

Plain Python: it reads attributes, so it takes ingest's point records, model rows and the
migration's historical rows alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

DNE_AXES = ("mdt_count", "nodes", "tasks", "files_per_dir", "striping", "unique_dir")
DNE_UNIT = "ops/s"
STUDY_NAME_SUFFIX = " (DNE scaling)"

_AXIS_ATTRIBUTES = {
    "mdt_count": "mdt_count",
    "nodes": "client_nodes",
    "tasks": "tasks",
    "files_per_dir": "files_per_dir",
    "striping": "striping",
    "unique_dir": "unique_dir",
}
_STATISTICS = ("max", "min", "mean", "stddev")


def dne_study_name(series_name: str, series_pk: int, is_taken: Callable[[str], bool]) -> str:
    """The study's name: the series' name marked as DNE scaling, with the series' id as well when another
    study already holds that name (study names are unique; an IOR study may have been named so first)."""
    name = series_name + STUDY_NAME_SUFFIX
    return f"{name} #{series_pk}" if is_taken(name) else name


def study_point_fields(points: Iterable[Any]) -> list[dict[str, Any]]:
    """The study point of each scaling point, as ``StudyPoint`` field values (without the study).

    ``test_index`` numbers the (launch, task block) pairs of one log in their order, as IOR's tests of a
    multi-test launch are numbered, so (log, test_index, operation) is unique as a series point's
    (log, launch, block, operation) is."""
    points = list(points)
    blocks_of_log: dict[str, list[tuple[int, int]]] = {}
    for point in points:
        blocks_of_log.setdefault(point.log_hash, []).append((point.launch_index, point.block_index))
    block_number = {
        log_hash: {block: index for index, block in enumerate(sorted(set(blocks)))}
        for log_hash, blocks in blocks_of_log.items()
    }
    return [
        {
            "axes": point_axes(point),
            "operation": point.operation,
            **{name: _printed_rate(point, name) for name in _STATISTICS},
            "iterations": [value["rate"] for value in point.iteration_values if value.get("rate") is not None],
            "source": point.source_file,
            "test_index": block_number[point.log_hash][(point.launch_index, point.block_index)],
            "log_hash": point.log_hash,
        }
        for point in points
    ]


def point_axes(point: Any) -> dict[str, Any]:
    """The point's known axis values, in ``DNE_AXES`` order."""
    values = {axis: getattr(point, attribute) for axis, attribute in _AXIS_ATTRIBUTES.items()}
    return {axis: value for axis, value in values.items() if value is not None}


def _printed_rate(point: Any, name: str) -> str:
    """The rate table's value as mdtest printed it; a row stored without its printed strings gives its
    decimal's own digits; no rate row gives "" (as a missing IOR value)."""
    printed = (point.printed or {}).get("rate", {}).get(name)
    if printed is not None:
        return printed
    value: Decimal | None = getattr(point, name)
    return "" if value is None else format(value, "f")
