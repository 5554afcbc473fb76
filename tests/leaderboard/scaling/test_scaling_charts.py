"""The three DNE figures are plain JSON-ready Plotly dicts with the expected traces."""

import json
from dataclasses import dataclass

from apps.leaderboard.scaling.charts import client_scaling_figure, mdt_scaling_figure, overlay_figure
from apps.results.judgements.scaling.analysis import analyse_points


@dataclass
class Point:
    mdt_count: int
    tasks: int
    mean: float
    striping: str = "non-inherited"
    operation: str = "file_creation"
    files_per_dir: int = 10000
    client_nodes: int | None = 2
    max: float | None = None
    min: float | None = None
    stddev: float | None = 0.0


def campaign(striping: str = "non-inherited", knee_at: int = 4):
    points = []
    for mdt_count in (1, 2, 4, 8):
        for tasks in (20, 40, 80):
            mean = 1000.0 * min(mdt_count, knee_at) * min(1.0, tasks / 40)
            points.append(Point(mdt_count, tasks, mean, striping, max=mean * 1.02, min=mean * 0.97))
    return analyse_points(points).groups[0]


def test_client_scaling_has_one_line_per_mdt_count_with_min_max_error_bars():
    figure = client_scaling_figure(campaign())
    assert [trace["name"] for trace in figure["data"]] == ["1 MDT", "2 MDTs", "4 MDTs", "8 MDTs"]
    first = figure["data"][0]
    assert list(first["x"]) == [20, 40, 80]
    assert first["error_y"]["array"][1] == 1000.0 * 0.02
    assert first["error_y"]["arrayminus"][1] == 1000.0 * 0.03
    assert figure["layout"]["xaxis"]["title"]["text"] == "client tasks"
    assert "File creation" in figure["layout"]["title"]["text"]
    json.dumps(figure)


def test_mdt_scaling_marks_saturation_and_ideal_scaling():
    figure = mdt_scaling_figure(campaign(knee_at=4))
    names = [trace["name"] for trace in figure["data"]]
    assert names == ["ideal scaling", "peak rate", "saturation"]
    ideal, peak, saturation = figure["data"]
    assert list(ideal["y"]) == [1000.0, 2000.0, 4000.0, 8000.0]
    assert list(peak["y"]) == [1000.0, 2000.0, 4000.0, 4000.0]
    assert (list(saturation["x"]), list(saturation["y"])) == ([4], [4000.0])
    assert figure["layout"]["annotations"][0]["text"] == "saturates at 4 MDTs"
    assert figure["layout"]["xaxis"]["type"] == "log"
    assert list(figure["layout"]["xaxis"]["tickvals"]) == [1, 2, 4, 8]
    assert "template" not in figure["layout"]
    json.dumps(figure)


def test_a_curve_without_saturation_has_no_marker():
    figure = mdt_scaling_figure(campaign(knee_at=8))
    assert [trace["name"] for trace in figure["data"]] == ["ideal scaling", "peak rate"]
    assert not figure["layout"].get("annotations")


def test_two_series_overlay_each_with_its_saturation():
    figure = overlay_figure([("inherited", campaign("inherited", 2)), ("non-inherited", campaign(knee_at=4))])
    names = [trace["name"] for trace in figure["data"]]
    assert names == ["inherited", "inherited: saturation", "non-inherited", "non-inherited: saturation"]
    assert list(figure["data"][1]["x"]) == [2]
    assert list(figure["data"][3]["x"]) == [4]
    assert figure["layout"]["title"]["text"] == "File creation: peak rate vs MDT count"
    json.dumps(figure)


def test_an_uploaded_series_name_is_shown_as_text_not_markup():
    figure = overlay_figure([("<img src=x onerror=alert(1)>", campaign())])
    assert figure["data"][0]["name"] == "&lt;img src=x onerror=alert(1)&gt;"
    assert "<img" not in json.dumps(figure)
