"""A run an upload files under another owner's system (a *claim*, apps.results.services.ownership) appears nowhere
as that system's run until the committee accepts it: not among the home page's newest runs, not in the system's table of
runs, not in the compare page's picker. Its own page and the historic list (unranked) still show it.

Found live (issue #22): a fabricated run named after an existing system was on the home page as
"<system>, <date> · <institution> · score <its score>" and among the system's runs, with nothing saying so.
"""

import pytest

from apps.results.models import ReviewStatus
from apps.results.services import runs
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

CLAIM = "names the existing system Site / Pavo (Lustre), which holds runs of the operator (run 1)"


@pytest.fixture
def pavo():
    return StorageSystemFactory(name="Pavo")


@pytest.fixture
def operators_run(pavo):
    return RunFactory(system=pavo, review_status=ReviewStatus.ACCEPTED, score_bw=10.0, score_md=10.0)


@pytest.fixture
def claimed_run(pavo, operators_run):
    return RunFactory(
        system=pavo, review_status=ReviewStatus.SUBMITTED, system_claim=CLAIM, score_bw=999_000.0, score_md=999_000.0
    )


def test_a_pending_claim_is_not_among_the_newest_runs(client, claimed_run, operators_run):
    home = client.get("/").content.decode()
    assert f"/runs/{operators_run.pk}/" in home
    assert f"/runs/{claimed_run.pk}/" not in home
    assert "999000.00" not in home


def test_a_pending_claim_is_not_among_the_systems_runs_or_in_the_compare_picker(client, claimed_run, operators_run):
    system_page = client.get(f"/systems/{claimed_run.system_id}/").content.decode()
    assert f"/runs/{operators_run.pk}/" in system_page
    assert f"/runs/{claimed_run.pk}/" not in system_page
    picker = client.get("/compare/", {"q": "Pavo"}).content.decode()
    assert f'aria-label="compare run {operators_run.pk}"' in picker
    assert f'aria-label="compare run {claimed_run.pk}"' not in picker


def test_its_own_page_still_shows_it(client, claimed_run):
    assert client.get(f"/runs/{claimed_run.pk}/").status_code == 200


def test_once_the_committee_accepts_the_claim_it_is_the_systems_run(client, claimed_run):
    claimed_run.review_status = ReviewStatus.ACCEPTED
    runs.edit(claimed_run, ["review_status"])
    assert f"/runs/{claimed_run.pk}/" in client.get(f"/systems/{claimed_run.system_id}/").content.decode()
    assert f"/runs/{claimed_run.pk}/" in client.get("/").content.decode()


def test_the_systems_api_counts_and_lists_only_the_systems_own_runs_until_the_claim_is_accepted(
    client, claimed_run, operators_run
):
    system = client.get(f"/api/v1/systems/{claimed_run.system_id}/").json()
    assert system["run_count"] == 1
    assert [run["id"] for run in system["runs"]] == [operators_run.pk]
    listed = client.get("/api/v1/systems/", {"name": "Pavo"}).json()["results"]
    assert [row["run_count"] for row in listed] == [1]
