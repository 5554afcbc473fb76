"""/scaling/ and /scaling/<id>/: the saturation analysis and its charts, in a constant number of queries."""

import json
import re
import shutil
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import ScalingSeries

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[2] / "data" / "mdtest" / "dne-campaign-slice"


def ingest_slice(
    name: str, tmp_path: Path, *, striping: str = "non-inherited", mdt_counts: tuple[int, ...] = (1, 2, 4, 8, 16)
) -> ScalingSeries:
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
    assert [trace["name"] for trace in charts["fig-clients-0"]["data"]] == [
        "1 MDT",
        "2 MDTs",
        "4 MDTs",
        "8 MDTs",
        "16 MDTs",
    ]
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
            (SLICE / "dne2_1_mds" / "unique_10k_1" / "mdtest.out").read_text() + f"\n{striping}\n"
        )
    ingest_mdtest_paths([folder], series_name="both")
    series = ScalingSeries.objects.get(name="both")

    charts = figures(client.get(f"/scaling/{series.pk}/").content.decode())

    striping_charts = [figure for chart_id, figure in charts.items() if chart_id.startswith("fig-striping")]
    assert len(striping_charts) == 6
    assert [trace["name"] for trace in striping_charts[0]["data"]][::2] == [
        "inherited striping",
        "non-inherited striping",
    ]


def saturation_cells(html: str) -> list[str]:
    return re.findall(r"<strong>(\d+) MDTs?</strong>|(not reached)", html)


# Saturation MDT counts of the slice, worked out by hand from its mdtest.out files: the peak over client
# counts of the SUMMARY mean rate at 1, 2, 4, 8 and 16 MDTs, and each step's gain.
#   Directory creation 11004 → 21932 → 22521 → 23995 → 26288 ops/s: +99.3 %, +2.7 %, +6.5 %, +9.6 %
#   Directory stat     60121 → 119222 → 238235 → 248521 → 264957:   +98.3 %, +99.8 %, +4.3 %, +6.6 %
#   Directory removal   9085 → 17735 → 35992 → 37197 → 39621:       +95.2 %, +102.9 %, +3.3 %, +6.5 %
#   File creation      30216 → 60763 → 119426 → 123014 → 130390:    +101.1 %, +96.5 %, +3.0 %, +6.0 %
#   File stat          24744 → 49403 → 51642 → 54491 → 60221:       +99.7 %, +4.5 %, +5.5 %, +10.5 %
#   File removal       16077 → 31773 → 64561 → 127423 → 133032:     +97.6 %, +103.2 %, +97.4 %, +4.4 %
# The saturation count is where the next step first gains less than the threshold: at the default 10 %
# these are truth.json's knees; at 99 % the steps of +98.3, +95.2 and +97.6 % already fall short.
KNEES_AT_TEN_PERCENT = ["2", "4", "4", "4", "2", "8"]
KNEES_AT_NINETY_NINE_PERCENT = ["2", "1", "1", "2", "2", "1"]


def test_the_threshold_can_be_changed_and_a_bad_one_is_explained(client, tmp_path):
    series = ingest_slice("slice", tmp_path)

    default = saturation_cells(client.get(f"/scaling/{series.pk}/").content.decode())
    demanding = saturation_cells(client.get(f"/scaling/{series.pk}/?threshold=0.99").content.decode())
    percent = saturation_cells(client.get(f"/scaling/{series.pk}/?threshold=99").content.decode())

    assert [count or reached for count, reached in default] == KNEES_AT_TEN_PERCENT
    assert [count or reached for count, reached in demanding] == KNEES_AT_NINETY_NINE_PERCENT
    assert demanding == percent
    assert demanding != default
    bad = client.get(f"/scaling/{series.pk}/?threshold=lots").content.decode()
    assert "is not a number; using the default" in bad
    assert saturation_cells(bad) == default


def test_an_unknown_series_is_404(client):
    assert client.get("/scaling/999/").status_code == 404
