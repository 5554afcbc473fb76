"""Ingesting mdtest logs into a scaling series: per-log transactions, idempotence, reports, export."""

import io
import json
import shutil
import tarfile
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.base import ContentFile
from django.core.management import CommandError, call_command

from apps.ingest.core.common import IngestError
from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths, ingest_mdtest_upload
from apps.results.judgements.scaling.analysis import analyse_points
from apps.results.models import ScalingPoint, ScalingSeries, Upload

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[3] / "data" / "mdtest"
SLICE = DATA / "dne-campaign-slice"
RATE_TIME_LOG = "mdtest-3.3.0+dev_io500-bash-era_rate+time-tables_io500-submission-data_sub52.txt"


@pytest.fixture
def campaign(tmp_path) -> Path:
    """A writable copy of the campaign slice, so a test can break or add files."""
    return Path(shutil.copytree(SLICE, tmp_path / "campaign"))


def truth_of(folder: Path) -> dict:
    truth = json.loads((folder / "truth.json").read_text())
    return {
        (knee["operation"].lower().replace(" ", "_"), knee["files_per_dir"], knee["striping"]): knee[
            "saturation_mdt_count"
        ]
        for knee in truth["knees"]
    }


def saturation_of(series_name: str) -> dict:
    points = ScalingPoint.objects.filter(series__name=series_name)
    return {
        (row["operation"], row["files_per_dir"], row["striping"]): row["mdt_count"]
        for row in analyse_points(points).saturation_table()
    }


def test_a_campaign_folder_with_its_manifest_becomes_a_series_matching_the_truth(campaign):
    summary = ingest_mdtest_paths([campaign], series_name="slice", manifest=campaign / "manifest.csv")

    assert (len(summary.stored), summary.points_created, summary.failed, summary.unknown_mdt) == (20, 120, [], [])
    assert sorted(summary.skipped) == ["manifest.csv (manifest)", "truth.json"]
    assert ScalingSeries.objects.get().name == "slice"
    assert ScalingPoint.objects.count() == 120
    assert saturation_of("slice") == truth_of(campaign)


def test_a_manifest_inside_the_folder_is_used_when_none_is_given(campaign):
    summary = ingest_mdtest_paths([campaign], series_name="slice")

    assert summary.manifest == "manifest.csv"
    assert set(ScalingPoint.objects.values_list("striping", flat=True)) == {"non-inherited"}


def test_without_any_manifest_the_layout_places_the_logs(campaign):
    (campaign / "manifest.csv").unlink()

    ingest_mdtest_paths([campaign], series_name="slice")

    inferred = {
        (operation, files, "non-inherited"): count for (operation, files, _), count in saturation_of("slice").items()
    }
    assert inferred == truth_of(campaign)
    assert set(ScalingPoint.objects.values_list("striping", flat=True)) == {"unknown"}


def test_ingesting_the_same_logs_again_adds_nothing(campaign):
    ingest_mdtest_paths([campaign], series_name="slice")
    again = ingest_mdtest_paths([campaign], series_name="slice")

    assert (len(again.stored), len(again.unchanged), again.points_created) == (0, 20, 0)
    assert ScalingPoint.objects.count() == 120


def test_a_corrected_manifest_replaces_the_points_of_the_logs_it_moves(campaign):
    ingest_mdtest_paths([campaign], series_name="slice")
    manifest = campaign / "manifest.csv"
    manifest.write_text(manifest.read_text().replace(",non-inherited", ",inherited"))

    again = ingest_mdtest_paths([campaign], series_name="slice")

    assert (len(again.updated), len(again.unchanged)) == (20, 0)
    assert ScalingPoint.objects.count() == 120
    assert set(ScalingPoint.objects.values_list("striping", flat=True)) == {"inherited"}


def test_a_truncated_log_is_reported_with_its_line_and_stores_nothing(campaign):
    broken = campaign / "dne2_4_mds" / "unique_10k_80" / "mdtest.out"
    lines = broken.read_text().split("\n")
    broken.write_text(
        "\n".join(lines[: lines.index(next(line for line in lines if "File stat " in line and "sec" not in line))])
    )

    summary = ingest_mdtest_paths([campaign], series_name="slice")

    (failure,) = summary.failed
    assert failure.startswith("dne2_4_mds/unique_10k_80/mdtest.out:")
    assert "truncated" in failure
    assert len(summary.stored) == 19
    assert not ScalingPoint.objects.filter(source_file="dne2_4_mds/unique_10k_80/mdtest.out").exists()
    assert "FAILED dne2_4_mds/unique_10k_80/mdtest.out:" in str(summary)


