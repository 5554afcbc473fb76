"""Plotly figures of a parameter study (built with ``apps.leaderboard.common.plotly_json``).

* ``grouped_bars_figure``: one operation, one bar group per column value (e.g. nodes), one bar per
  row (e.g. api x hints config), error bars of one stddev over the repetitions - the seed's tables
  drawn;
* ``lines_figure``: mean bandwidth against a numeric axis (nodes, a DNE scaling series' MDT count), one line per row.

Each row (series) has its own colour (``series_colours``), the same in both figures.

The values are in the study's unit: IOR's MiB/s, or a DNE scaling series' mdtest ops/s.

Pure functions of a pivot (``apps.results.judgements.studies.analysis.pivot``). Config values come from the
uploaded logs, so they are escaped like any uploaded name.
"""

from __future__ import annotations

from typing import Any

from apps.leaderboard.common.plotly_json import bar, escaped, figure, scatter, series_colours


def _label(values: list[Any]) -> str:
    return escaped(" · ".join(str(value) for value in values))


def value_axis_title(unit: str) -> str:
    """The y axis: the study's unit (IOR's MiB/s, a DNE scaling series' ops/s), means of the repetitions."""
    return f"{escaped(unit)} (mean of the repetitions)"


def _axes(x_title: str, unit: str, **x_extra: Any) -> dict[str, Any]:
    return {
        "xaxis": {"title": {"text": escaped(x_title)}, **x_extra},
        "yaxis": {"title": {"text": value_axis_title(unit)}, "rangemode": "tozero", "separatethousands": True},
        "legend": {"orientation": "h", "y": -0.25},
        "margin": {"t": 60, "l": 70, "r": 20, "b": 60},
    }


def _hover(row_label: str, unit: str) -> str:
    return f"{row_label}<br>%{{x}}: %{{y:,.2f}} {escaped(unit)}<extra></extra>"


def grouped_bars_figure(table: dict[str, Any], title: str, unit: str) -> dict[str, Any]:
    columns = [_label(values) for values in table["column_values"]]
    traces = []
    for row, colour in zip(table["body"], series_colours(len(table["body"])), strict=True):
        means = [cell.mean if cell else None for cell in row["cells"]]
        spreads = [cell.stddev if cell and cell.stddev is not None else 0 for cell in row["cells"]]
        traces.append(
            bar(
                x=columns,
                y=means,
                name=_label(row["row"]),
                marker={"color": colour},
                error_y={"type": "data", "array": spreads, "visible": True},
                hovertemplate=_hover(_label(row["row"]), unit),
            )
        )
    return figure(traces, escaped(title), barmode="group", **_axes(" · ".join(table["columns"]), unit))


def lines_figure(table: dict[str, Any], title: str, unit: str) -> dict[str, Any]:
    """Mean bandwidth against the first column axis on a log scale, ticks only where measured."""
    xs = [values[0] for values in table["column_values"]]
    traces = []
    for row, colour in zip(table["body"], series_colours(len(table["body"])), strict=True):
        present = [(x, cell) for x, cell in zip(xs, row["cells"], strict=True) if cell and cell.mean is not None]
        traces.append(
            scatter(
                x=[x for x, _ in present],
                y=[cell.mean for _, cell in present],
                mode="lines+markers",
                name=_label(row["row"]),
                marker={"color": colour},
                line={"color": colour},
                error_y={"type": "data", "array": [cell.stddev or 0 for _, cell in present], "visible": True},
                hovertemplate=_hover(_label(row["row"]), unit),
            )
        )
    ticks = {"type": "log", "tickmode": "array", "tickvals": xs, "ticktext": [str(x) for x in xs]}
    return figure(traces, escaped(title), **_axes(table["columns"][0], unit, **ticks))
