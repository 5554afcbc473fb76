"""Storing detected changes: what a step records, incremental recompute after an ingest, triage kept."""

from unittest import mock

import pytest
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Annotation, Change, MetricNoise, StorageSystem
from apps.results.services.changes import history as services
from synth import small_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(tmp_path):
    small_history.write_all(tmp_path)
    ingest_path(tmp_path)
    services.detect_all_changes()
    return tmp_path


def test_the_upgrade_is_one_step_of_mdtest_easy_write_attributed_to_the_patch_and_version(history):
    step = Change.objects.get(kind="step", metric="mdtest_easy_write")
    assert step.system.name == "Stepper"
    assert step.direction == "up"
    assert step.run_before.submission_id == str(small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT - 1)
    assert step.run_after.submission_id == str(small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT)
    # Hand computation: geometric mean of 1.00, 1.02 over that of the first seven NOISE factors, times 1.5.
    # Robust levels: the median of the seven runs before (noise 1.00) and, of a two-run level, the run nearer
    # the old level (1.5 * 1.00).
    assert step.magnitude_pct == pytest.approx(100 * (1.5 * 1.00 / 1.00 - 1), abs=0.5)
    fields = [entry["field"] for entry in step.attribution]
    assert fields[0] == "patch:LU-16338 lock-free stat path"
    assert {"field": "lustre.server_version", "before": "2.15.3", "after": "2.15.4"} in step.attribution
    assert step.status == Change.Status.NEW
    # A phase moved by 1.5x moves the metadata score by 1.5 ** (1/8) = +5.2 %, above the 5 % floor.
    assert not Change.objects.filter(system__name="Flat").exists()


def test_detecting_twice_keeps_the_same_rows_and_their_triage(history):
    step = Change.objects.get(kind="step", metric="mdtest_easy_write")
    Change.objects.filter(pk=step.pk).update(status=Change.Status.ACKNOWLEDGED, note="the 2.15.4 upgrade")
    before = set(Change.objects.values_list("pk", flat=True))
    call_command("detect_changes")
    assert set(Change.objects.values_list("pk", flat=True)) == before
    step.refresh_from_db()
    assert (step.status, step.note) == (Change.Status.ACKNOWLEDGED, "the 2.15.4 upgrade")


def test_ingesting_one_more_run_recomputes_only_that_system(tmp_path, django_capture_on_commit_callbacks, celery_eager):
    small_history.write_all(tmp_path, runs=len(small_history.NOISE) - 1)
    ingest_path(tmp_path)
    services.detect_all_changes()
    # One run at the new level is not a step yet: it could still revert.
    assert not Change.objects.filter(kind="step", metric="mdtest_easy_write").exists()
    flat_noise = set(MetricNoise.objects.filter(system__name="Flat").values_list("pk", flat=True))

    last = small_history.write_run(tmp_path / "new", "Stepper", len(small_history.NOISE) - 1)
    with (
        mock.patch.object(services, "detect_systems_changes", wraps=services.detect_systems_changes) as detect,
        django_capture_on_commit_callbacks(execute=True),
    ):
        summary = ingest_path(last)
    assert len(summary.created) == 1
    assert [list(call.args[0]) for call in detect.call_args_list] == [[StorageSystem.objects.get(name="Stepper").pk]]
    assert Change.objects.filter(kind="step", metric="mdtest_easy_write", system__name="Stepper").exists()
    assert set(MetricNoise.objects.filter(system__name="Flat").values_list("pk", flat=True)) == flat_noise


def test_an_annotation_makes_the_step_expected(history):
    stepper = StorageSystem.objects.get(name="Stepper")
    first_upgraded = stepper.runs.get(submission_id=str(small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT))
    Change.objects.all().delete()
    Annotation.objects.create(system=stepper, run=first_upgraded, text="upgrade to 2.15.4")
    services.detect_system_changes(stepper.pk)
    step = Change.objects.get(kind="step", metric="mdtest_easy_write")
    assert step.status == Change.Status.EXPECTED


def test_noise_is_estimated_per_metric_from_three_runs_of_one_class(history):
    noise = MetricNoise.objects.get(system__name="Flat", metric="ior_easy_write")
    assert noise.runs == len(small_history.NOISE)
    assert noise.config_class == "io500, 10 client nodes, rules regular"
    assert 0.005 < noise.sigma < 0.05  # NOISE is within ±3 %
