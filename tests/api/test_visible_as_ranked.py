"""Visible as ranked means eligible AND accepted by review, everywhere the API answers it (issue #22/#23): a
fabricated run named after an existing system, submitted or rejected, is never ranked by a flag, a filter, a
system's best score or a custom list over the historic list."""

import pytest

from apps.results.models import ReviewStatus, Run
from apps.results.services import runs
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

NOT_ACCEPTED = [ReviewStatus.SUBMITTED, ReviewStatus.UNDER_REVIEW, ReviewStatus.REJECTED, ReviewStatus.WITHDRAWN]
PUBLISHED_SCORE = (100.0 * 400.0) ** 0.5  # RunFactory's bw and md: 200
FABRICATED_BW, FABRICATED_MD = 999_995.0, 999_995.0


@pytest.fixture
def system():
    return StorageSystemFactory()


@pytest.fixture
def published(system) -> Run:
    return RunFactory(system=system)


def fabricated(system, status) -> Run:
    return RunFactory(system=system, score_bw=FABRICATED_BW, score_md=FABRICATED_MD, review_status=status)


@pytest.mark.parametrize("status", NOT_ACCEPTED)
def test_a_run_not_accepted_is_eligible_but_not_ranked_in_the_run_api(status, system, published, anonymous_client):
    run = fabricated(system, status)

    detail = anonymous_client.get(f"/api/v1/runs/{run.pk}/").json()
    rows = {row["id"]: row for row in anonymous_client.get("/api/v1/runs/").json()["results"]}

    assert (detail["verification"]["eligible"], detail["verification"]["ranked"]) == (True, False)
    assert (rows[run.pk]["eligible"], rows[run.pk]["ranked"], rows[run.pk]["review_status"]) == (True, False, status)
    assert (rows[published.pk]["eligible"], rows[published.pk]["ranked"]) == (True, True)


@pytest.mark.parametrize("status", NOT_ACCEPTED)
def test_the_ranked_filter_keeps_runs_not_accepted_out(status, system, published, anonymous_client):
    run = fabricated(system, status)

    ranked = [row["id"] for row in anonymous_client.get("/api/v1/runs/?ranked=true").json()["results"]]
    unranked = [row["id"] for row in anonymous_client.get("/api/v1/runs/?ranked=false").json()["results"]]
    eligible = [row["id"] for row in anonymous_client.get("/api/v1/runs/?eligible=true").json()["results"]]

    assert ranked == [published.pk]
    assert unranked == [run.pk]
    assert sorted(eligible) == sorted([published.pk, run.pk])


@pytest.mark.parametrize("status", NOT_ACCEPTED)
def test_a_systems_best_score_is_its_best_ranked_run(status, system, published, anonymous_client):
    run = fabricated(system, status)

    listed = {row["id"]: row for row in anonymous_client.get("/api/v1/systems/").json()["results"]}
    detail = anonymous_client.get(f"/api/v1/systems/{system.pk}/").json()

    assert listed[system.pk]["best_score"] == pytest.approx(PUBLISHED_SCORE)
    assert detail["best_score"] == pytest.approx(PUBLISHED_SCORE)
    assert {entry["id"]: entry["ranked"] for entry in detail["runs"]} == {published.pk: True, run.pk: False}


def test_accepting_the_run_ranks_it_everywhere(system, published, anonymous_client):
    run = fabricated(system, ReviewStatus.SUBMITTED)
    run.review_status = ReviewStatus.ACCEPTED
    runs.edit(run, fields=["review_status"])

    assert anonymous_client.get(f"/api/v1/runs/{run.pk}/").json()["verification"]["ranked"] is True
    assert anonymous_client.get(f"/api/v1/systems/{system.pk}/").json()["best_score"] == pytest.approx(FABRICATED_BW)


@pytest.mark.parametrize("status", [ReviewStatus.SUBMITTED, ReviewStatus.REJECTED])
def test_a_custom_list_over_the_historic_list_ranks_only_what_the_ranked_lists_would(
    status, system, published, alice_client, anonymous_client, celery_eager, django_capture_on_commit_callbacks
):
    run = fabricated(system, status)

    with django_capture_on_commit_callbacks(execute=True):
        saved = alice_client.post(
            "/api/v1/custom-lists/", {"name": "by bw", "equation": "bw", "base_list": "historic"}, format="json"
        )
    assert saved.status_code == 201, saved.content
    rows = anonymous_client.get(f"/api/v1/custom-lists/{saved.json()['token']}/").json()["rows"]

    assert [(row["run"], row["rank"]) for row in rows] == [(published.pk, 1), (run.pk, None)]


def test_a_review_decision_re_ranks_the_run_on_a_custom_list_over_the_historic_list(
    system, published, alice_client, staff_client, anonymous_client, celery_eager, django_capture_on_commit_callbacks
):
    run = fabricated(system, ReviewStatus.SUBMITTED)
    with django_capture_on_commit_callbacks(execute=True):
        token = alice_client.post(
            "/api/v1/custom-lists/", {"name": "by bw", "equation": "bw", "base_list": "historic"}, format="json"
        ).json()["token"]

    with django_capture_on_commit_callbacks(execute=True):
        staff_client.post(f"/api/v1/runs/{run.pk}/review/", {"status": "accepted"}, format="json")

    rows = anonymous_client.get(f"/api/v1/custom-lists/{token}/").json()["rows"]
    assert [(row["run"], row["rank"]) for row in rows] == [(run.pk, 1), (published.pk, 2)]


@pytest.mark.parametrize("excluded", [False, True], ids=["valid", "excluded"])
@pytest.mark.parametrize("status", ReviewStatus.values)
def test_every_answer_about_a_run_says_eligible_and_ranked_truthfully_for_every_review_status(
    status, excluded, system, anonymous_client
):
    run = RunFactory(system=system, review_status=status, exclusion_reason="stonewall: too short" if excluded else "")
    eligible = not excluded  # by hand: an IO500 run with a score
    ranked = eligible and status == ReviewStatus.ACCEPTED

    detail = anonymous_client.get(f"/api/v1/runs/{run.pk}/").json()["verification"]
    row = anonymous_client.get("/api/v1/runs/").json()["results"][0]
    system_run = anonymous_client.get(f"/api/v1/systems/{system.pk}/").json()["runs"][0]
    historic = anonymous_client.get("/api/v1/lists/historic/").json()["results"]
    research = anonymous_client.get("/api/v1/lists/io500/").json()["results"]

    assert (detail["eligible"], detail["ranked"]) == (eligible, ranked)
    assert (row["eligible"], row["ranked"]) == (eligible, ranked)
    assert (system_run["eligible"], system_run["ranked"]) == (eligible, ranked)
    assert [(entry["run"], entry["ranked"], entry["rank"]) for entry in historic] == [
        (run.pk, ranked, 1 if ranked else None)
    ]
    assert [(entry["run"], entry["ranked"]) for entry in research] == ([(run.pk, True)] if ranked else [])
