"""`ingest --reprocess` goes on past a stored upload it cannot re-read and says which; the admin deletes an upload
the way the API does, with only what it owns, and shows staff whose runs are whose and which runs claim a system."""

import hashlib

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_upload
from apps.results.models import PhaseResult, Run, ScalingPoint, ScalingSeries, Upload
from tests.api.test_ownership_attacks import PUBLISHED_AT, archive
from tests.api.uploading import DEMO_SUBMISSION
from tests.factories import RunFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")


def stored_upload(content: bytes, name: str, uploader=None) -> Upload:
    upload = Upload(
        sha256=hashlib.sha256(content).hexdigest(),
        original_name=name,
        size=len(content),
        uploader=uploader or UserFactory(),
    )
    upload.file.save(name, ContentFile(content), save=True)
    return upload


def test_reprocess_reports_each_bad_upload_by_id_and_name_goes_on_and_exits_non_zero(capsys):
    unreadable = stored_upload(b"not an archive at all", "broken.tgz")
    vanished = stored_upload(b"gone before the reprocess", "vanished.tgz")
    good = stored_upload(archive({PUBLISHED_AT: DEMO_SUBMISSION}), "good.tgz")
    run = ingest_upload(good)[0]
    PhaseResult.objects.filter(run=run).delete()  # what a parser change would rewrite
    vanished.file.storage.delete(vanished.file.name)

    with pytest.raises(SystemExit) as exit_status:
        call_command("ingest", "--reprocess")

    assert exit_status.value.code == 1
    errors = capsys.readouterr().err
    assert f"FAILED upload {unreadable.pk} (broken.tgz): " in errors
    assert f"FAILED upload {vanished.pk} (vanished.tgz): " in errors
    assert unreadable.pk < vanished.pk < good.pk  # the good one came after both failures...
    assert PhaseResult.objects.filter(run=run).count() > 0  # ...and was reprocessed


@pytest.mark.parametrize("how", ["one", "selected"])
def test_the_admin_deletes_an_upload_with_what_it_owns_and_nothing_else(
    how, admin_client, django_capture_on_commit_callbacks
):
    upload = stored_upload(b"bytes", "run.tgz")
    owned, operators = RunFactory(upload=upload), RunFactory()
    series = ScalingSeries.objects.create(name="operator's campaign")
    ScalingPoint.objects.create(series=series, mdt_count=1, operation="create", source_file="a", log_hash="a")
    ScalingPoint.objects.create(
        series=series, upload=upload, mdt_count=2, operation="create", source_file="b", log_hash="b"
    )

    with django_capture_on_commit_callbacks(execute=True):
        if how == "one":
            admin_client.post(f"/admin/results/upload/{upload.pk}/delete/", {"post": "yes"})
        else:
            admin_client.post(
                "/admin/results/upload/", {"action": "delete_selected", "_selected_action": [upload.pk], "post": "yes"}
            )

    assert not Run.objects.filter(pk=owned.pk).exists()
    assert Run.objects.filter(pk=operators.pk).exists()
    assert list(series.points.values_list("log_hash", flat=True)) == ["a"]
    assert not upload.file.storage.exists(upload.file.name)


def test_staff_see_owners_and_system_claims_in_the_admin_and_on_the_run_page(admin_client, client):
    upload = stored_upload(b"bytes", "claim.tgz", uploader=UserFactory(username="mallory"))
    claiming = RunFactory(upload=upload, review_status="submitted", system_claim="names the existing system X")
    RunFactory()

    claims = admin_client.get("/admin/results/run/?system_claim=yes").content.decode()
    page = admin_client.get(f"/admin/results/run/{claiming.pk}/change/").content.decode()

    assert f"/admin/results/run/{claiming.pk}/change/" in claims
    assert claims.count('/change/"') == 1
    assert f"upload {upload.pk} (claim.tgz) by mallory" in page
    assert "names the existing system X" in page
    assert "names the existing system X" in admin_client.get(f"/runs/{claiming.pk}/").content.decode()
    assert "names the existing system X" not in client.get(f"/runs/{claiming.pk}/").content.decode()
