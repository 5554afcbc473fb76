"""A study's figures draw the pivot as given and show uploaded config values as text, not markup."""

import json
from types import SimpleNamespace

from apps.leaderboard.studies.charts import grouped_bars_figure, lines_figure


def cell(mean: float, stddev: float) -> SimpleNamespace:
    return SimpleNamespace(mean=mean, stddev=stddev)


TABLE = {
    "columns": ["nodes"],
    "column_values": [[8], [16]],
    "body": [
        {"row": ["mpiio", "<b>hint4</b>"], "cells": [cell(3378.82, 228.18), cell(6100.0, 90.0)]},
        {"row": ["posix", "default"], "cells": [cell(2000.0, 10.0), None]},
    ],
}


def test_bars_carry_one_stddev_error_bars_per_cell():
    figure = grouped_bars_figure(TABLE, "write", "MiB/s")
    first, second = figure["data"]
    assert first["type"] == "bar"
    assert first["y"] == [3378.82, 6100.0]
    assert first["error_y"] == {"type": "data", "array": [228.18, 90.0], "visible": True}
    assert second["y"] == [2000.0, None]
    assert figure["layout"]["barmode"] == "group"


def test_lines_skip_missing_cells_and_tick_only_measured_node_counts():
    figure = lines_figure(TABLE, "write against nodes", "MiB/s")
    assert figure["data"][1]["x"] == [8]
    assert figure["layout"]["xaxis"]["tickvals"] == [8, 16]
    assert figure["layout"]["xaxis"]["type"] == "log"


def test_config_values_from_logs_are_escaped():
    figure = grouped_bars_figure(TABLE, "write", "MiB/s")
    assert figure["data"][0]["name"] == "mpiio · &lt;b&gt;hint4&lt;/b&gt;"
    assert "<b>" not in json.dumps(figure)
