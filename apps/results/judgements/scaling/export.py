"""A DNE scaling series as a document: its points and their saturation analysis, with exact numbers.

The numbers are mdtest's printed decimals. JSON has no decimal type, and ``json.dumps`` of a float
would print ``0.0`` for ``0.000``; ``exact_json`` writes each Decimal with its own digits instead, so
a reader that parses numbers as decimals gets back exactly what mdtest printed.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from apps.results.judgements.scaling.analysis import ScalingAnalysis

POINT_FIELDS = (
    "mdt_count",
    "client_nodes",
    "tasks",
    "files_per_dir",
    "striping",
    "operation",
    "max",
    "min",
    "mean",
    "stddev",
    "iterations",
)
TIME_FIELDS = ("time_max", "time_min", "time_mean", "time_stddev")


def point_document(point: Any) -> dict[str, Any]:
    """One point: the fields of the export format, then its time table, placement and provenance."""
    document = {name: getattr(point, name) for name in POINT_FIELDS}
    document["source"] = point.source_file
    document.update({name: getattr(point, name) for name in TIME_FIELDS})
    document.update(
        {
            "unique_dir": point.unique_dir,
            "label": point.label,
            "launch": point.launch_index,
            "block": point.block_index,
            "printed": point.printed,
        }
    )
    return document


def series_document(name: str, points: Iterable[Any], analysis: ScalingAnalysis) -> dict[str, Any]:
    return {
        "name": name,
        "points": [point_document(point) for point in points],
        "saturation": analysis.saturation_table(),
        "saturation_threshold": analysis.saturation_threshold,
        "warnings": analysis.warnings,
    }


def exact_json(value: Any, *, indent: int | None = 1) -> str:
    """JSON text in which every Decimal appears as a number with exactly its own digits."""
    marker = f"decimal-{uuid.uuid4().hex}:"
    decimals: list[Decimal] = []

    def placeholder(item: Any) -> str:
        if isinstance(item, Decimal):
            decimals.append(item)
            return f"{marker}{len(decimals) - 1}"
        raise TypeError(f"{type(item).__name__} is not JSON serialisable")

    def digits(match: re.Match) -> str:
        number = decimals[int(match.group(1))]
        return format(number, "f") if number.is_finite() else "null"

    text = json.dumps(value, indent=indent, default=placeholder, ensure_ascii=False)
    # One pass over the text: replacing placeholder by placeholder rescans it for every number.
    return re.sub(f'"{re.escape(marker)}(\\d+)"', digits, text)
