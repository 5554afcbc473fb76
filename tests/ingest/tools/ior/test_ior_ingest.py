"""Ingesting IOR logs into a parameter study: exact values, axes from logs and manifest, comparisons,
all-or-nothing per log, idempotence, the export shape. Expected values come from truth.json."""

import io
import json
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.results.models import Study, StudyPoint
from tests.conftest import shared_path

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[3] / "data" / "ior"
SLICE = DATA / "study-slice"
EXPORT_KEYS = {"name", "margin", "axes", "points", "comparisons"}
POINT_KEYS = {"axes", "operation", "max", "min", "mean", "stddev", "iterations", "source"}
COMPARISON_KEYS = {
    "operation",
    "axis",
    "a",
    "b",
    "fixed",
    "p_value",
    "ratio",
    "significant",
    "verdict",
    "ratio_ci",
    "jobs",
}


@pytest.fixture
def study_folder(tmp_path) -> Path:
    return Path(shutil.copytree(SLICE, tmp_path / "study"))


def export(name: str) -> dict:
    out = io.StringIO()
    call_command("export_study", name, "--format", "json", stdout=out)
    return json.loads(out.getvalue(), parse_float=Decimal)


def check_against_truth(document: dict, truth: dict) -> dict[str, list[dict]]:
    """Every truth cell stored exactly; returns the comparisons of the different and of the same pairs."""
    points = {(p["source"], p["operation"]): p for p in document["points"]}
    for cell in truth["cells"]:
        stored = points[(cell["log"], cell["operation"])]
        assert [stored[key] for key in ("max", "min", "mean", "stddev")] == [
            Decimal(str(cell[key])) for key in ("max", "min", "mean", "stddev")
        ], cell["log"]
        assert stored["iterations"] == [Decimal(str(value)) for value in cell["iterations"]], cell["log"]
        for axis in ("filesystem", "api", "config", "nodes", "tasks"):
            assert stored["axes"][axis] == cell[axis], (cell["log"], axis)
    # An axis with one value in the whole study (api in the slice) is not a fixed axis of any comparison.
    group_axes = ("filesystem", "api", "nodes")
    varying = [len({p["axes"][axis] for p in document["points"]}) > 1 for axis in group_axes]
    comparisons = {
        (*(c["fixed"].get(axis) for axis in group_axes), c["operation"], *pair): c
        for c in document["comparisons"]
        if c["axis"] == "config"
        for pair in ((c["a"], c["b"]), (c["b"], c["a"]))
    }

    def key(pair):
        return (*(value if vary else None for value, vary in zip(pair[:3], varying, strict=True)), *pair[3:])

    return {kind: [comparisons[key(pair)] for pair in truth[kind]] for kind in ("different", "same")}


def assert_one_job_per_configuration_is_judged_not_testable(judged: dict[str, list[dict]]) -> None:
    """The sample (README) holds one log - one job - per configuration, its repetitions being that job's
    iterations: no pair has the 2 jobs a side a test needs, whatever the truth. What the truth still
    fixes is the measured ratio: >= 2x apart for ``different`` pairs, equal up to iteration noise (5-8 %)
    for ``same`` ones; and no pair is called different or the same."""
    assert judged["different"]
    assert judged["same"]
    for kind, comparisons in judged.items():
        for comparison in comparisons:
            assert (comparison["verdict"], comparison["jobs"], comparison["ratio_ci"]) == ("not_testable", [1, 1], None)
            assert comparison["significant"] is False
            factor = max(comparison["ratio"], 1 / comparison["ratio"])
            assert factor >= Decimal("1.6") if kind == "different" else factor <= Decimal("1.3"), comparison


def test_a_study_slice_is_stored_exactly_and_judged_by_jobs(study_folder):
    summary = ingest_ior_paths([study_folder], study_name="hints", manifest=study_folder / "manifest.csv")
    assert (len(summary.stored), summary.points_created, summary.failed) == (8, 16, [])
    assert sorted(summary.skipped) == ["manifest.csv", "truth.json"]
    document = export("hints")
    truth = json.loads((study_folder / "truth.json").read_text())
    judged = check_against_truth(document, truth)
    assert (len(judged["different"]), len(judged["same"])) == (10, 6)
    assert_one_job_per_configuration_is_judged_not_testable(judged)


def test_the_export_has_exactly_the_documented_shape(study_folder):
    ingest_ior_paths([study_folder], study_name="hints", manifest=study_folder / "manifest.csv")
    document = export("hints")
    assert set(document) == EXPORT_KEYS
    assert {"api", "nodes", "tasks", "filesystem", "config", "label"} <= set(document["axes"])
    assert all(set(point) == POINT_KEYS for point in document["points"])
    assert all(set(comparison) == COMPARISON_KEYS for comparison in document["comparisons"])
    assert {p["source"] for p in document["points"]} >= {"CephFS/MPIIO/hint4-8n.txt", "Lustre/MPIIO/hint7-8n.txt"}
    # every pair of values of every varying axis: config at CephFS/MPIIO/8 nodes holds 4 configs -> 6 pairs
    cephfs_8 = [
        c
        for c in document["comparisons"]
        if c["axis"] == "config" and c["operation"] == "write" and c["fixed"] == {"filesystem": "CephFS", "nodes": 8}
    ]
    assert sorted((c["a"], c["b"]) for c in cephfs_8) == [
        ("hint4", "hint5"),
        ("hint4", "hint7"),
        ("hint4", "hint8"),
        ("hint5", "hint7"),
        ("hint5", "hint8"),
        ("hint7", "hint8"),
    ]
    assert {c["axis"] for c in document["comparisons"]} >= {"filesystem", "config", "label", "nodes", "tasks"}


