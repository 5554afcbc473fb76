"""Plotly figures of a parameter study, as JSON-ready dicts for ``static/js/charts.js``.

* ``grouped_bars_figure``: one operation, one bar group per column value (e.g. nodes), one bar per
  row (e.g. api x hints config), error bars of one stddev over the repetitions - the seed's tables
  drawn;
* ``lines_figure``: mean bandwidth against a numeric axis (nodes), one line per row.

Pure functions of a pivot (``apps.results.studies.analysis.pivot``): no Django, no network access.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

BANDWIDTH_AXIS_TITLE = "MiB/s (mean of the repetitions)"


def _as_json(figure: go.Figure) -> dict[str, Any]:
    payload = figure.to_plotly_json()
    payload["layout"].pop("template", None)  # the page styles every chart alike
    return payload


def _label(values: list[Any]) -> str:
    return " · ".join(str(value) for value in values)


def _layout(title: str, x_title: str, **extra: Any) -> dict[str, Any]:
    return {
        "title": {"text": title},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": BANDWIDTH_AXIS_TITLE}, "rangemode": "tozero", "separatethousands": True},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 60, "l": 70, "r": 20, "b": 60},
        **extra,
    }


def grouped_bars_figure(table: dict[str, Any], title: str) -> dict[str, Any]:
    figure = go.Figure()
    columns = [_label(values) for values in table["column_values"]]
    for row in table["body"]:
        means = [cell.mean if cell else None for cell in row["cells"]]
        spreads = [cell.stddev if cell and cell.stddev is not None else 0 for cell in row["cells"]]
        figure.add_trace(go.Bar(
            x=columns, y=means, name=_label(row["row"]),
            error_y={"type": "data", "array": spreads, "visible": True},
            hovertemplate=f"{_label(row['row'])}<br>%{{x}}: %{{y:,.2f}} MiB/s<extra></extra>",
        ))
    figure.update_layout(_layout(title, " · ".join(table["columns"]), barmode="group"))
    return _as_json(figure)


def lines_figure(table: dict[str, Any], title: str) -> dict[str, Any]:
    figure = go.Figure()
    xs = [values[0] for values in table["column_values"]]
    for row in table["body"]:
        present = [(x, cell) for x, cell in zip(xs, row["cells"], strict=True) if cell and cell.mean is not None]
        figure.add_trace(go.Scatter(
            x=[x for x, _ in present], y=[cell.mean for _, cell in present], mode="lines+markers",
            name=_label(row["row"]),
            error_y={"type": "data", "array": [cell.stddev or 0 for _, cell in present], "visible": True},
            hovertemplate=f"{_label(row['row'])}<br>%{{x}}: %{{y:,.2f}} MiB/s<extra></extra>",
        ))
    figure.update_layout(_layout(title, table["columns"][0]))
    figure.update_layout(xaxis={"title": {"text": table["columns"][0]}, "type": "log",
                                "tickmode": "array", "tickvals": xs, "ticktext": [str(x) for x in xs]})
    return _as_json(figure)
