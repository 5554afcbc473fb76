"""A parameter study as a document: its axes, points (numbers exactly as IOR printed them) and the
pairwise comparisons of every varying axis. The shape is the one of ``export_study --format json``:

``{"name", "margin", "axes": [...], "points": [{"axes", "operation", "max", "min", "mean", "stddev",
"iterations", "source"}], "comparisons": [{"operation", "axis", "a", "b", "fixed", "p_value",
"ratio", "significant", "verdict", "ratio_ci": [low, high], "jobs": [n_a, n_b]}]}``

``verdict`` is ``different``, ``same``, ``inconclusive`` or ``not_testable`` (``analysis.Verdict``);
``ratio_ci`` is the 95 % interval of ``ratio`` (null when not testable); ``jobs`` counts the logs
each side's value rests on.

Printed numbers travel as Decimals so ``exact_json`` writes their own digits; ``NA`` becomes null.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from apps.results.judgements.studies.analysis import DEFAULT_ALPHA, DEFAULT_MARGIN, axis_names, compare, comparisons_of


def printed_decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text)
    except (InvalidOperation, TypeError):
        return None
    return value if value.is_finite() else None


def point_document(point: Any) -> dict[str, Any]:
    return {
        "axes": dict(point.axes),
        "operation": point.operation,
        "max": printed_decimal(point.max),
        "min": printed_decimal(point.min),
        "mean": printed_decimal(point.mean),
        "stddev": printed_decimal(point.stddev),
        "iterations": [printed_decimal(value) for value in point.iterations],
        "source": point.source,
    }


def study_document(
    name: str, points: Sequence[Any], *, alpha: float = DEFAULT_ALPHA, margin: float = DEFAULT_MARGIN
) -> dict[str, Any]:
    comparisons = comparisons_of(compare(points, alpha=alpha, margin=margin))
    return {
        "name": name,
        "margin": margin,
        "axes": axis_names(points),
        "points": [point_document(point) for point in points],
        "comparisons": [comparison.as_dict() for comparison in comparisons],
    }