def test_the_whole_shared_sample_is_stored_exactly_and_judged_by_jobs():
    sample = shared_path("ior-study-sample")
    summary = ingest_ior_paths([sample], study_name="sample", manifest=sample / "manifest.csv")
    assert summary.failed == []
    truth = json.loads((sample / "truth.json").read_text())
    assert_one_job_per_configuration_is_judged_not_testable(check_against_truth(export("sample"), truth))


def test_a_garbled_log_is_reported_with_its_line_and_nothing_of_it_is_stored(study_folder):
    log = study_folder / "CephFS/MPIIO/hint5-8n.txt"
    lines = log.read_text().split("\n")
    lines[39] = lines[39].replace("3393.83", "33?3.83")  # a result row of iteration 1
    log.write_text("\n".join(lines))
    truncated = study_folder / "Lustre/MPIIO/hint7-8n.txt"
    truncated.write_text("\n".join(truncated.read_text().split("\n")[:44]))

    summary = ingest_ior_paths([study_folder], study_name="hints", manifest=study_folder / "manifest.csv")

    assert sorted(summary.failed) == [
        "CephFS/MPIIO/hint5-8n.txt:40: malformed write result row: '33?3.83' is not a number",
        "Lustre/MPIIO/hint7-8n.txt:44: the file ends inside the IOR run of line 1: no 'Finished' line (truncated?)",
    ]
    assert len(summary.stored) == 6
    sources = set(StudyPoint.objects.values_list("source", flat=True))
    assert "CephFS/MPIIO/hint5-8n.txt" not in sources
    assert "Lustre/MPIIO/hint7-8n.txt" not in sources


def test_ingesting_again_adds_nothing_and_a_corrected_manifest_replaces_the_axes(study_folder):
    ingest_ior_paths([study_folder], study_name="hints")
    again = ingest_ior_paths([study_folder], study_name="hints")
    assert (len(again.stored), len(again.unchanged), StudyPoint.objects.count()) == (0, 8, 16)

    manifest = study_folder / "manifest.csv"
    lines = manifest.read_text().splitlines()
    manifest.write_text("\n".join([lines[0] + ",stripe_count", *(line + ",4" for line in lines[1:])]) + "\n")
    corrected = ingest_ior_paths([study_folder], study_name="hints")
    assert (len(corrected.updated), StudyPoint.objects.count()) == (8, 16)
    assert set(StudyPoint.objects.values_list("axes__stripe_count", flat=True)) == {4}


def test_a_manifest_inside_the_folder_is_used_when_none_is_given(study_folder):
    summary = ingest_ior_paths([study_folder], study_name="hints")
    assert summary.manifest == "manifest.csv"
    point = StudyPoint.objects.get(source="Lustre/MPIIO/hint4-8n.txt", operation="write")
    assert (point.axes["filesystem"], point.axes["config"], point.axes["api"], point.axes["nodes"]) == (
        "Lustre",
        "hint4",
        "MPIIO",
        8,
    )


def test_a_json_log_becomes_points_with_its_printed_digits(tmp_path):
    shutil.copy(DATA / "ior-3.3.0_json-summary-format_constructed.json", tmp_path / "run.json")
    summary = ingest_ior_paths([tmp_path], study_name="json")
    assert summary.failed == []
    write = StudyPoint.objects.get(operation="write")
    assert (write.mean, write.stddev, write.iterations) == (
        "2865.8952",
        "58.1354",
        ["2875.3311", "2790.4467", "2931.9079"],
    )
    assert (write.axes["api"], write.axes["nodes"], write.axes["tasks"]) == ("POSIX", 4, 64)


def test_the_command_needs_a_study_and_reports_failures(study_folder):
    with pytest.raises(CommandError, match="--study"):
        call_command("ingest", "--kind", "ior", str(study_folder))
    out = io.StringIO()
    call_command("ingest", "--kind", "ior", str(study_folder), "--study", "hints", stdout=out)
    assert "8 logs stored (16 points)" in out.getvalue()
    assert Study.objects.get().name == "hints"
    with pytest.raises(CommandError, match="no study named 'nope'"):
        call_command("export_study", "nope")


def test_the_margin_is_a_study_setting_from_the_command_line(study_folder):
    call_command(
        "ingest",
        str(study_folder),
        "--kind",
        "ior",
        "--study",
        "hints",
        "--margin",
        "0.1",
        "--manifest",
        str(study_folder / "manifest.csv"),
        stdout=io.StringIO(),
    )
    assert Study.objects.get().margin == 0.1
    assert export("hints")["margin"] == Decimal("0.1")
    call_command(
        "ingest", str(study_folder), "--kind", "ior", "--study", "hints", "--margin", "0.02", stdout=io.StringIO()
    )
    assert Study.objects.get().margin == 0.02  # an operator may change it on an existing study
    with pytest.raises(CommandError, match=r"--margin 2\.0"):
        call_command(
            "ingest", str(study_folder), "--kind", "ior", "--study", "hints", "--margin", "2", stdout=io.StringIO()
        )
    assert Study.objects.get().margin == 0.02
