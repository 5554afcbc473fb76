"""`duplicate_result` is not a flag any account can stamp on a published run (issue #40, item 3).

Only accepted runs, or the same owner's, count as duplicates of an accepted run: an account's unreviewed copy of a
published result is flagged itself (it waits for the committee) but leaves the published run, and its text, alone.
Deleting or rejecting a copy checks the others again, so a flag it caused lifts."""

import shutil

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import ReviewStatus, Run
from apps.results.services.review import review_run
from tests.api.test_ownership_attacks import PUBLISHED_AT, RENAMING_SIDECAR, archive, upload
from tests.api.uploading import DEMO_SUBMISSION

pytestmark = pytest.mark.django_db

#: The attacker's folder: its name must never appear on the published run.
ATTACKERS_FOLDER = "Attacker-Folder/submission-8"


@pytest.fixture
def published(tmp_path) -> Run:
    """The demo submission as the operator's ingest of the public archive stores it: accepted."""
    shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)
    return Run.objects.get(pk=ingest_path(tmp_path / "archive").created[0])


@pytest.fixture
def copy(published, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks) -> Run:
    """Bob's upload of the published result's files with a sidecar inside: another hash, the same three scores."""
    inside = {ATTACKERS_FOLDER: DEMO_SUBMISSION, f"{ATTACKERS_FOLDER}/ioboard.yaml": RENAMING_SIDECAR}
    status = upload(bob_client, archive(inside), django_capture_on_commit_callbacks)
    assert status["status"] == "done", status["error"]
    (run,) = Run.objects.filter(pk__in=[run["id"] for run in status["runs"]])
    assert run.review_status == ReviewStatus.SUBMITTED
    assert run.anomalies.filter(rule="duplicate_result").exists()  # the copy is flagged, for the committee
    return run


def duplicate_flags(run: Run) -> list[str]:
    return list(Run.objects.get(pk=run.pk).anomalies.filter(rule="duplicate_result").values_list("message", flat=True))


def test_an_unreviewed_copy_from_another_account_stamps_nothing_on_the_published_run(published, copy):
    assert duplicate_flags(published) == []
    published = Run.objects.get(pk=published.pk)
    assert not any(ATTACKERS_FOLDER in anomaly.message for anomaly in published.anomalies.all())
    assert (published.flagged, published.exclusion_reason) == (published.flagged, published.exclusion_reason)


def test_an_accepted_copy_counts_and_rejecting_it_lifts_the_flag(published, copy, staff):
    review_run(copy, by=staff, status=ReviewStatus.ACCEPTED)
    (flag,) = duplicate_flags(published)
    assert ATTACKERS_FOLDER in flag  # accepted, so published: naming it tells nothing private

    review_run(copy, by=staff, status=ReviewStatus.REJECTED)

    assert duplicate_flags(published) == []


def test_deleting_one_copy_checks_the_others_again(published, copy, staff_client):
    assert staff_client.delete(f"/api/v1/runs/{published.pk}/").status_code == 204

    assert duplicate_flags(copy) == []


def test_the_same_owners_copies_count_whatever_their_status(
    published, copy, bob_client, django_capture_on_commit_callbacks
):
    """Bob's second copy of his own run is his duplicate, named on his run."""
    other = "Attacker-Folder/again/submission-8"
    inside = {other: DEMO_SUBMISSION, f"{other}/ioboard.yaml": RENAMING_SIDECAR + b"notes: again\n"}
    status = upload(bob_client, archive(inside), django_capture_on_commit_callbacks, name="again.tgz")
    assert status["status"] == "done", status["error"]

    assert any(other in flag for flag in duplicate_flags(copy))
