"""/scaling/ and /scaling/<id>/: the saturation analysis and its charts, in a constant number of queries."""

import json
import re
import shutil
from pathlib import Path

import pytest

from apps.ingest.mdtest_services import ingest_mdtest_paths
from apps.results.models import ScalingSeries
from apps.results.scaling.analysis import analyse_points

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[1] / "data" / "mdtest" / "dne-campaign-slice"


def ingest_slice(name: str, tmp_path: Path, *, striping: str = "non-inherited",
                 mdt_counts: tuple[int, ...] = (1, 2, 4, 8, 16)) -> ScalingSeries:
    folder = tmp_path / name
    shutil.copytree(SLICE, folder)
    manifest = folder / "manifest.csv"
    rows = manifest.read_text().replace(",non-inherited", f",{striping}").split("\n")
    kept = [rows[0], *(row for row in rows[1:] if row and int(row.split(",")[1]) in mdt_counts)]
    manifest.write_text("\n".join(kept) + "\n")
    for mdt_folder in folder.glob("dne2_*_mds"):
        if int(mdt_folder.name.split("_")[1]) not in mdt_counts:
            shutil.rmtree(mdt_folder)
    summary = ingest_mdtest_paths([folder], series_name=name)
    assert not summary.failed
    return ScalingSeries.objects.get(name=name)


def figures(html: str) -> dict[str, dict]:
    scripts = re.findall(r'<script id="([^"]+)" type="application/json">(.*?)</script>', html, re.S)
    return {chart_id: json.loads(body) for chart_id, body in scripts}


def test_the_list_shows_every_series_in_one_query(client, tmp_path, django_assert_num_queries):
    ingest_slice("first campaign", tmp_path, mdt_counts=(1, 2))
    with django_assert_num_queries(1):
        one = client.get("/scaling/")
    ingest_slice("second campaign", tmp_path)
    ingest_slice("third campaign", tmp_path, mdt_counts=(4, 8))
    with django_assert_num_queries(1):
        three = client.get("/scaling/")
    assert one.status_code == three.status_code == 200
    html = three.content.decode()
    for series in ScalingSeries.objects.all():
        assert f'href="/scaling/{series.pk}/"' in html
    assert "4–8" in html


def test_an_empty_list_says_how_to_ingest(client):
    response = client.get("/scaling/")
    assert "ingest --kind mdtest" in response.content.decode()


def test_the_detail_page_shows_saturation_and_charts(client, tmp_path):
    series = ingest_slice("slice", tmp_path)

    response = client.get(f"/scaling/{series.pk}/")

    assert response.status_code == 200
    html = response.content.decode()
    charts = figures(html)
    assert len(charts) == 12
    for chart_id in charts:
        assert f'class="plotly-chart" data-figure="{chart_id}"' in html
    mdt_chart = charts["fig-mdts-0"]
    assert [trace["name"] for trace in mdt_chart["data"]] == ["ideal scaling", "peak rate", "saturation"]
    assert mdt_chart["layout"]["title"]["text"].startswith("Directory creation: peak rate vs MDT count")
    assert [trace["name"] for trace in charts["fig-clients-0"]["data"]] == ["1 MDT", "2 MDTs", "4 MDTs", "8 MDTs",
                                                                            "16 MDTs"]
    assert "<strong>2 MDTs</strong>" in html
    assert "vendor/plotly/plotly.min.js" in html
    assert "js/charts.js" in html


def test_the_detail_page_costs_the_same_queries_however_big_the_series(client, tmp_path, django_assert_num_queries):
    small = ingest_slice("small", tmp_path, mdt_counts=(1, 2))
    big = ingest_slice("big", tmp_path)
    with django_assert_num_queries(3):
        client.get(f"/scaling/{small.pk}/")
    with django_assert_num_queries(3):
        client.get(f"/scaling/{big.pk}/")
    with django_assert_num_queries(5):
        client.get(f"/scaling/{big.pk}/?compare={small.pk}")


def test_two_series_are_overlaid(client, tmp_path):
    before = ingest_slice("lustre 2.12", tmp_path)
    after = ingest_slice("lustre 2.15", tmp_path)

    html = client.get(f"/scaling/{after.pk}/?compare={before.pk}").content.decode()

    overlays = {chart_id: figure for chart_id, figure in figures(html).items() if chart_id.startswith("fig-compare")}
    assert len(overlays) == 6
    names = [trace["name"] for trace in overlays["fig-compare-0"]["data"] if trace.get("showlegend") is not False]
    assert names == ["lustre 2.15", "lustre 2.12"]


def test_both_striping_modes_are_overlaid(client, tmp_path):
    folder = tmp_path / "both"
    folder.mkdir()
    for striping in ("inherited", "non-inherited"):
        shutil.copytree(SLICE, folder / striping)
        manifest = folder / striping / "manifest.csv"
        manifest.write_text(manifest.read_text().replace(",non-inherited", f",{striping}"))
        (folder / striping / "dne2_1_mds" / "unique_10k_1" / "mdtest.out").write_text(
            (SLICE / "dne2_1_mds" / "unique_10k_1" / "mdtest.out").read_text() + f"\n{striping}\n")
    ingest_mdtest_paths([folder], series_name="both")
    series = ScalingSeries.objects.get(name="both")

    charts = figures(client.get(f"/scaling/{series.pk}/").content.decode())

    striping_charts = [figure for chart_id, figure in charts.items() if chart_id.startswith("fig-striping")]
    assert len(striping_charts) == 6
    assert [trace["name"] for trace in striping_charts[0]["data"]][::2] == ["inherited striping",
                                                                            "non-inherited striping"]


def saturation_cells(html: str) -> list[str]:
    return re.findall(r"<strong>(\d+) MDTs?</strong>|(not reached)", html)


def test_the_threshold_can_be_changed_and_a_bad_one_is_explained(client, tmp_path):
    series = ingest_slice("slice", tmp_path)
    expected = [str(row["mdt_count"]) if row["mdt_count"] else "not reached"
                for row in analyse_points(series.points.all(), saturation_threshold=0.99).saturation_table()]

    default = saturation_cells(client.get(f"/scaling/{series.pk}/").content.decode())
    demanding = saturation_cells(client.get(f"/scaling/{series.pk}/?threshold=0.99").content.decode())
    percent = saturation_cells(client.get(f"/scaling/{series.pk}/?threshold=99").content.decode())

    assert [count or reached for count, reached in demanding][: len(expected)] == expected
    assert demanding == percent
    assert demanding != default
    bad = client.get(f"/scaling/{series.pk}/?threshold=lots").content.decode()
    assert "is not a number; using the default" in bad
    assert saturation_cells(bad) == default


def test_an_unknown_series_is_404(client):
    assert client.get("/scaling/999/").status_code == 404
