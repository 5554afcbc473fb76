"""/studies/ and /studies/<id>/: the pivot as printed, the verdicts, and offline Plotly charts."""

import json
import re
from pathlib import Path

import pytest

from apps.ingest.pipelines.ior import ingest_ior_paths
from apps.results.models import Study
from tests.pages import cdn_hosts

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[1] / "data" / "ior" / "study-slice"


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
    assert "hint4 is 2.9x faster than hint7 (write; CephFS, 8 nodes" in html
    assert "no significant difference between any config value (write, Lustre, 8 nodes)" in html
    charts = figures(html)
    assert set(charts) == {"fig-study-bars", "fig-study-lines"}
    bars = charts["fig-study-bars"]
    assert {trace["type"] for trace in bars["data"]} == {"bar"}
    assert all(trace["error_y"]["visible"] for trace in bars["data"])
    assert charts["fig-study-lines"]["layout"]["xaxis"]["tickvals"] == [8, 16]
    assert "vendor/plotly/plotly.min.js" in html
    assert cdn_hosts(html) == set()


def test_read_is_chosen_with_a_query_parameter(client, study):
    html = client.get(f"/studies/{study.pk}/?operation=read").content.decode()
    assert "Verdicts (read)" in html
    assert "4540.63 ± 73.92" in html


def test_an_unknown_study_is_a_404(client):
    assert client.get("/studies/999/").status_code == 404
