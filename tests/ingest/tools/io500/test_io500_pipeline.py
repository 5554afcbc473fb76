"""Ingesting result directories into runs: identity, idempotence, atomicity, metadata priority."""

import shutil
import tarfile

import pytest
from django.core.files import File
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.ingest.core.common import IngestError
from apps.ingest.tools.io500.pipeline import ingest_path, ingest_upload
from apps.results.models import PhaseResult, Run, StorageSystem, Upload
from apps.results.services import runs
from tests.conftest import REPO_ROOT
from tests.ingest.tools.io500.io500_samples import SAMPLES

DEMO = REPO_ROOT / "fixtures" / "demo"
CAPP_SUBMISSION = DEMO / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8"
SCRIPT_SUBMISSION = DEMO / "University of Birmingham" / "BEAR-AI" / "ai" / "2019" / "submission-148"

pytestmark = pytest.mark.django_db


def test_it_ingests_a_c_application_run_with_verified_scores():
    summary = ingest_path(DEMO)
    assert not summary.failed
    run = Run.objects.get(source_path="Intel/Wolf/DAOS/2020/submission-8")
    assert run.era == "capp"
    assert run.verification == "verified"
    assert run.system.institution.name == "Intel"
    assert run.client_nodes == 10
    assert run.score_total == pytest.approx(run.reported_total, rel=1e-5)
    assert run.phases.filter(score_group__in=["bw", "md"]).count() == 12


def test_it_ingests_a_script_era_run_with_its_command_lines():
    ingest_path(DEMO)
    run = Run.objects.get(source_path__startswith="University of Birmingham/BEAR-AI/ai/2019/submission-148")
    assert run.era == "script"
    assert run.score_total == pytest.approx(run.reported_total, rel=1e-3)
    easy_write = run.phases.get(name="ior_easy_write")
    assert easy_write.unit == "GiB/s"
    assert "ior" in easy_write.command


def test_ingesting_the_same_tree_twice_creates_no_duplicate():
    first = ingest_path(DEMO)
    count = Run.objects.count()
    second = ingest_path(DEMO)
    assert Run.objects.count() == count
    assert sorted(second.unchanged) == sorted(first.created)
    assert not second.created


def test_an_ingested_run_costs_at_most_40_queries():
    """The whole store of a run, its list entries on every list kind included: about 100 queries a run made the
    corpus ingest 12x its parse-only floor (bench.bench_ingest); its list entries are synced once per run."""
    with CaptureQueriesContext(connection) as queries:
        summary = ingest_path(DEMO)
    assert len(summary.created) == 6
    assert len(queries.captured_queries) <= 40 * len(summary.created)


def test_a_folder_and_its_tar_gz_are_the_same_run(tmp_path):
    ingest_path(CAPP_SUBMISSION)
    archive = tmp_path / "run.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for item in CAPP_SUBMISSION.iterdir():
            tar.add(item, arcname=item.name)
    summary = ingest_path(archive)
    assert summary.unchanged
    assert not summary.created
    assert Run.objects.count() == 1


def test_explicit_options_name_the_system(tmp_path):
    ingest_path(CAPP_SUBMISSION, overrides={"institution": "Example Lab", "system": "Testbed", "filesystem": "DAOS"})
    system = Run.objects.get().system
    assert (system.institution.name, system.name, system.filesystem) == ("Example Lab", "Testbed", "DAOS")


