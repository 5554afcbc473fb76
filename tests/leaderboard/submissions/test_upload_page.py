"""The "Upload" page: one file with the registry's fields and the IO500 questionnaire, through the same receiver
as the API; then the upload's status (polled as Retry-After says), its runs, its problems with file and line, and
what an unreviewed run may claim ("would place #2 on the Research list as of today, unverified")."""

import shutil

import pytest

from apps.results.models import ReviewStatus, Upload
from tests.api.uploading import DEMO_SUBMISSION, DEMO_SUBMISSION_SCORE, named_file, tar_gz_of
from tests.factories import RunFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("celery_eager")]
ANSWER = "ten words or more describe this section of the system for the committee"


@pytest.fixture
def private_storage(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def submitter(client):
    user = UserFactory(username="ada")
    client.force_login(user)
    return user


def upload(client, data: bytes, name: str = "submission.tgz", **fields):
    return client.post("/upload/", {"file": named_file(data, name), "kind": "io500", **fields})


def text(response) -> str:
    return response.content.decode()


def test_the_page_has_one_file_input_and_the_registrys_fields_and_the_questionnaire(client, submitter):
    page = text(client.get("/upload/"))
    assert page.count('type="file"') == 1
    for label in ("Kind", "Institution", "Series", "Study", "Stack", "System purpose", "Expected score", "Target list"):
        assert f">{label}</label>" in page, label
    assert 'src="/static/js/submissions.js"' in page


def test_the_page_is_for_signed_in_accounts(client):
    assert client.get("/upload/")["Location"].startswith("/accounts/login/")


def test_an_upload_is_ingested_and_its_run_would_place_unverified(
    client, submitter, private_storage, django_capture_on_commit_callbacks
):
    RunFactory(score_bw=1000.0, score_md=1000.0, review_status=ReviewStatus.ACCEPTED)  # total 1000: above it
    RunFactory(score_bw=500.0, score_md=500.0, review_status=ReviewStatus.ACCEPTED)  # total 500: below it
    with django_capture_on_commit_callbacks(execute=True):
        answer = upload(
            client,
            tar_gz_of(DEMO_SUBMISSION),
            institution="Analytical Engines",
            q_purpose=ANSWER,
            target_list="research",
            ack_rules="on",
        )
    stored = Upload.objects.get()
    assert answer["Location"] == f"/submissions/{stored.pk}/"
    assert stored.uploader == submitter
    assert stored.declared_metadata["institution"] == "Analytical Engines"
    assert stored.declared_metadata["reproducibility"]["questionnaire"] == {"purpose": ANSWER}
    [run] = stored.runs.all()
    assert run.score_total == pytest.approx(DEMO_SUBMISSION_SCORE)

    status = client.get(f"/submissions/{stored.pk}/")
    assert "Retry-After" not in status
    page = text(status)
    assert f'href="/runs/{run.pk}/"' in page
    assert "would place #2 on the Research list as of today, unverified" in page
    assert ">Withdraw</button>" in page


def test_an_unfinished_upload_asks_to_be_polled_again(client, submitter, private_storage, settings):
    settings.IOBOARD_UPLOAD_POLL_SECONDS = 3
    upload(client, tar_gz_of(DEMO_SUBMISSION))  # its ingest is queued on commit, which this test never reaches
    stored = Upload.objects.get()
    partial = client.get(f"/submissions/{stored.pk}/status/")
    assert partial["Retry-After"] == "3"
    assert 'data-finished="no"' in text(partial)


def test_a_refused_upload_names_the_problem_on_the_form(client, submitter, private_storage):
    answer = upload(client, b"not an archive at all", name="notes.tgz")
    assert answer.status_code == 200
    assert "notes.tgz" in text(answer)
    assert '<p class="notice error">notes.tgz: ' in text(answer)
    assert not Upload.objects.exists()


def test_a_failed_ingest_shows_every_problem_with_its_file_and_line(
    client, submitter, private_storage, django_capture_on_commit_callbacks, tmp_path
):
    folder = tmp_path / "submission"
    shutil.copytree(DEMO_SUBMISSION, folder)
    (folder / "ioboard.yaml").write_text("system: Wolf\nclient_nodes:\n  - 1\n  - 2\n")
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, tar_gz_of(folder))
    stored = Upload.objects.get()
    page = text(client.get(f"/submissions/{stored.pk}/"))
    assert "Status: <strong>Failed</strong>" in page
    problems = page.split('<ul class="problems">')[1].split("</ul>")[0]
    assert "<li>ioboard.yaml:3: &#x27;client_nodes&#x27; must be a single value" in problems  # the list's first line


def test_another_accounts_upload_is_not_found(client, submitter, private_storage):
    other = Upload.objects.create(sha256="0" * 64, original_name="theirs.tgz", size=1, uploader=UserFactory())
    assert client.get(f"/submissions/{other.pk}/").status_code == 404
    assert client.get(f"/submissions/{other.pk}/status/").status_code == 404


def test_a_token_in_a_kept_job_script_is_removed_and_the_uploader_warned(
    client, submitter, private_storage, django_capture_on_commit_callbacks, tmp_path
):
    key = "0123456789abcdef0123456789abcdef01234567"
    folder = tmp_path / "submission"
    shutil.copytree(DEMO_SUBMISSION, folder)
    (folder / "job.sh").write_text(f'#!/bin/bash\nmpirun ./io500 config.ini\ncurl -H "Authorization: Token {key}"\n')
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, tar_gz_of(folder))
    stored = Upload.objects.get()
    [run] = stored.runs.all()
    kept = run.files.get(name="job.sh").content
    assert key not in kept
    assert "job.sh:3: an API token was removed" in text(client.get(f"/submissions/{stored.pk}/"))
    assert key not in text(client.get(f"/runs/{run.pk}/"))
    assert client.get(f"/runs/{run.pk}/upload/").status_code == 200  # the uploader's own archive
    client.logout()
    assert client.get(f"/runs/{run.pk}/upload/").status_code == 404  # not anyone else's


def test_an_upload_to_an_edition_is_private_until_its_release(
    client, submitter, private_storage, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        upload(client, tar_gz_of(DEMO_SUBMISSION), edition="sc26")
    stored = Upload.objects.get()
    assert (stored.edition, stored.embargoed) == ("sc26", True)
    [run] = stored.runs.all()
    assert client.get(f"/runs/{run.pk}/").status_code == 200  # its account sees it
    client.logout()
    assert client.get(f"/runs/{run.pk}/").status_code == 404  # nobody else does
