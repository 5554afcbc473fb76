"""The export record of a stack (``export_stack --format json``; the API's export gives the same object).

The shape is the stack-sample README's: ``name``, ``layers`` (one row per measured component and
operation, ``device`` to ``ost``), ``outliers``, ``ceiling`` and ``file_system`` (one row per log and
operation), figures unrounded but for 6 decimals.
"""

from __future__ import annotations

from typing import Any

from apps.results.models.stacks import Stack

DECIMALS = 6


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DECIMALS)


def stack_to_dict(stack: Stack) -> dict[str, Any]:
    measurements = list(stack.measurements.select_related("component").order_by("position"))
    layers = [m for m in measurements if m.component_id is not None]
    return {
        "name": stack.name,
        "layers": [
            {
                "layer": m.layer,
                "component": m.component.name,
                "operation": m.operation,
                "measured": _round(m.measured),
                "unit": m.unit,
                "expected": _round(m.expected),
                "efficiency": _round(m.efficiency),
                "tool": m.tool,
                "source": m.source,
            }
            for m in layers
        ],
        "outliers": [
            {
                "layer": m.layer,
                "component": m.component.name,
                "operation": m.operation,
                "measured": _round(m.measured),
                "peer_median": _round(m.peer_median),
            }
            for m in layers
            if m.is_outlier
        ],
        "ceiling": {
            "read": _round(stack.ceiling_read),
            "write": _round(stack.ceiling_write),
            "limited_by": dict(stack.limited_by),
        },
        "file_system": [
            {
                "source": m.source,
                "operation": m.operation,
                "measured": _round(m.measured),
                "ceiling": _round(m.expected),
                "efficiency": _round(m.efficiency),
                "over_ceiling": m.over_ceiling,
            }
            for m in measurements
            if m.component_id is None
        ],
    }
