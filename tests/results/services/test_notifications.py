"""Mail to a submitter when an upload finishes or fails and when the committee decides; a switch per account."""

import pytest
from django.core import mail

from apps.ingest.models import IngestJob
from apps.ingest.tasks import record_failure, record_success
from apps.results.models import Profile, ReviewStatus
from apps.results.services.review import review_run
from tests.api.uploading import uploaded_run
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada():
    return UserFactory(username="ada", email="ada@example.org")


def processing_job(run) -> IngestJob:
    job = run.upload.jobs.get()
    IngestJob.objects.filter(pk=job.pk).update(status=IngestJob.Status.PROCESSING)
    job.refresh_from_db()
    return job


def test_a_finished_upload_is_mailed_to_its_uploader(ada, celery_eager, django_capture_on_commit_callbacks):
    run = uploaded_run(ada)
    with django_capture_on_commit_callbacks(execute=True):
        record_success(processing_job(run), [run])
    [message] = mail.outbox
    assert message.to == ["ada@example.org"]
    assert message.subject == "ioboard: run.tgz is ingested"
    assert f"/submissions/{run.upload_id}/" in message.body


def test_a_failed_upload_is_mailed_with_its_problem(ada, celery_eager, django_capture_on_commit_callbacks):
    run = uploaded_run(ada)
    with django_capture_on_commit_callbacks(execute=True):
        record_failure(processing_job(run), "ioboard.yaml:3: 'client_nodes' must be a single value")
    [message] = mail.outbox
    assert message.subject == "ioboard: run.tgz could not be ingested"
    assert "ioboard.yaml:3: 'client_nodes' must be a single value" in message.body


def test_the_committees_decision_is_mailed_with_its_note_meant_for_the_submitter(
    ada, celery_eager, django_capture_on_commit_callbacks
):
    run = uploaded_run(ada)
    chair = UserFactory(username="chair", is_staff=True)
    with django_capture_on_commit_callbacks(execute=True):
        review_run(run, by=chair, status=ReviewStatus.UNDER_REVIEW, note="looking", for_submitter=True)
    assert mail.outbox == []  # not a decision
    with django_capture_on_commit_callbacks(execute=True):
        review_run(run, by=chair, status=ReviewStatus.ACCEPTED, note="Welcome to the list.", for_submitter=True)
    [message] = mail.outbox
    assert message.subject == f"ioboard: run {run.pk} Accepted"
    assert "Welcome to the list." in message.body


def test_a_decision_with_the_committees_own_note_is_mailed_without_it(
    ada, celery_eager, django_capture_on_commit_callbacks
):
    run = uploaded_run(ada)
    with django_capture_on_commit_callbacks(execute=True):
        review_run(
            run, by=UserFactory(username="chair", is_staff=True), status=ReviewStatus.REJECTED, note="a fake, surely"
        )
    [message] = mail.outbox
    assert message.subject == f"ioboard: run {run.pk} Rejected"
    assert "fake" not in message.body


def test_an_account_that_switched_mail_off_gets_none(ada, celery_eager, django_capture_on_commit_callbacks):
    Profile.objects.create(user=ada, notify_by_email=False)
    run = uploaded_run(ada)
    with django_capture_on_commit_callbacks(execute=True):
        record_success(processing_job(run), [run])
        review_run(run, by=UserFactory(username="chair", is_staff=True), status=ReviewStatus.REJECTED)
    assert mail.outbox == []
