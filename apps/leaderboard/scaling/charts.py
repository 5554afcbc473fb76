"""Plotly figures of a DNE scaling series, as JSON-ready dicts for ``static/js/charts.js``.

Three figures answer the administrator's three questions:

* ``client_scaling_figure``: for one operation, rate against client tasks with one line per MDT
  count (the OLCF report's figures) - does each MDT count get enough clients to saturate it?
* ``mdt_scaling_figure``: peak rate against MDT count with the min/max of the peak point as error
  bars, ideal linear scaling for reference and the saturation point marked - how many MDTs pay?
* ``overlay_figure``: the peak curves of two (or more) groups or series on one axis - does
  inherited striping, or another Lustre build, move the knee?

Pure functions of ``analysis`` results, built with ``apps.leaderboard.common.plotly_json``; series names
come from uploads and are escaped.
"""

from __future__ import annotations

import math
from typing import Any

from apps.leaderboard.common.plotly_json import escaped, figure, scatter
from apps.results.judgements.scaling.analysis import GroupAnalysis, MdtLevel, operation_label

RATE_AXIS_TITLE = "ops/s"
SATURATION_COLOUR = "#d62728"
IDEAL_COLOUR = "#7f7f7f"


def _layout(x_title: str, **extra: Any) -> dict[str, Any]:
    return {
        "xaxis": {"title": {"text": x_title}, "rangemode": "tozero"},
        "yaxis": {"title": {"text": RATE_AXIS_TITLE}, "rangemode": "tozero", "separatethousands": True},
        "hovermode": "closest",
        "legend": {"orientation": "h", "y": -0.2},
        "margin": {"t": 60, "l": 70, "r": 20, "b": 60},
        **extra,
    }


def _mdt_axis(levels: list[MdtLevel]) -> dict[str, Any]:
    """MDT counts usually double, so a log axis spaces them evenly; ticks only where measured."""
    counts = sorted({level.mdt_count for level in levels})
    return {
        "title": {"text": "MDT count"},
        "type": "log",
        "tickmode": "array",
        "tickvals": counts,
        "ticktext": [str(count) for count in counts],
    }


def _error_bars(centres: list[float], lows: list[float | None], highs: list[float | None]) -> dict[str, Any]:
    return {
        "type": "data",
        "symmetric": False,
        "visible": True,
        "array": [high - centre if high is not None else 0 for centre, high in zip(centres, highs, strict=True)],
        "arrayminus": [centre - low if low is not None else 0 for centre, low in zip(centres, lows, strict=True)],
    }


def _peak_error_bars(levels: list[MdtLevel]) -> dict[str, Any]:
    """Each MDT count's peak with the min..max of the point that reached it."""
    return _error_bars(
        [level.peak for level in levels],
        [level.peak_point.min for level in levels],
        [level.peak_point.max for level in levels],
    )


def _saturation_marker(saturated: MdtLevel, *, name: str, says: str, size: int, **options) -> dict[str, Any]:
    """The star where adding MDTs stopped paying; `says` opens its hover text ("saturates at 8 MDTs")."""
    return scatter(
        x=[saturated.mdt_count],
        y=[saturated.peak],
        mode="markers",
        name=name,
        marker={"symbol": "star", "size": size, "color": SATURATION_COLOUR},
        hovertemplate=f"{says} at %{{x}} MDTs<extra></extra>",
        **options,
    )


def client_scaling_figure(group: GroupAnalysis) -> dict[str, Any]:
    """Rate against client tasks, one line per MDT count; error bars span each point's min..max."""
    traces = []
    for level in group.levels:
        measured = [point for point in level.curve if point.tasks is not None]
        means = [point.mean for point in measured]
        traces.append(
            scatter(
                x=[point.tasks for point in measured],
                y=means,
                mode="lines+markers",
                name=f"{level.mdt_count} MDT{'s' if level.mdt_count != 1 else ''}",
                error_y=_error_bars(means, [point.min for point in measured], [point.max for point in measured]),
                customdata=[[point.client_nodes if point.client_nodes is not None else "?"] for point in measured],
                hovertemplate="%{x} tasks on %{customdata[0]} nodes: %{y:,.0f} ops/s<extra>%{fullData.name}</extra>",
            )
        )
    key = group.key
    title = (
        f"{operation_label(key.operation)}: rate vs client tasks"
        f" ({_load_text(key.files_per_dir)}, {escaped(key.striping)} striping)"
    )
    return figure(traces, title, **_layout("client tasks"))


