"""An uploaded run waits for the committee, unless its uploader may publish without review.

A committee board ranks accepted runs only; a site's own board gives its submitters the
`results.publish_without_review` permission, and their upload is ranked at the next read.
"""

import pytest
from django.contrib.auth.models import Permission

from apps.results.models import ReviewStatus, Run
from tests.api.uploading import DEMO_SUBMISSION, client_with_token, named_file, tar_gz_of


def _upload_and_ingest(client, django_capture_on_commit_callbacks) -> Run:
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/uploads/", {"file": named_file(tar_gz_of(DEMO_SUBMISSION), "run.tgz")}, format="multipart"
        )
    assert response.status_code == 202, response.content
    status = client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    return Run.objects.get(pk=status["runs"][0]["id"])


def _ranked_run_ids(anonymous_client, slug: str) -> list[int]:
    response = anonymous_client.get(f"/api/v1/lists/{slug}/")
    assert response.status_code == 200
    return [row["run"] for row in response.json()["results"]]


def test_an_ordinary_submitters_upload_waits_off_the_ranked_lists(
    alice, anonymous_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    run = _upload_and_ingest(client_with_token(alice), django_capture_on_commit_callbacks)

    assert run.review_status == ReviewStatus.SUBMITTED
    assert run.pk not in _ranked_run_ids(anonymous_client, "io500")


@pytest.mark.parametrize("slug", ["io500", "historic"])
def test_a_trusted_submitters_upload_is_ranked_at_the_next_read(
    slug, alice, anonymous_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    alice.user_permissions.add(Permission.objects.get(codename="publish_without_review"))

    run = _upload_and_ingest(client_with_token(alice), django_capture_on_commit_callbacks)

    assert run.review_status == ReviewStatus.ACCEPTED
    rows = anonymous_client.get(f"/api/v1/lists/{slug}/").json()["results"]
    assert [row["rank"] for row in rows if row["run"] == run.pk] == [1]  # the only run: first
