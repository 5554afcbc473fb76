"""The compare page says whether each difference is beyond the run-to-run noise measured on the history."""

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Run
from apps.results.services.changes.history import detect_all_changes
from synth import small_history

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(tmp_path):
    small_history.write_all(tmp_path)
    ingest_path(tmp_path)
    detect_all_changes()


def verdicts(client, *runs) -> dict:
    response = client.get("/compare/", {"runs": ",".join(str(run.pk) for run in runs)})
    assert response.status_code == 200
    return {verdict.name: verdict for verdict in response.context["noise"]}


def test_the_upgraded_phase_is_beyond_noise_and_the_others_are_not(client, history):
    stepper = Run.objects.filter(system__name="Stepper").order_by("submission_id")
    before, after = stepper[small_history.UPGRADE_AT - 1], stepper[small_history.UPGRADE_AT]
    found = verdicts(client, before, after)
    assert found["mdtest_easy_write"].beyond == [True]  # x1.5 by construction
    assert found["mdtest_easy_write"].source == "this system"
    # Every other phase moves by NOISE[7] / NOISE[6] = 1.00 / 0.97 (+3.1 %), inside 2 x sqrt(2) x sigma.
    assert found["ior_easy_write"].beyond == [False]
    assert found["find"].beyond == [False]


def test_runs_of_two_systems_are_judged_by_the_site_wide_noise(client, history):
    stepper = Run.objects.filter(system__name="Stepper").order_by("submission_id").last()
    flat = Run.objects.filter(system__name="Flat").order_by("submission_id").last()
    found = verdicts(client, flat, stepper)
    assert found["mdtest_easy_write"].source == "median of 2 systems"
    assert found["mdtest_easy_write"].beyond == [True]
    assert found["ior_easy_write"].beyond == [False]  # the same values on both systems
