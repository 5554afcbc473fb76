"""A DNE series' page links to its study page and back; the study page speaks of mdtest's ops/s and MDTs."""

import json
import re
import shutil
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import ScalingSeries

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[2] / "data" / "mdtest" / "dne-campaign-slice"


def figures(html: str) -> dict[str, dict]:
    scripts = re.findall(r'<script id="([^"]+)" type="application/json">(.*?)</script>', html, re.S)
    return {chart_id: json.loads(body) for chart_id, body in scripts}


def summary_mean(log: str) -> float:
    """The Mean column of the log's SUMMARY "File creation" row."""
    text = (SLICE / log / "mdtest.out").read_text()
    return float(re.search(r"^   File creation\s*:\s+[\d.]+\s+[\d.]+\s+([\d.]+)", text, re.M)[1])


@pytest.fixture
def series(tmp_path) -> ScalingSeries:
    ingest_mdtest_paths([shutil.copytree(SLICE, tmp_path / "slice")], series_name="slice")
    return ScalingSeries.objects.get()


def test_the_scaling_page_links_to_its_study_and_the_study_page_back(client, series):
    scaling_html = client.get(f"/scaling/{series.pk}/").content.decode()
    study_html = client.get(f"/studies/{series.study.pk}/").content.decode()

    assert f'href="/studies/{series.study.pk}/">slice (DNE scaling)</a>' in scaling_html
    assert f'href="/scaling/{series.pk}/">slice</a>' in study_html


def test_the_study_page_of_a_series_shows_ops_per_second_verdicts_on_mdts_and_lines_against_mdts(client, series):
    html = client.get(f"/studies/{series.study.pk}/?operation=file_creation&columns=mdt_count").content.decode()

    assert "Mean ± stddev (file_creation, ops/s)" in html
    assert "mdtest logs" in html
    assert "IOR logs" not in html
    # File creation on 4 nodes (80 tasks): the ratio of the means the two logs' SUMMARY rows print.
    ratio = summary_mean("dne2_16_mds/unique_10k_80") / summary_mean("dne2_1_mds/unique_10k_80")
    assert (
        f"1 MDT vs 16 MDTs: not testable, 1 job against 1: a side needs 2 jobs (logs), its iterations are "
        f"not independent (file_creation; 4 nodes; measured ratio {1 / ratio:.3g})" in html
    )
    charts = figures(html)
    assert set(charts) == {"fig-study-bars", "fig-study-lines"}
    assert charts["fig-study-lines"]["layout"]["yaxis"]["title"]["text"] == "ops/s (mean of the repetitions)"
    assert charts["fig-study-lines"]["layout"]["xaxis"]["title"]["text"] == "mdt_count"
