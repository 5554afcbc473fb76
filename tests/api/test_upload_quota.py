"""Storage no one bounds (issue #40, item 7): each account may upload so many files and so many bytes a day
(IOBOARD_UPLOAD_QUOTA_*); past either, an upload is refused with a 429 naming the limit, and nothing is kept."""

from datetime import timedelta

import pytest
from django.utils import timezone

from apps.results.models import Upload
from tests.api.uploading import DEMO, DEMO_SUBMISSION, files_under, stored_files, tar_gz_of
from tests.api.uploads.test_uploads import upload

pytestmark = pytest.mark.django_db

#: Distinct real submissions: distinct bytes, so none is the same upload as another.
SUBMISSIONS = [DEMO_SUBMISSION, DEMO / "TACC" / "Frontera" / "DAOS" / "2020" / "submission-13"]


def test_past_the_uploads_per_day_an_upload_is_refused_naming_the_limit(alice_client, private_storage, settings):
    settings.IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY = 1
    assert upload(alice_client, tar_gz_of(SUBMISSIONS[0])).status_code == 202

    refused = upload(alice_client, tar_gz_of(SUBMISSIONS[1]), name="second.tgz")

    assert refused.status_code == 429, refused.content
    assert "1 uploads per day" in refused.json()["detail"]
    assert "IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY" not in refused.json()["detail"]  # the limit, not the setting
    assert Upload.objects.count() == 1
    assert stored_files() == [Upload.objects.get().file.name]
    assert files_under(private_storage / "tmp") == []


def test_past_the_bytes_per_day_an_upload_is_refused_naming_the_limit(alice_client, private_storage, settings):
    first, second = tar_gz_of(SUBMISSIONS[0]), tar_gz_of(SUBMISSIONS[1])
    settings.IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY = len(first) + len(second) - 1
    assert upload(alice_client, first).status_code == 202

    refused = upload(alice_client, second, name="second.tgz")

    assert refused.status_code == 429, refused.content
    assert f"{settings.IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY} bytes per day" in refused.json()["detail"]
    assert Upload.objects.count() == 1


def test_the_quota_is_per_account_and_per_day(alice_client, bob_client, private_storage, settings):
    settings.IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY = 1
    assert upload(alice_client, tar_gz_of(SUBMISSIONS[0])).status_code == 202

    assert upload(bob_client, tar_gz_of(SUBMISSIONS[1])).status_code == 202  # bob's own day
    Upload.objects.filter(uploader__username="alice").update(created_at=timezone.now() - timedelta(hours=25))
    assert upload(alice_client, tar_gz_of(SUBMISSIONS[1])).status_code == 202  # a day later


def test_the_same_bytes_again_are_answered_even_when_the_quota_is_spent(alice_client, private_storage, settings):
    settings.IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY = 1
    data = tar_gz_of(SUBMISSIONS[0])
    first = upload(alice_client, data)

    again = upload(alice_client, data)

    assert (again.status_code, again.json()["id"]) == (200, first.json()["id"])


def test_the_defaults_are_sane():
    from django.conf import settings

    assert settings.IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY >= 20
    assert settings.IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY >= 4 * settings.IOBOARD_UPLOAD_MAX_BYTES