def test_a_garbled_row_is_reported_with_its_line(campaign):
    garbled = campaign / "dne2_2_mds" / "unique_10k_1" / "mdtest.out"
    text = garbled.read_text()
    summary_at = text.index("SUMMARY")
    garbled.write_text(text[:summary_at] + text[summary_at:].replace("File removal      :", "File removal      : x", 1))

    summary = ingest_mdtest_paths([campaign], series_name="slice")

    (failure,) = summary.failed
    line = int(failure.split(":")[1])
    assert "File removal" in garbled.read_text().split("\n")[line - 1]
    assert ScalingPoint.objects.exclude(source_file__startswith="dne2_2_mds/unique_10k_1/").count() == 114
    assert ScalingPoint.objects.count() == 114


def test_a_log_whose_mdt_count_cannot_be_known_is_reported_by_name(tmp_path):
    shutil.copy(DATA / RATE_TIME_LOG, tmp_path / RATE_TIME_LOG)

    summary = ingest_mdtest_paths([tmp_path], series_name="io500")

    (unknown,) = summary.unknown_mdt
    assert unknown.startswith(RATE_TIME_LOG)
    assert "no MDT count" in unknown
    assert ScalingPoint.objects.count() == 0
    assert f"MDT count unknown, not stored: {RATE_TIME_LOG}" in str(summary)


def test_other_files_are_skipped_and_counted(campaign):
    (campaign / "notes.txt").write_text("ran on Tuesday, MDS 3 was flaky\n")
    (campaign / "results.json").write_text('{"mdtest": "see logs"}\n')
    (campaign / "empty.out").write_text("")
    (campaign / "._mdtest.out").write_bytes(b"\x00\x05\x16\x07")

    summary = ingest_mdtest_paths([campaign], series_name="slice")

    assert sorted(summary.skipped) == [
        "._mdtest.out",
        "empty.out (empty)",
        "manifest.csv (manifest)",
        "notes.txt",
        "results.json",
        "truth.json",
    ]
    assert "6 other files skipped" in str(summary)
    assert not summary.failed


def test_every_summary_number_is_stored_exactly_as_printed(tmp_path):
    folder = tmp_path / "dne_8mdt"
    folder.mkdir()
    shutil.copy(DATA / RATE_TIME_LOG, folder / "easy.txt")

    ingest_mdtest_paths([tmp_path], series_name="exact")

    points = {point.operation: point for point in ScalingPoint.objects.all()}
    assert set(points) == {"file_creation", "file_stat", "file_read", "file_removal", "tree_creation", "tree_removal"}
    creation = points["file_creation"]
    assert (creation.max, creation.min, creation.mean, creation.stddev) == (
        Decimal("143571.019"),
        Decimal("143570.943"),
        Decimal("143570.977"),
        Decimal("0.020"),
    )
    assert [str(value) for value in (creation.max, creation.stddev)] == ["143571.019", "0.020"]
    assert (creation.time_max, creation.time_mean) == (Decimal("657.841"), Decimal("657.841"))
    assert creation.printed["stonewall_rate"] == {
        "label": "File create (stonewall)",
        "max": "NA",
        "min": "NA",
        "mean": "181096.788",
        "stddev": "NA",
    }
    assert str(points["file_stat"].max) == "0.000"
    assert creation.mdt_count == 8


def test_task_scaling_blocks_are_points_of_their_own(tmp_path):
    name = "mdtest-1.9.3_llnl_verbose_task-scaling-f4-l8-s4_constructed.txt"
    shutil.copy(DATA / name, tmp_path / name)

    ingest_mdtest_paths([tmp_path / name], series_name="blocks")

    creations = ScalingPoint.objects.filter(operation="file_creation").order_by("block_index")
    assert [(point.tasks, point.block_index, point.mdt_count) for point in creations] == [(4, 0, 4), (8, 1, 4)]
    assert len(creations[1].iteration_values) == 2


def test_an_archive_of_logs_ingests_like_the_folder(campaign, tmp_path):
    archive = tmp_path / "campaign.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(campaign, arcname="campaign")

    summary = ingest_mdtest_paths([archive], series_name="from archive")

    assert (len(summary.stored), summary.failed) == (20, [])
    assert summary.manifest == "campaign/manifest.csv"
    assert saturation_of("from archive") == truth_of(campaign)


def test_a_broken_manifest_stops_before_storing_anything(campaign):
    (campaign / "manifest.csv").write_text("log,mdt_count\ndne2_1_mds/unique_10k_1/mdtest.out,one\n")

    summary = ingest_mdtest_paths([campaign], series_name="slice")

    (failure,) = summary.failed
    assert failure.startswith("manifest.csv:2:")
    assert ScalingPoint.objects.count() == 0


def test_missing_paths_are_reported(tmp_path):
    summary = ingest_mdtest_paths([tmp_path / "nowhere"], series_name="x")
    assert summary.failed == [f"{tmp_path / 'nowhere'}: no such file or directory"]


def test_manifest_rows_without_a_log_are_a_warning(campaign):
    (campaign / "dne2_16_mds" / "unique_10k_400" / "mdtest.out").unlink()

    summary = ingest_mdtest_paths([campaign], series_name="slice", manifest=campaign / "manifest.csv")

    assert any(
        "lists 1 logs that were not found: dne2_16_mds/unique_10k_400/mdtest.out" in warning
        for warning in summary.warnings
    )


