"""A DNE scaling series is also a parameter study: its study holds one point per series point, with
axes mdt_count / nodes / tasks / files_per_dir / striping / unique_dir, the rate row as mdtest printed
it and the per-iteration rates, and the study analysis (significance, export_study) runs on it.

Expected values are read here from the logs' text and the manifests with regular expressions and
the csv module, never from the code under test."""

import csv
import io
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import DatabaseError

from apps.ingest.core.common import IngestUsageError
from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import ScalingPoint, ScalingSeries, Study, StudyPoint
from tests.conftest import shared_path

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data" / "mdtest"
SLICE = DATA / "dne-campaign-slice"
RATE_TIME_LOG = "mdtest-3.3.0+dev_io500-bash-era_rate+time-tables_io500-submission-data_sub52.txt"
TASK_BLOCKS_LOG = "mdtest-1.9.3_llnl_verbose_task-scaling-f4-l8-s4_constructed.txt"

ITERATION_ROW = re.compile(r"^\s+([A-Za-z ]+?)\s*:\s+[\d.]+ sec,\s+([\d.]+) ops/sec$")
SUMMARY_ROW = re.compile(r"^\s+([A-Za-z ]+?)\s*:\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$")


def operation_name(printed: str) -> str:
    return printed.lower().replace(" ", "_")


def expected_points(root: Path) -> dict[tuple[str, str], dict]:
    """(log, operation) -> the study point the manifest and the log's text describe (1.8.3 format)."""
    expected = {}
    for row in csv.DictReader((root / "manifest.csv").open()):
        text = (root / row["log"]).read_text().splitlines()
        summary_at = next(index for index, line in enumerate(text) if line.startswith("SUMMARY"))
        iterations: dict[str, list[str]] = {}
        for line in text[:summary_at]:
            if match := ITERATION_ROW.match(line):
                iterations.setdefault(operation_name(match[1]), []).append(match[2])
        for line in text[summary_at:]:
            if match := SUMMARY_ROW.match(line):
                operation = operation_name(match[1])
                expected[(row["log"], operation)] = {
                    "axes": {
                        "mdt_count": int(row["mdt_count"]),
                        "nodes": int(row["client_nodes"]),
                        "tasks": int(row["tasks"]),
                        "files_per_dir": int(row["files_per_dir"]),
                        "striping": row["striping"],
                        "unique_dir": "/unique_" in row["log"],
                    },
                    "max": match[2],
                    "min": match[3],
                    "mean": match[4],
                    "stddev": match[5],
                    "iterations": iterations[operation],
                }
    return expected


def stored_points(study: Study) -> dict[tuple[str, str], dict]:
    return {
        (point.source, point.operation): {
            "axes": point.axes,
            "max": point.max,
            "min": point.min,
            "mean": point.mean,
            "stddev": point.stddev,
            "iterations": point.iterations,
        }
        for point in study.points.all()
    }


@pytest.fixture
def campaign(tmp_path) -> Path:
    return Path(shutil.copytree(SLICE, tmp_path / "campaign"))


def test_a_campaign_slice_becomes_a_series_and_its_study_point_for_point(campaign):
    summary = ingest_mdtest_paths([campaign], series_name="slice")

    series = ScalingSeries.objects.get()
    study = Study.objects.get()
    assert (study.scaling_series, study.name, study.unit) == (series, "slice (DNE scaling)", "ops/s")
    assert study.points.count() == series.points.count() == summary.points_created == 120
    assert stored_points(study) == expected_points(campaign)


@pytest.mark.corpus
def test_the_shared_campaign_sample_study_holds_every_summary_row_and_iteration_as_printed():
    root = shared_path("dne-campaign-sample")

    ingest_mdtest_paths([root], series_name="sample")

    expected = expected_points(root)
    assert len(expected) == 80 * 6
    assert stored_points(ScalingSeries.objects.get().study) == expected


