"""The stack pages and the run page's efficiency against the hardware, server-side."""

from pathlib import Path

import pytest
from django.core.management import call_command

from apps.results.judgements.anomalies import PhaseFacts, RunFacts
from apps.results.models import Study, StudyPoint
from tests.factories import RunFactory, StorageSystemFactory

CAMPAIGN = Path(__file__).resolve().parents[2] / "data" / "stack" / "beacon-io2"

pytestmark = pytest.mark.django_db


@pytest.fixture
def beacon(celery_eager, django_capture_on_commit_callbacks):
    system = StorageSystemFactory(name="Beacon", institution__name="NICS")
    facts = RunFacts(era="capp", phases={"ior_easy_write": PhaseFacts(value=5.0, unit="GiB/s")})
    run = RunFactory(system=system, score_bw=5.0, facts=facts.to_dict())
    with django_capture_on_commit_callbacks(execute=True):  # the check of the system's runs, after the commit
        call_command(
            "ingest",
            "--kind",
            "stack",
            str(CAMPAIGN),
            "--name",
            "beacon-io2",
            "--institution",
            "NICS",
            "--system",
            "Beacon",
            "--filesystem",
            "Lustre",
        )
    return run


def test_the_run_page_shows_the_run_against_its_hardware(client, beacon):
    page = client.get(f"/runs/{beacon.pk}/").content.decode()
    assert 'id="hardware"' in page
    assert "/stacks/beacon-io2/" in page
    # ior_easy_write is 5.0 GiB/s in the factory's phases: 5,369 MB/s against io2's ~2,385 MB/s write ceiling
    assert "above the measured ceiling" in page


def test_the_stack_page_names_the_loss_the_ceiling_and_the_outliers(client, beacon):
    page = client.get("/stacks/beacon-io2/").content.decode()
    assert "the largest loss is at" in page
    assert "limited by" in page.lower() or "Limited by" in page
    assert "above_measured_ceiling" in page  # the system's IO500 run, beside the campaign's runs
    assert client.get("/stacks/").status_code == 200
    assert client.get("/stacks/nope/").status_code == 404


def test_the_stack_pages_cost_a_fixed_number_of_queries(client, beacon, django_assert_max_num_queries):
    with django_assert_max_num_queries(12):
        assert client.get("/stacks/beacon-io2/").status_code == 200
    with django_assert_max_num_queries(10):  # two stacks: four queries each, the names, the session
        assert client.get("/stacks/compare/?a=beacon-io2&b=beacon-io2").status_code == 200


def test_the_ior_study_points_of_the_system_meet_the_ceiling(client, beacon):
    study = Study.objects.create(name="beacon ior", system=beacon.system)
    StudyPoint.objects.create(
        study=study, axes={}, operation="write", max="5000.00", source="fast.txt", log_hash="a" * 64
    )
    StudyPoint.objects.create(
        study=study, axes={}, operation="write", max="1000.00", source="slow.txt", log_hash="b" * 64
    )
    page = client.get("/stacks/beacon-io2/").content.decode()
    # 5000 MiB/s = 5,243 MB/s > 1.10 x io2's ~2,385 MB/s write ceiling; 1000 MiB/s = 1,049 MB/s is not
    fast, slow = page.index("fast.txt"), page.index("slow.txt")
    assert "over the ceiling" in page[fast:slow]
    assert "over the ceiling" not in page[slow : page.index("</table>", slow)]
