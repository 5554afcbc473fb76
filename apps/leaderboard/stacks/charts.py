"""Plotly figures of a stack (built with ``apps.leaderboard.common.plotly_json``): expected against measured,
layer by layer from the drives to the file system, for one operation.

Pure functions of ``layer_steps`` rows (``apps.leaderboard.stack_views``). Component and layer names come
from an uploaded campaign, so they are escaped.
"""

from __future__ import annotations

from typing import Any

from apps.leaderboard.common.plotly_json import COLOURS, bar, escaped, figure, scatter


def layers_figure(steps: list[dict[str, Any]], operation: str) -> dict[str, Any]:
    """Bars of the summed expected and measured MB/s of each layer, and the efficiency on a second axis."""
    labels = [escaped(step["label"]) for step in steps]
    traces = [
        bar(
            name="expected",
            x=labels,
            y=[step["expected"] for step in steps],
            marker={"color": "#9aa5b1"},
            hovertemplate="%{x}: expected %{y:,.0f} MB/s<extra></extra>",
        ),
        bar(
            name="measured",
            x=labels,
            y=[step["measured"] for step in steps],
            marker={"color": COLOURS[0]},
            hovertemplate="%{x}: measured %{y:,.0f} MB/s<extra></extra>",
        ),
        scatter(
            name="efficiency",
            x=labels,
            y=[step["efficiency"] for step in steps],
            yaxis="y2",
            mode="lines+markers",
            marker={"color": COLOURS[1]},
            hovertemplate="%{x}: efficiency %{y:.2f}<extra></extra>",
        ),
    ]
    return figure(
        traces,
        f"{escaped(operation)}: expected against measured, layer by layer",
        barmode="group",
        xaxis={"automargin": True},
        yaxis={"title": {"text": "MB/s (10^6 bytes/s)"}, "rangemode": "tozero", "separatethousands": True},
        yaxis2={"title": {"text": "measured / expected"}, "overlaying": "y", "side": "right", "rangemode": "tozero"},
        legend={"orientation": "h", "y": -0.3},
        margin={"t": 60, "l": 70, "r": 60, "b": 90},
    )
