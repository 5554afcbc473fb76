"""/api/v1/scaling-series/: series, their points as printed, and the saturation analysis."""

import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import ScalingSeries
from tests.api.uploading import named_file, tar_gz_of

pytestmark = pytest.mark.django_db

SLICE = Path(__file__).resolve().parents[2] / "data" / "mdtest" / "dne-campaign-slice"
SERIES = "/api/v1/scaling-series/"


@pytest.fixture
def slice_series(tmp_path) -> ScalingSeries:
    ingest_mdtest_paths([shutil.copytree(SLICE, tmp_path / "slice")], series_name="slice")
    return ScalingSeries.objects.get(name="slice")


def truth() -> dict:
    knees = json.loads((SLICE / "truth.json").read_text())["knees"]
    return {
        (knee["operation"].lower().replace(" ", "_"), knee["files_per_dir"], knee["striping"]): knee[
            "saturation_mdt_count"
        ]
        for knee in knees
    }


def test_the_list_gives_each_series_size_in_constant_queries(
    anonymous_client, slice_series, tmp_path, django_assert_num_queries
):
    with django_assert_num_queries(2):
        one = anonymous_client.get(SERIES).json()
    ScalingSeries.objects.create(name="empty")
    with django_assert_num_queries(2):
        two = anonymous_client.get(SERIES).json()
    assert one["count"] == 1
    assert two["count"] == 2
    row = next(item for item in two["results"] if item["name"] == "slice")
    assert (row["point_count"], row["log_count"], row["min_mdt_count"], row["max_mdt_count"]) == (120, 20, 1, 16)
    assert row["page_url"] == f"/scaling/{slice_series.pk}/"
    assert "points" not in row


def test_the_detail_has_points_as_printed_and_the_saturation(anonymous_client, slice_series, django_assert_num_queries):
    with django_assert_num_queries(2):
        response = anonymous_client.get(f"{SERIES}{slice_series.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert len(body["points"]) == 120
    for point in body["points"]:
        printed = point["printed"]["rate"]
        assert [point[name] for name in ("max", "min", "mean", "stddev")] == [
            printed[name] for name in ("max", "min", "mean", "stddev")
        ]
    found = {(row["operation"], row["files_per_dir"], row["striping"]): row["mdt_count"] for row in body["saturation"]}
    assert found == truth()
    group = body["analysis"]["groups"][0]
    assert [level["mdt_count"] for level in group["levels"]] == [1, 2, 4, 8, 16]
    assert group["levels"][0]["speedup"] == 1.0
    assert group["levels"][0]["client_saturation_tasks"] in {80, 160, 400}
    assert body["analysis"]["saturation_threshold"] == 0.1


def test_the_thresholds_are_query_parameters(anonymous_client, slice_series):
    body = anonymous_client.get(f"{SERIES}{slice_series.pk}/", {"saturation_threshold": 0.99}).json()
    assert body["analysis"]["saturation_threshold"] == 0.99
    assert [row["mdt_count"] for row in body["saturation"]] != list(truth().values())
    bad = anonymous_client.get(f"{SERIES}{slice_series.pk}/", {"saturation_threshold": "2"})
    assert bad.status_code == 400
    assert "saturation_threshold" in bad.json()


def test_decimals_keep_their_printed_digits(anonymous_client, slice_series):
    point = anonymous_client.get(f"{SERIES}{slice_series.pk}/").json()["points"][0]
    assert isinstance(point["max"], str)
    assert Decimal(point["max"]) == Decimal(point["printed"]["rate"]["max"])


def test_series_are_filtered_by_name_and_unknown_ids_are_404(anonymous_client, slice_series):
    assert anonymous_client.get(SERIES, {"name__icontains": "SLI"}).json()["count"] == 1
    assert anonymous_client.get(SERIES, {"name": "other"}).json()["count"] == 0
    assert anonymous_client.get(f"{SERIES}999/").status_code == 404


def test_the_api_is_read_only(alice_client, slice_series):
    assert alice_client.post(SERIES, {"name": "new"}).status_code == 405
    assert alice_client.delete(f"{SERIES}{slice_series.pk}/").status_code == 405


def test_an_uploaded_campaign_archive_becomes_a_series(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks, anonymous_client
):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/api/v1/uploads/",
            {"file": named_file(tar_gz_of(SLICE), "slice.tgz"), "kind": "mdtest", "series": "uploaded"},
            format="multipart",
        )

    assert response.status_code == 202, response.json()
    status = alice_client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    series = ScalingSeries.objects.get(name="uploaded")
    assert series.upload_id == response.json()["id"]
    body = anonymous_client.get(f"{SERIES}{series.pk}/").json()
    found = {(row["operation"], row["files_per_dir"], row["striping"]): row["mdt_count"] for row in body["saturation"]}
    assert found == truth()


def test_an_uploaded_truncated_log_fails_its_job_naming_the_line(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    text = (SLICE / "dne2_8_mds" / "unique_10k_80" / "mdtest.out").read_bytes()
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/api/v1/uploads/",
            {"file": named_file(text[: text.index(b"SUMMARY")], "dne2_8_mds.out"), "kind": "mdtest"},
            format="multipart",
        )

    status = alice_client.get(response.json()["status_url"]).json()
    assert status["status"] == "failed"
    assert "dne2_8_mds.out:" in status["error"]
    assert "truncated" in status["error"]
    assert not ScalingSeries.objects.exists()