def mdt_scaling_figure(group: GroupAnalysis) -> dict[str, Any]:
    """Peak rate against MDT count, with ideal scaling and the saturation point marked."""
    levels = group.levels
    counts = [level.mdt_count for level in levels]
    peaks = [level.peak for level in levels]
    traces = [
        scatter(
            x=counts,
            y=[peaks[0] * count / counts[0] for count in counts],
            mode="lines",
            name="ideal scaling",
            line={"dash": "dash", "color": IDEAL_COLOUR},
            hoverinfo="skip",
        )
    ]
    traces.append(
        scatter(
            x=counts,
            y=peaks,
            mode="lines+markers",
            name="peak rate",
            error_y=_peak_error_bars(levels),
            customdata=[[level.peak_point.tasks or "?", level.speedup, level.efficiency] for level in levels],
            hovertemplate=(
                "%{x} MDTs: %{y:,.0f} ops/s at %{customdata[0]} tasks<br>"
                "speedup %{customdata[1]:.2f}, efficiency %{customdata[2]:.0%}<extra></extra>"
            ),
        )
    )
    annotations = []
    if group.saturation_mdt_count is not None:
        saturated = group.level(group.saturation_mdt_count)
        traces.append(_saturation_marker(saturated, name="saturation", says="saturates", size=16))
        annotations.append(
            {
                "x": _log_position(saturated.mdt_count),
                "y": saturated.peak,
                "xref": "x",
                "yref": "y",
                "text": f"saturates at {saturated.mdt_count} MDTs",
                "showarrow": True,
                "arrowhead": 2,
                "ay": -40,
            }
        )
    key = group.key
    title = (
        f"{operation_label(key.operation)}: peak rate vs MDT count"
        f" ({_load_text(key.files_per_dir)}, {escaped(key.striping)} striping)"
    )
    layout = _layout("MDT count", annotations=annotations)
    layout["xaxis"].update(_mdt_axis(levels))
    return figure(traces, title, **layout)


def overlay_figure(curves: list[tuple[str, GroupAnalysis]], title: str = "") -> dict[str, Any]:
    """Peak rate against MDT count for several labelled groups (inherited vs non-inherited, two
    Lustre builds, ...), each with its own saturation marker."""
    traces = []
    all_levels: list[MdtLevel] = []
    for name, group in curves:
        label = escaped(name)
        levels = group.levels
        all_levels.extend(levels)
        peaks = [level.peak for level in levels]
        traces.append(
            scatter(
                x=[level.mdt_count for level in levels],
                y=peaks,
                mode="lines+markers",
                name=label,
                legendgroup=label,
                error_y=_peak_error_bars(levels),
                hovertemplate=f"{label}<br>%{{x}} MDTs: %{{y:,.0f}} ops/s<extra></extra>",
            )
        )
        if group.saturation_mdt_count is not None:
            saturated = group.level(group.saturation_mdt_count)
            traces.append(
                _saturation_marker(
                    saturated,
                    name=f"{label}: saturation",
                    says=f"{label} saturates",
                    size=14,
                    legendgroup=label,
                    showlegend=False,
                )
            )
    if not title and curves:
        title = f"{operation_label(curves[0][1].key.operation)}: peak rate vs MDT count"
    layout = _layout("MDT count")
    if all_levels:
        layout["xaxis"].update(_mdt_axis(all_levels))
    return figure(traces, escaped(title), **layout)


def _log_position(value: float) -> float:
    """Annotations on a log axis are placed in log10 units."""
    return math.log10(value)


def _load_text(files_per_dir: int | None) -> str:
    return f"{files_per_dir:,} files/dir" if files_per_dir else "files/dir unknown"
