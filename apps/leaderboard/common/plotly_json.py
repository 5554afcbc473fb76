"""The one way ioboard builds a Plotly figure: plain dicts in plotly.js's JSON schema.

``static/js/charts.js`` draws them from a ``json_script`` element. Not ``plotly.graph_objects``: plotly.py
validates every property on construction, which cost more than all the queries of a run, compare or
scaling page (cProfile), for a figure plotly.js validates
again in the browser. plotly.js draws with no theme by default, which is what plotly.py's "none" template
asked for, so no theme is embedded per chart.

Text that came from uploads (system, phase, series and study names, config values) goes through
``escaped`` before it enters a figure: plotly.js interprets a subset of HTML in labels and hover text, and a
name must stay a name.
"""

import math
from dataclasses import dataclass
from html import escape
from typing import Any

from plotly.colors import qualitative, sample_colorscale

COLOURS = ["#1f5fbf", "#b26a00", "#1e7d32", "#7b3fa0", "#b3261e"]
BASE_LAYOUT = {
    "font": {"family": "system-ui, sans-serif", "size": 12},
    "legend": {"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
    "title": {"x": 0, "xanchor": "left"},
    "margin": {"t": 60, "r": 20, "b": 110, "l": 70},
    "hovermode": "closest",
}


@dataclass
class Chart:
    """A figure and the id of the json_script element that carries it to static/js/charts.js."""

    id: str
    figure: dict[str, Any]


def figure(traces: list[dict[str, Any]], title: str, **layout: Any) -> dict[str, Any]:
    """A figure with the page's common layout; ``layout`` keys replace the common ones."""
    return {"data": traces, "layout": {**BASE_LAYOUT, **layout, "title": {**BASE_LAYOUT["title"], "text": title}}}


def bar(**attributes: Any) -> dict[str, Any]:
    return {"type": "bar", **attributes}


def scatter(**attributes: Any) -> dict[str, Any]:
    return {"type": "scatter", **attributes}


def series_colours(count: int) -> list[str]:
    """``count`` colours, no two alike: plotly's qualitative Dark24 then Light24 (48 designed to be told
    apart), and past that evenly spaced samples of the Turbo scale, so that a study with many configs
    never draws two series in one colour (plotly.js's default cycle repeats after 10)."""
    palette = [*qualitative.Dark24, *qualitative.Light24]
    if count <= len(palette):
        return palette[:count]
    return sample_colorscale("Turbo", [index / (count - 1) for index in range(count)])


def escaped(text: Any) -> str:
    """Uploaded text as plotly.js shows it literally."""
    return escape(str(text), quote=False)


def log_ticks(values: list[float | None]) -> tuple[list[float], list[str]]:
    """Tick values and labels of a log axis over `values`: the whole decades the data spans, and, when it spans
    fewer than two, the 2 and 5 multiples too; every label is the full number ("2,000", never a bare "2")."""
    shown = [value for value in values if value is not None and value > 0]
    if not shown:
        return [], []
    low, high = min(shown), max(shown)
    decades = range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1)
    ticks = [10.0**exponent for exponent in decades if low / 1.5 <= 10.0**exponent <= high * 1.5]
    if len(ticks) < 2:
        ticks = sorted(
            multiple * 10.0**exponent
            for exponent in decades
            for multiple in (1, 2, 5)
            if low / 1.5 <= multiple * 10.0**exponent <= high * 1.5
        )
    return ticks, [f"{tick:,.0f}" if tick >= 1 else f"{tick:g}" for tick in ticks]


def log_axis(title: str, values: list[float | None] = (), **extra: Any) -> dict[str, Any]:
    """A log axis with its unit in the title and full-number labels (`log_ticks`): plotly's default log ticks
    label 2 and 5 inside each decade as bare digits, and a "5" above 1000 reads as five."""
    axis = {"type": "log", "title": {"text": title}, **extra}
    ticks, labels = log_ticks(list(values))
    if ticks:
        # The range reaches the outer ticks, so at least two labelled ticks are always in view.
        shown = [value for value in values if value is not None and value > 0]
        bottom, top = min(ticks[0], min(shown)), max(ticks[-1], max(shown))
        axis.update(
            tickmode="array", tickvals=ticks, ticktext=labels, range=[math.log10(bottom) - 0.05, math.log10(top) + 0.05]
        )
    else:
        axis.update(dtick=1, exponentformat="none", separatethousands=True)
    return axis


def unit_panels(
    names: list[str], units: list[str], series: list[dict[str, Any]], title: str, **layout: Any
) -> dict[str, Any]:
    """Grouped bars, one panel per unit: one axis never carries two units (GiB/s and kIOPS are not comparable).

    names, units: the categories (phases) and the unit of each; series: {"name", "values", "hover", "color", and
    optionally "opacity" per category}, one trace per series per panel, the legend shown once.
    """
    order = list(dict.fromkeys(units))
    gap = 0.1
    width = (1 - gap * (len(order) - 1)) / max(len(order), 1)
    traces: list[dict[str, Any]] = []
    axes: dict[str, Any] = {}
    for panel, unit in enumerate(order):
        suffix = "" if panel == 0 else str(panel + 1)
        chosen = [index for index, own in enumerate(units) if own == unit]
        for one in series:
            trace = bar(
                name=one["name"],
                x=[names[i] for i in chosen],
                y=[one["values"][i] for i in chosen],
                hovertext=[one["hover"][i] for i in chosen],
                hoverinfo="x+text+name",
                marker={"color": one["color"]},
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                legendgroup=one["name"],
                showlegend=panel == 0,
            )
            if "opacity" in one:
                trace["marker"]["opacity"] = [one["opacity"][i] for i in chosen]
            traces.append(trace)
        start = panel * (width + gap)
        axes[f"xaxis{suffix}"] = {"domain": [start, start + width], "tickangle": -35, "anchor": f"y{suffix}"}
        panel_values = [one["values"][i] for one in series for i in chosen]
        axes[f"yaxis{suffix}"] = log_axis(escaped(unit) or "value", panel_values, anchor=f"x{suffix}")
    return figure(traces, title, barmode="group", **axes, **layout)