@pytest.mark.corpus
def test_on_the_shared_sample_mdt_counts_are_compared_by_their_printed_means_and_not_tested_on_one_job():
    """The sample (README) is one log per configuration with 5 iterations: one job a side, so no pair is
    tested (iterations of one job are not independent repetitions) and none is called significant; the
    ratio is still the ratio of the printed means, for every pair of MDT counts at the same client load."""
    root = shared_path("dne-campaign-sample")
    ingest_mdtest_paths([root], series_name="sample")
    expected = expected_points(root)
    study = ScalingSeries.objects.get().study

    document = json.loads(export_study(study.name))

    means = {
        (point["axes"]["mdt_count"], point["axes"]["tasks"], point["axes"]["files_per_dir"], operation): Decimal(
            point["mean"]
        )
        for (_, operation), point in expected.items()
    }
    checked = 0
    for comparison in document["comparisons"]:
        if comparison["axis"] != "mdt_count":
            continue
        fixed = comparison["fixed"]
        assert set(fixed) == {"nodes", "tasks", "files_per_dir"}
        mean_a = means[(comparison["a"], fixed["tasks"], fixed["files_per_dir"], comparison["operation"])]
        mean_b = means[(comparison["b"], fixed["tasks"], fixed["files_per_dir"], comparison["operation"])]
        ratio = float(mean_a / mean_b)
        assert comparison["ratio"] == pytest.approx(ratio, rel=1e-5)
        assert (comparison["verdict"], comparison["jobs"], comparison["significant"]) == ("not_testable", [1, 1], False)
        checked += ratio > 1.2 or ratio < 1 / 1.2
    assert checked == 634  # the pairs 20 % apart (docs/studies.md): measured, not tested


def export_study(name: str) -> str:
    out = io.StringIO()
    call_command("export_study", name, stdout=out)
    return out.getvalue()


def test_export_study_prints_the_series_study_with_its_axes_and_comparisons(campaign):
    ingest_mdtest_paths([campaign], series_name="slice")

    document = json.loads(export_study("slice (DNE scaling)"))

    assert document["axes"] == ["mdt_count", "nodes", "tasks", "files_per_dir", "striping", "unique_dir"]
    assert len(document["points"]) == 120
    varying = {comparison["axis"] for comparison in document["comparisons"]}
    assert varying == {"mdt_count", "nodes", "tasks"}
    assert document["comparisons"]
    assert {(c["verdict"], c["p_value"], tuple(c["jobs"])) for c in document["comparisons"]} == {
        ("not_testable", None, (1, 1))
    }  # one log per configuration: one job a side


def test_ingesting_the_same_campaign_again_adds_no_study_and_no_study_point(campaign):
    ingest_mdtest_paths([campaign], series_name="slice")
    again = ingest_mdtest_paths([campaign], series_name="slice")

    assert (len(again.unchanged), again.points_created) == (20, 0)
    assert (Study.objects.count(), StudyPoint.objects.count()) == (1, 120)


def test_a_corrected_manifest_moves_the_study_points_with_the_series_points(campaign):
    ingest_mdtest_paths([campaign], series_name="slice")
    manifest = campaign / "manifest.csv"
    manifest.write_text(manifest.read_text().replace("non-inherited", "inherited"))

    summary = ingest_mdtest_paths([campaign], series_name="slice")

    assert len(summary.updated) == 20
    assert StudyPoint.objects.count() == 120
    assert {point.axes["striping"] for point in StudyPoint.objects.all()} == {"inherited"}
    assert stored_points(Study.objects.get()) == expected_points(campaign)


def test_a_log_whose_study_points_cannot_be_stored_leaves_neither_its_series_points_nor_its_study_points(
    campaign, monkeypatch
):
    broken = "dne2_1_mds/unique_10k_1/mdtest.out"
    store = Study.store_scaling_points

    def failing_for_one_log(study, points, upload=None):
        points = list(points)
        if any(point.source_file == broken for point in points):
            raise DatabaseError("disk full")
        store(study, points, upload)

    monkeypatch.setattr(Study, "store_scaling_points", failing_for_one_log)

    summary = ingest_mdtest_paths([campaign], series_name="slice")

    # the reason names the file, never the database's own text (kept in the server log)
    assert summary.failed == [f"{broken}: could not be stored (the database refused a value in it)"]
    assert not ScalingPoint.objects.filter(source_file=broken).exists()
    assert not StudyPoint.objects.filter(source=broken).exists()
    assert ScalingPoint.objects.count() == StudyPoint.objects.count() == 114


