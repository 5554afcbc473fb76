"""One definition of "visible as ranked" (eligible AND accepted): the in-memory verdict agrees with the query for
every combination, and a system's history (change detection, the change feeds) holds its ranked runs only."""

from datetime import timedelta
from itertools import product

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Change, ReviewStatus, Run, StorageSystem
from apps.results.services import runs
from apps.results.services.changes import history as services
from apps.results.services.review import review_run
from synth import small_history
from tests.factories import RunFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_run_verdicts_agree_with_the_queries_for_every_combination():
    for kind, excluded, scored, status in product(Run.Kind.values, (False, True), (False, True), ReviewStatus.values):
        RunFactory(
            kind=kind,
            exclusion_reason="error rule" if excluded else "",
            review_status=status,
            score_bw=100.0 if scored else None,
            score_md=400.0 if scored else None,
            phases=False,
        )

    eligible = set(Run.objects.eligible().values_list("pk", flat=True))
    ranked = set(Run.objects.ranked().values_list("pk", flat=True))

    assert {run.pk for run in Run.objects.all() if run.is_eligible} == eligible
    assert {run.pk for run in Run.objects.all() if run.is_ranked} == ranked
    # By hand: io500, not excluded, scored: 5 statuses eligible, 1 of them (accepted) ranked.
    assert (len(eligible), len(ranked)) == (len(ReviewStatus.values), 1)


@pytest.fixture
def flat_history(tmp_path) -> StorageSystem:
    """Nine published runs of a system whose every metric stays within 3 %."""
    for index in range(len(small_history.NOISE)):
        small_history.write_run(tmp_path, "Flat", index)
    ingest_path(tmp_path)
    return StorageSystem.objects.get(name="Flat")


def fabricated_in_the_middle(system: StorageSystem) -> Run:
    """A run 5,000 times above the others, dated between the fourth and the fifth, waiting for review."""
    history = list(Run.objects.filter(system=system).order_by("run_timestamp"))
    return RunFactory(
        system=system,
        config=history[4].config,
        client_nodes=history[4].client_nodes,
        run_timestamp=history[4].run_timestamp + timedelta(days=1),
        score_bw=1e6,
        score_md=1e6,
        review_status=ReviewStatus.SUBMITTED,
        phases=False,
    )


@pytest.fixture
def staff():
    return UserFactory(username="committee", is_staff=True)


def involving(run: Run):
    return Change.objects.filter(run_after=run) | Change.objects.filter(run_before=run)


def test_a_submitted_run_makes_no_change_in_its_systems_history(flat_history):
    run = fabricated_in_the_middle(flat_history)

    services.detect_system_changes(flat_history.pk)

    assert not involving(run).exists()
    assert run.pk not in [history_run.pk for history_run in services.history_runs(flat_history.pk)]


def test_accepting_it_makes_it_part_of_the_history_and_its_change_is_found(
    flat_history, staff, celery_eager, django_capture_on_commit_callbacks
):
    run = fabricated_in_the_middle(flat_history)
    services.detect_system_changes(flat_history.pk)

    with django_capture_on_commit_callbacks(execute=True):
        review_run(run, by=staff, status=ReviewStatus.ACCEPTED)

    assert involving(run).filter(metric="score").exists()


def test_a_triaged_change_leaves_the_feeds_when_its_run_is_rejected(
    flat_history, staff, client, celery_eager, django_capture_on_commit_callbacks
):
    run = fabricated_in_the_middle(flat_history)
    run.review_status = ReviewStatus.ACCEPTED
    runs.edit(run, fields=["review_status"])
    services.detect_system_changes(flat_history.pk)
    change = involving(run).get(metric="score", kind="outlier")
    Change.objects.filter(pk=change.pk).update(status=Change.Status.ACKNOWLEDGED)  # triaged: kept when not found
    assert change.pk in [item["id"] for item in client.get("/api/v1/changes/").json()["results"]]

    with django_capture_on_commit_callbacks(execute=True):
        review_run(run, by=staff, status=ReviewStatus.REJECTED)

    assert Change.objects.filter(pk=change.pk, detected=False).exists()  # kept for its triage...
    assert change.pk not in [item["id"] for item in client.get("/api/v1/changes/").json()["results"]]
    assert f"run #{change.run_before_id} → #{run.pk}".encode() not in client.get("/changes/feed/").content
