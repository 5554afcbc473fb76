"""The C app's ``[timestamp]`` step measures nothing: no run stored, exported or shown has it as a phase.

The samples' result.txt files have a ``[timestamp]`` section and their result_summary.txt files a
``[      ] timestamp 0.000000 kIOPS`` line; before the fix both became a 0 kIOPS phase.
"""

import importlib
import json
import shutil

import pytest
from django.apps import apps as django_apps
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import PhaseResult, Run
from tests.factories import RunFactory
from tests.ingest.tools.io500.io500_samples import SAMPLES

pytestmark = pytest.mark.django_db

CAPP_SAMPLES = ("capp-result-dir", "capp-extended")
remove_timestamp_steps = importlib.import_module("apps.results.migrations.0006_remove_timestamp_step_phases")


@pytest.fixture
def capp_runs(tmp_path):
    for name in CAPP_SAMPLES:
        shutil.copytree(SAMPLES / name, tmp_path / name)
    summary = ingest_path(tmp_path)
    assert summary.failed == []
    runs = list(Run.objects.order_by("pk"))
    assert len(runs) == len(CAPP_SAMPLES)
    return runs


def test_the_samples_have_a_timestamp_step_to_leave_out():
    for name in CAPP_SAMPLES:
        (result_txt,) = (SAMPLES / name).rglob("result.txt")
        assert "[timestamp]" in result_txt.read_text()


def test_no_stored_run_has_a_timestamp_phase(capp_runs):
    assert not PhaseResult.objects.filter(name="timestamp").exists()
    standard = next(run for run in capp_runs if "submission-686" in run.source_path)
    # its result_summary.txt: 12 [RESULT] lines, and the timestamp line
    assert standard.phases.count() == 12


def test_no_exported_run_has_a_timestamp_phase(capp_runs, tmp_path):
    call_command("export_runs", "--format", "json", "-o", str(tmp_path / "runs.json"))
    exported = json.loads((tmp_path / "runs.json").read_text())
    assert len(exported) == len(CAPP_SAMPLES)
    assert all("timestamp" not in run["phases"] for run in exported)


def test_no_run_or_compare_page_shows_a_timestamp_phase(client, capp_runs):
    for run in capp_runs:
        page = client.get(f"/runs/{run.pk}/")
        assert page.status_code == 200
        assert "timestamp" not in [phase.name for phase in page.context["phases"]]
    compared = client.get("/compare/", {"runs": ",".join(str(run.pk) for run in capp_runs)})
    assert compared.status_code == 200
    assert "timestamp" not in [delta.name for delta in compared.context["diff"].phases]


def test_the_migration_removes_timestamp_phases_stored_before_the_fix():
    run = RunFactory()
    kept = set(run.phases.values_list("name", flat=True))
    PhaseResult.objects.create(run=run, name="timestamp", position=99, value=0.0, unit="kIOPS", score_group="none")
    remove_timestamp_steps.delete_timestamp_steps(django_apps, None)
    assert set(run.phases.values_list("name", flat=True)) == kept
    assert "timestamp" not in kept
