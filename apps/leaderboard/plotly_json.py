"""The one way ioboard builds a Plotly figure: plain dicts in plotly.js's JSON schema.

``static/js/charts.js`` draws them from a ``json_script`` element. Not ``plotly.graph_objects``: plotly.py
validates every property on construction, which cost more than all the queries of a run, compare or
scaling page at 1M runs (cProfile: ~200 ms of a series page's ~230 ms), for a figure plotly.js validates
again in the browser. plotly.js draws with no theme by default, which is what plotly.py's "none" template
asked for, so no theme is embedded per chart.

Text that came from uploads (system, phase, series and study names, config values) goes through
``escaped`` before it enters a figure: plotly.js interprets a subset of HTML in labels and hover text, and a
name must stay a name.
"""

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