def test_the_points_of_every_tests_data_mdtest_log_agree_with_their_study_points(tmp_path):
    """Logs of three formats: rate and time tables with stonewall rows (3.3.0), task blocks (-f/-l/-s)."""
    folder = tmp_path / "dne_8mdt"
    folder.mkdir()
    shutil.copy(DATA / RATE_TIME_LOG, folder / "easy.txt")
    shutil.copy(DATA / TASK_BLOCKS_LOG, tmp_path / TASK_BLOCKS_LOG)

    ingest_mdtest_paths([tmp_path], series_name="formats")

    study = ScalingSeries.objects.get().study
    creation = study.points.get(source="dne_8mdt/easy.txt", operation="file_creation")
    # The log's "File creation" rate row: 143571.019 143570.943 143570.977 0.020 (three places kept).
    assert (creation.max, creation.min, creation.mean, creation.stddev) == (
        "143571.019",
        "143570.943",
        "143570.977",
        "0.020",
    )
    assert creation.axes["mdt_count"] == 8
    blocks = study.points.filter(operation="file_creation", source=TASK_BLOCKS_LOG).order_by("test_index")
    # The 4-task block ran on part of the launch's 2 nodes: its node count is unknown, so not an axis.
    assert [(point.test_index, point.axes) for point in blocks] == [
        (0, {"mdt_count": 4, "tasks": 4, "files_per_dir": 400, "striping": "unknown", "unique_dir": True}),
        (1, {"mdt_count": 4, "nodes": 2, "tasks": 8, "files_per_dir": 800, "striping": "unknown", "unique_dir": True}),
    ]
    assert blocks[0].iterations == ["7070.000", "7140.000"]  # its two "V-1:   File creation" lines
    assert len(blocks[1].iterations) == 2
    for point in ScalingPoint.objects.all():
        twin = study.points.get(log_hash=point.log_hash, operation=point.operation, axes__tasks=point.tasks)
        assert (twin.axes["mdt_count"], twin.axes["striping"], twin.source) == (
            point.mdt_count,
            point.striping,
            point.source_file,
        )
        assert (Decimal(twin.mean) if twin.mean else None) == point.mean


def test_the_study_name_of_a_series_whose_name_an_ior_study_took_carries_the_series_id(campaign):
    Study.objects.create(name="slice (DNE scaling)")

    ingest_mdtest_paths([campaign], series_name="slice")

    series = ScalingSeries.objects.get()
    assert series.study.name == f"slice (DNE scaling) #{series.pk}"


def test_ior_logs_are_not_added_to_a_series_study(campaign, tmp_path):
    ingest_mdtest_paths([campaign], series_name="slice")

    with pytest.raises(IngestUsageError, match="DNE scaling series"):
        ingest_ior_paths([tmp_path], study_name="slice (DNE scaling)")


def test_an_ingest_that_stores_nothing_leaves_no_study(tmp_path):
    (tmp_path / "notes.txt").write_text("not mdtest\n")

    ingest_mdtest_paths([tmp_path], series_name="nothing")

    assert (ScalingSeries.objects.count(), Study.objects.count()) == (0, 0)


def test_a_series_stored_before_studies_gets_its_study_from_the_data_migration(campaign):
    from importlib import import_module

    from django.apps import apps

    ingest_mdtest_paths([campaign], series_name="slice")
    Study.objects.all().delete()  # as a series stored before migration 0022 is
    assert ScalingSeries.objects.get().points.count() == 120

    import_module("apps.results.migrations.0022_a_study_for_every_dne_series").create_dne_studies(apps, None)

    study = Study.objects.get()
    assert (study.scaling_series, study.unit, study.axis_order) == (
        ScalingSeries.objects.get(),
        "ops/s",
        ["mdt_count", "nodes", "tasks", "files_per_dir", "striping", "unique_dir"],
    )
    assert stored_points(study) == expected_points(campaign)
