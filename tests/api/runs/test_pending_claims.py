"""A run an upload files under another owner's system (a pending *claim*, apps.results.services.ownership) is not
that system's run in the API until the committee accepts it: `/api/v1/runs/?system=<id>` and the system's detail
list it for its uploader and staff only. Found by issue 40: the runs collection listed it to everybody."""

import pytest

from apps.results.models import ReviewStatus
from apps.results.services import runs
from tests.factories import RunFactory, UploadFactory
from tests.security.test_claims_off_public_pages import CLAIM

pytestmark = pytest.mark.django_db


@pytest.fixture
def claimed_run(pavo, operators_run, bob):
    return RunFactory(
        system=pavo,
        upload=UploadFactory(uploader=bob),
        review_status=ReviewStatus.SUBMITTED,
        system_claim=CLAIM,
        score_bw=999.0,
        score_md=999.0,
    )


def listed_under(client, system) -> set[int]:
    return {row["id"] for row in client.get("/api/v1/runs/", {"system": system.pk}).json()["results"]}


def detail_runs(client, system) -> set[int]:
    return {row["id"] for row in client.get(f"/api/v1/systems/{system.pk}/").json()["runs"]}


@pytest.mark.parametrize("reader", ["anonymous_client", "alice_client"])
def test_a_pending_claim_is_not_listed_under_the_claimed_system_for_others(
    request, reader, pavo, claimed_run, operators_run
):
    client = request.getfixturevalue(reader)
    assert listed_under(client, pavo) == {operators_run.pk}
    assert detail_runs(client, pavo) == {operators_run.pk}


@pytest.mark.parametrize("reader", ["bob_client", "staff_client"])
def test_its_uploader_and_staff_see_it_under_the_system(request, reader, pavo, claimed_run, operators_run):
    client = request.getfixturevalue(reader)
    assert listed_under(client, pavo) == {operators_run.pk, claimed_run.pk}
    assert detail_runs(client, pavo) == {operators_run.pk, claimed_run.pk}


def test_once_accepted_it_is_the_systems_run_for_everybody(anonymous_client, pavo, claimed_run, operators_run):
    claimed_run.review_status = ReviewStatus.ACCEPTED
    runs.edit(claimed_run, ["review_status"])
    assert listed_under(anonymous_client, pavo) == {operators_run.pk, claimed_run.pk}


def test_the_collection_unfiltered_still_holds_it_as_the_historic_list_does(anonymous_client, claimed_run):
    ids = {row["id"] for row in anonymous_client.get("/api/v1/runs/").json()["results"]}
    assert claimed_run.pk in ids
