"""/studies/ and /studies/<id>/: the pivot as printed, the verdicts, and offline Plotly charts."""

import json
import re
from html import unescape
from pathlib import Path

import pytest

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.results.models import Study
from synth.study import StudySpec, write_study
from tests.pages import cdn_hosts

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[2] / "data" / "ior" / "study-slice"


def figures(html: str) -> dict[str, dict]:
    scripts = re.findall(r'<script id="([^"]+)" type="application/json">(.*?)</script>', html, re.S)
    return {chart_id: json.loads(body) for chart_id, body in scripts}


@pytest.fixture
def study():
    ingest_ior_paths([SLICE], study_name="hints")
    return Study.objects.get()


def test_the_list_links_every_study_with_its_size(client, study):
    html = client.get("/studies/").content.decode()
    assert f'href="/studies/{study.pk}/"' in html
    assert ">8</td>" in html  # logs
    assert ">16</td>" in html  # points


def test_the_empty_list_says_how_to_ingest(client):
    assert "ingest --kind ior PATH --study NAME" in client.get("/studies/").content.decode()


def test_the_detail_shows_the_pivot_as_printed_the_verdicts_and_the_charts(client, study):
    response = client.get(f"/studies/{study.pk}/")
    assert response.status_code == 200
    html = response.content.decode()
    # CephFS hint4 at 8 nodes, write: the Summary row's Mean(MiB) and StdDev (truth.json)
    assert "3378.82 ± 228.18" in html
    # one log per configuration: every group says it could not be tested, never "no significant difference"
    assert (
        "not testable: no config value has 2 jobs (logs) on both sides of a comparison (write, Lustre, 8 nodes)" in html
    )
    assert "no significant difference" not in html
    charts = figures(html)
    assert set(charts) == {"fig-study-bars", "fig-study-lines"}
    bars = charts["fig-study-bars"]
    assert {trace["type"] for trace in bars["data"]} == {"bar"}
    assert all(trace["error_y"]["visible"] for trace in bars["data"])
    assert charts["fig-study-lines"]["layout"]["xaxis"]["tickvals"] == [8, 16]
    assert "vendor/plotly/plotly.min.js" in html
    assert cdn_hosts(html) == set()


def verdict_rows(html: str) -> list[list[str]]:
    table = html.split('<table class="verdicts">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", table, re.S)
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)]
        for row in rows
    ]


def test_the_verdict_table_reports_co_varying_axes_once_with_ratio_interval_and_verdict(client, tmp_path):
    spec = StudySpec(
        seed=41,
        filesystems={"GPFS": 0.02},
        apis=["POSIX"],
        nodes=[2, 8],
        configs=["c1", "c2", "c3"],
        repetitions=3,
        levels=[1.0, 1.0, 2.0],
        jobs=3,
        job_noise=0.02,
    )
    write_study(spec, tmp_path)
    ingest_ior_paths([tmp_path], study_name="jobs", manifest=tmp_path / "manifest.csv")

    html = client.get(f"/studies/{Study.objects.get().pk}/?columns=nodes").content.decode()

    rows = verdict_rows(html)
    headers = [row[0] for row in rows if len(row) == 1]
    # config and its label change together: one header, never a second copy of the comparisons under label
    assert headers == [
        "config · label (2 nodes)",
        "config · label (8 nodes)",
        "nodes · tasks (c1)",
        "nodes · tasks (c2)",
        "nodes · tasks (c3)",
    ]
    c1_c3 = next(row for row in rows if row[1:3] == ["c1", "c3"])
    ratio, low, high = float(c1_c3[3]), *map(float, c1_c3[4].split("–"))
    assert low < ratio < high
    assert 0.4 < ratio < 0.6
    assert c1_c3[5:] == ["3 / 3", f"{1 / ratio:.2g}x slower"]
    bars = figures(html)["fig-study-bars"]["data"]
    colours = [trace["marker"]["color"] for trace in bars]
    assert len(colours) == len(set(colours)) == 3


def test_read_is_chosen_with_a_query_parameter(client, study):
    html = client.get(f"/studies/{study.pk}/?operation=read").content.decode()
    assert "Verdicts (read)" in html
    assert "4540.63 ± 73.92" in html


@pytest.mark.parametrize(
    ("query", "named"),
    [("operation=stat", "operation 'stat'"), ("operation=", "operation ''"), ("columns=colour", "columns 'colour'")],
)
def test_an_operation_or_axis_the_study_does_not_have_is_a_400_saying_so(client, study, query, named):
    response = client.get(f"/studies/{study.pk}/?{query}")
    assert response.status_code == 400
    text = unescape(response.content.decode())
    assert f"This study has no {named}" in text
    assert "; it has: " in text  # the choices it does have


def test_an_unknown_study_is_a_404(client):
    assert client.get("/studies/999/").status_code == 404
