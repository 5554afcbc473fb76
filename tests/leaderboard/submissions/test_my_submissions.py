""" "My submissions": every upload of the account with its status, runs, review decisions and the committee's notes
meant for the submitter (not the committee's own); "Withdraw"; a corrected version that supersedes an upload (kept in
its history, off the lists)."""

import pytest
from rest_framework.test import APIClient

from apps.results.models import ListEntry, ReviewStatus
from apps.results.services.review import review_run
from tests.api.uploading import DEMO_SUBMISSION, named_file, tar_gz_of, uploaded_run
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(client):
    user = UserFactory(username="ada")
    client.force_login(user)
    return user


def text(response) -> str:
    return response.content.decode()


def test_the_page_lists_the_accounts_uploads_with_runs_decisions_and_notes_meant_for_them(client, ada):
    run = uploaded_run(ada, b"ada's archive")
    chair = UserFactory(username="chair", is_staff=True)
    review_run(run, by=chair, status=ReviewStatus.UNDER_REVIEW, note="Send the job script.", for_submitter=True)
    review_run(run, by=chair, note="Their stonewall time looks short; ask Intel.")
    theirs = uploaded_run(UserFactory(username="bob"), b"bob's archive")
    page = text(client.get("/submissions/"))
    assert f'href="/runs/{run.pk}/"' in page
    assert "review: under review" in page
    assert "Send the job script." in page
    assert "stonewall" not in page  # the committee's own note
    assert "ingest: Done" in page
    assert f'href="/runs/{theirs.pk}/"' not in page
    assert 'href="/submissions/">My submissions</a>' in text(client.get("/"))


def test_withdraw_takes_the_runs_off_the_lists_and_keeps_them(client, ada):
    run = uploaded_run(ada)
    review_run(run, by=UserFactory(username="chair", is_staff=True), status=ReviewStatus.ACCEPTED)
    assert ListEntry.objects.filter(run=run, kind="io500", ranked=True).exists()
    client.post(f"/submissions/{run.upload_id}/withdraw/")
    run.refresh_from_db()
    assert run.review_status == ReviewStatus.WITHDRAWN
    assert not ListEntry.objects.filter(run=run, ranked=True).exists()
    assert "review: Withdrawn" in text(client.get("/submissions/"))


def test_another_accounts_upload_cannot_be_withdrawn(client, ada):
    run = uploaded_run(UserFactory(username="bob"))
    assert client.post(f"/submissions/{run.upload_id}/withdraw/").status_code == 404
    run.refresh_from_db()
    assert run.review_status != ReviewStatus.WITHDRAWN


def test_a_corrected_version_supersedes_the_upload(client, ada, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MEDIA_ROOT = str(tmp_path)
    first = uploaded_run(ada)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            f"/upload/replace/{first.upload_id}/",
            {"file": named_file(tar_gz_of(DEMO_SUBMISSION), "corrected.tgz"), "kind": "io500"},
        )
    assert answer.status_code == 302
    first.refresh_from_db()
    assert first.review_status == ReviewStatus.WITHDRAWN
    corrected = first.upload.superseded_by.get()
    assert corrected.original_name == "corrected.tgz"
    page = text(client.get("/submissions/"))
    assert "superseded by" in page
    assert "corrects" in page


def test_the_committee_marks_a_note_for_the_submitter_through_the_api(client, ada):
    run = uploaded_run(ada, b"ada's archive")
    committee = APIClient()
    committee.force_login(UserFactory(username="chair", is_staff=True))
    review = f"/api/v1/runs/{run.pk}/review/"
    assert committee.post(review, {"note": "Send the job script.", "for_submitter": True}).status_code == 200
    notes = committee.post(review, {"note": "Ask Intel about the stonewall."}).json()["notes"]

    assert [(note["text"], note["for_submitter"]) for note in notes] == [
        ("Send the job script.", True),
        ("Ask Intel about the stonewall.", False),
    ]
    page = text(client.get("/submissions/"))
    assert "Send the job script." in page
    assert "stonewall" not in page
