"""Uploads kept in PostgreSQL (apps.results.storage): what a FileField does with them, and the move of older
uploads from MEDIA_ROOT into the storage."""

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from apps.results.models import Upload, UploadBlob
from apps.results.storage import DatabaseStorage, move_media_into_storage
from tests.api.uploading import files_under

pytestmark = pytest.mark.django_db


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return tmp_path / "media"


def test_the_default_storage_keeps_a_file_as_a_row_and_nothing_on_disk(media_root):
    upload = Upload(sha256="a" * 64, original_name="run.tgz", size=5)
    upload.file.save("aaa.tgz", ContentFile(b"bytes"), save=True)

    assert isinstance(default_storage, DatabaseStorage)
    assert list(UploadBlob.objects.values_list("name", "size")) == [(upload.file.name, 5)]
    assert bytes(UploadBlob.objects.get().content) == b"bytes"
    assert Upload.objects.get().file.open("rb").read() == b"bytes"
    assert not media_root.exists() or files_under(media_root) == []


def test_a_stored_name_is_never_overwritten_and_a_deleted_file_is_gone():
    storage = DatabaseStorage()
    first = storage.save("uploads/2026/11/same.tgz", ContentFile(b"one"))
    second = storage.save("uploads/2026/11/same.tgz", ContentFile(b"two"))

    assert first == "uploads/2026/11/same.tgz"
    assert second != first
    assert storage.open(first).read() == b"one"
    assert storage.size(second) == 3
    assert storage.listdir("uploads/2026") == (["11"], [])
    assert storage.listdir("uploads/2026/11/") == ([], sorted([first.rsplit("/", 1)[1], second.rsplit("/", 1)[1]]))
    storage.delete(first)
    assert not storage.exists(first)
    with pytest.raises(FileNotFoundError):
        storage.open(first)


def test_a_stored_file_cannot_be_opened_for_writing():
    storage = DatabaseStorage()
    name = storage.save("uploads/x.log", ContentFile(b"log"))

    with pytest.raises(ValueError, match="read-only"):
        storage.open(name, "wb")


def test_older_uploads_move_from_media_root_once_and_a_missing_file_is_reported(media_root):
    (media_root / "uploads" / "2024" / "06").mkdir(parents=True)
    (media_root / "uploads" / "2024" / "06" / "kept.tgz").write_bytes(b"kept bytes")
    Upload.objects.create(sha256="k" * 64, original_name="kept.tgz", size=10, file="uploads/2024/06/kept.tgz")
    Upload.objects.create(sha256="m" * 64, original_name="lost.tgz", size=4, file="uploads/2024/06/lost.tgz")

    moved, missing = move_media_into_storage(Upload, UploadBlob)
    again = move_media_into_storage(Upload, UploadBlob)

    assert (moved, missing) == (1, ["uploads/2024/06/lost.tgz"])
    assert again == (0, ["uploads/2024/06/lost.tgz"])
    assert list(UploadBlob.objects.values_list("name", flat=True)) == ["uploads/2024/06/kept.tgz"]
    assert Upload.objects.get(original_name="kept.tgz").file.open("rb").read() == b"kept bytes"
