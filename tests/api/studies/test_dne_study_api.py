"""The API links a DNE series and its parameter study both ways, and serves the study's comparisons."""

import shutil
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import ScalingSeries

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[2] / "data" / "mdtest" / "dne-campaign-slice"


def test_a_series_names_its_study_and_the_study_its_series_and_unit(anonymous_client, tmp_path):
    ingest_mdtest_paths([shutil.copytree(SLICE, tmp_path / "slice")], series_name="slice")
    series = ScalingSeries.objects.get()

    listed = anonymous_client.get("/api/v1/scaling-series/").json()["results"][0]
    study = anonymous_client.get(f"/api/v1/studies/{listed['study']}/").json()

    assert listed["study"] == series.study.pk
    assert (study["name"], study["scaling_series"], study["unit"]) == ("slice (DNE scaling)", series.pk, "ops/s")
    assert study["axes"] == ["mdt_count", "nodes", "tasks", "files_per_dir", "striping", "unique_dir"]
    assert len(study["points"]) == 120
    assert {comparison["axis"] for comparison in study["comparisons"]} == {"mdt_count", "nodes", "tasks"}


def test_a_series_without_a_study_lists_none(anonymous_client):
    ScalingSeries.objects.create(name="made in the admin")

    assert anonymous_client.get("/api/v1/scaling-series/").json()["results"][0]["study"] is None