def test_a_sidecar_names_the_system_when_no_option_does(tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(CAPP_SUBMISSION, copy)
    (copy / "ioboard.yaml").write_text("institution: Sidecar U\nsystem: Sidecar HPC\nfilesystem: Lustre\n")
    ingest_path(copy)
    assert Run.objects.get().system.name == "Sidecar HPC"


def test_a_client_network_declared_in_the_sidecar_exposes_a_read_faster_than_the_network(tmp_path):
    """LCPQ submission-686 read ior-easy at 2.311728 GiB/s on 30 nodes: 0.66 Gbit/s per node."""
    copy = tmp_path / "run"
    shutil.copytree(SAMPLES / "capp-result-dir" / "submission-686", copy)
    (copy / "ioboard.yaml").write_text("client_network: 0.5 Gb/s\nclient_memory: 64 GiB\n")

    (run,) = Run.objects.filter(pk__in=ingest_path(copy).run_ids)

    assert run.facts["client_network_gbit"] == 0.5
    (anomaly,) = run.anomalies.filter(rule="cache_effect_read")
    assert (anomaly.phase, anomaly.evidence["decisive"]) == ("ior_easy_read", "network")
    network = next(piece for piece in anomaly.evidence["cache_evidence"] if piece["piece"] == "network")
    assert network["per_node_gbit"] == pytest.approx(2.311728 * 8 * 1.073741824 / 30)


def test_spellings_of_one_system_share_one_storage_system(tmp_path):
    ingest_path(CAPP_SUBMISSION, overrides={"institution": "Intel", "system": "Wolf", "filesystem": "DAOS"})
    ingest_path(SCRIPT_SUBMISSION, overrides={"institution": "intel ", "system": "WOLF", "filesystem": "daos"})
    assert StorageSystem.objects.count() == 1


def test_a_garbled_summary_fails_naming_the_file_and_stores_nothing(tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(CAPP_SUBMISSION, copy)
    (copy / "result.txt").write_bytes(b"[SCORE]\nMD = \x00\x01garbage\nBW = \n")
    (copy / "result_summary.txt").write_bytes(b"[RESULT] nonsense\n")
    summary = ingest_path(copy)
    assert summary.failed
    assert "result" in summary.failed[0]
    assert Run.objects.count() == 0
    assert PhaseResult.objects.count() == 0


def test_reprocess_rewrites_the_run_in_place():
    ingest_path(CAPP_SUBMISSION)
    run = Run.objects.get()
    run.score_total = 1.0
    runs.edit(run, fields=["score_total"])
    summary = ingest_path(CAPP_SUBMISSION, reprocess=True)
    assert summary.updated == [run.pk]
    run.refresh_from_db()
    assert run.score_total != 1.0


def test_an_upload_with_no_result_directory_is_an_ingest_error(tmp_path):
    archive = tmp_path / "empty.tar.gz"
    (tmp_path / "notes.txt").write_text("nothing here")
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tmp_path / "notes.txt", arcname="notes.txt")
    upload = Upload(sha256="0" * 64, original_name="empty.tar.gz", size=archive.stat().st_size)
    with archive.open("rb") as handle:
        upload.file.save("empty.tar.gz", File(handle))
    with pytest.raises(IngestError, match="no IO500 result directory"):
        ingest_upload(upload)


def test_the_ingest_command_exits_1_when_anything_failed(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        call_command("ingest", str(tmp_path / "missing"))
    assert exited.value.code == 1
    assert "no such file" in capsys.readouterr().err


def test_export_runs_writes_every_run_in_the_documented_shape(tmp_path):
    import json

    ingest_path(DEMO)
    out = tmp_path / "runs.json"
    call_command("export_runs", "--format", "json", "-o", str(out))
    exported = json.loads(out.read_text())
    assert len(exported) == Run.objects.count()
    assert set(exported[0]) == {
        "id",
        "source_path",
        "institution",
        "system",
        "filesystem",
        "client_nodes",
        "client_procs",
        "benchmark_version",
        "era",
        "phases",
        "score",
        "reported_score",
        "verification",
        "valid",
        "anomalies",
        "ranks",
    }
    assert set(exported[0]["score"]) == {"bw", "md", "total"}
    first_phase = next(iter(exported[0]["phases"].values()))
    assert set(first_phase) == {"value", "unit", "seconds"}


def test_export_runs_csv_has_a_column_per_phase(tmp_path):
    import csv

    ingest_path(CAPP_SUBMISSION)
    out = tmp_path / "runs.csv"
    call_command("export_runs", "--format", "csv", "-o", str(out))
    rows = list(csv.DictReader(out.open()))
    assert len(rows) == 1
    assert float(rows[0]["ior_easy_write"]) > 0
    assert rows[0]["ior_easy_write_unit"] == "GiB/s"


def test_a_submission_with_nothing_to_score_is_reported_as_skipped_not_failed(tmp_path):
    submission = tmp_path / "Lab" / "Cluster" / "Lustre" / "2019" / "submission-1"
    submission.mkdir(parents=True)
    (submission / "io500.sh").write_text("#!/bin/bash\nio500_ior_easy_params='-t 2m'\n")
    summary = ingest_path(tmp_path)
    assert summary.failed == []
    assert len(summary.skipped) == 1
    assert summary.skipped[0].startswith("Lab/Cluster/Lustre/2019/submission-1")


@pytest.mark.parametrize("printed", ["inf", "nan", "-inf", "1" + "0" * 400, "1e999"])
def test_a_phase_value_that_is_not_a_finite_number_is_refused_naming_the_file_and_line(tmp_path, printed):
    """A phase's value is stored as a float: inf, nan and a value past a float's range (which becomes inf) would
    be ranked, charted and break every JSON answer holding it. The run is refused, naming result.txt's line."""
    submission = tmp_path / "submission-8"
    shutil.copytree(CAPP_SUBMISSION, submission)
    result = submission / "result.txt"
    lines = result.read_text().splitlines(keepends=True)
    line = next(number for number, text in enumerate(lines, start=1) if text.startswith("score           = 176.3"))
    lines[line - 1] = f"score           = {printed}\n"
    result.write_text("".join(lines))

    summary = ingest_path(submission)

    assert len(summary.failed) == 1
    assert f"result.txt:{line}: " in summary.failed[0]
    assert "ior_easy_write value" in summary.failed[0]
    assert "is not a finite number" in summary.failed[0]
    assert Run.objects.count() == PhaseResult.objects.count() == 0