def make_upload(data: bytes, name: str, **declared) -> Upload:
    upload = Upload(
        sha256=str(abs(hash(data))), original_name=name, size=len(data), kind="mdtest", declared_metadata=declared
    )
    upload.file.save(name, ContentFile(data), save=True)
    return upload


def test_an_uploaded_archive_with_a_manifest_fills_the_named_series(campaign, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for item in sorted(campaign.iterdir()):
            tar.add(item, arcname=item.name)
    upload = make_upload(buffer.getvalue(), "slice.tgz", series="uploaded slice")

    assert ingest_mdtest_upload(upload) == []

    series = ScalingSeries.objects.get(name="uploaded slice")
    assert series.upload == upload
    assert series.points.count() == 120
    assert saturation_of("uploaded slice") == truth_of(campaign)


def test_an_uploaded_single_log_is_named_after_its_original_file(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    upload = make_upload((SLICE / "dne2_8_mds" / "unique_10k_80" / "mdtest.out").read_bytes(), "dne2_8_mds.out")

    ingest_mdtest_upload(upload)

    point = ScalingPoint.objects.filter(series__name="dne2_8_mds").first()
    assert (point.mdt_count, point.source_file) == (8, "dne2_8_mds.out")


def test_an_upload_with_a_bad_log_fails_its_job_with_file_and_line(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    text = (SLICE / "dne2_8_mds" / "unique_10k_80" / "mdtest.out").read_text()
    upload = make_upload(text.split("SUMMARY")[0].encode(), "dne2_8_mds.out", series="s")

    with pytest.raises(IngestError, match=r"dne2_8_mds\.out: dne2_8_mds\.out:\d+: .*truncated"):
        ingest_mdtest_upload(upload)
    assert ScalingPoint.objects.count() == 0


def test_the_ingest_command_reports_and_export_scaling_prints_the_series(campaign, capsys):
    call_command(
        "ingest", "--kind", "mdtest", str(campaign), "--series", "cli", "--manifest", str(campaign / "manifest.csv")
    )
    assert "series 'cli': 20 logs stored (120 points)" in capsys.readouterr().out

    call_command("export_scaling", "cli", "--format", "json")
    text = capsys.readouterr().out
    document = json.loads(text, parse_float=Decimal)

    assert document["name"] == "cli"
    assert len(document["points"]) == 120
    point = document["points"][0]
    assert set(point) >= {
        "mdt_count",
        "client_nodes",
        "tasks",
        "files_per_dir",
        "striping",
        "operation",
        "max",
        "min",
        "mean",
        "stddev",
        "iterations",
        "source",
    }
    for point in document["points"]:
        printed = point["printed"]["rate"]
        assert [point[name] for name in ("max", "min", "mean", "stddev")] == [
            Decimal(printed[name]) for name in ("max", "min", "mean", "stddev")
        ]
        assert f'"max": {printed["max"]},' in text
    saturation = {
        (row["operation"], row["files_per_dir"], row["striping"]): row["mdt_count"] for row in document["saturation"]
    }
    assert saturation == truth_of(campaign)
    assert all(set(row) == {"operation", "files_per_dir", "striping", "mdt_count"} for row in document["saturation"])


def test_the_time_table_goes_in_the_same_point_of_the_export(tmp_path, capsys):
    folder = tmp_path / "8mdt"
    folder.mkdir()
    shutil.copy(DATA / RATE_TIME_LOG, folder / "log.txt")
    ingest_mdtest_paths([tmp_path], series_name="timed")

    call_command("export_scaling", "timed")
    document = json.loads(capsys.readouterr().out, parse_float=Decimal)

    creations = [point for point in document["points"] if point["operation"] == "file_creation"]
    assert len(creations) == 1
    assert (creations[0]["max"], creations[0]["time_max"]) == (Decimal("143571.019"), Decimal("657.841"))
    assert len(document["points"]) == 6


def test_export_scaling_as_csv_and_for_an_unknown_series(campaign, capsys):
    ingest_mdtest_paths([campaign], series_name="slice")
    call_command("export_scaling", "slice", "--format", "csv")
    lines = capsys.readouterr().out.strip().split("\n")
    assert lines[0].startswith("mdt_count,client_nodes,tasks,files_per_dir,striping,operation,max,min,mean,stddev")
    assert len(lines) == 121
    with pytest.raises(CommandError, match="no DNE scaling series named 'nope'"):
        call_command("export_scaling", "nope")


def test_an_ingest_that_stores_nothing_leaves_no_empty_series(tmp_path):
    shutil.copy(DATA / RATE_TIME_LOG, tmp_path / RATE_TIME_LOG)
    ingest_mdtest_paths([tmp_path], series_name="nothing to place")
    assert not ScalingSeries.objects.exists()
