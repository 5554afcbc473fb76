"""Stored files (uploads) as rows of PostgreSQL, so that no host keeps anything on its own disk.

A web host stores an upload, a worker on another host ingests it and any web host serves it back
(`runs/<id>/upload/`): they share the database, not a file system. The default storage
(``STORAGES["default"]``, config/settings.py) is this one; with ``IOBOARD_S3_BUCKET`` set it is an
S3-compatible bucket through django-storages instead (docs/deployment.md).

Why our own backend: the maintained PyPI packages for files in a database do not fit. django-db-file-storage
keeps a file base64-encoded in a text column (a third larger, decoded on every read) in a model of our own
with a name encoding its model and columns; django-binary-database-files mirrors every file onto the local
file system too (what this backend exists to avoid) and brings its own app and migrations. This is a
Storage subclass on Django's public Storage API over one table of ours (``UploadBlob``), about as long
as either's configuration.

A file is read whole into memory: an upload is at most IOBOARD_UPLOAD_MAX_BYTES (64 MiB), and the
readers (the ingest worker, the raw-file download) read it whole anyway.
"""

from __future__ import annotations

from datetime import datetime

from django.apps import apps
from django.conf import settings
from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage, Storage, default_storage
from django.db import models
from django.utils.deconstruct import deconstructible


@deconstructible
class DatabaseStorage(Storage):
    """Files as ``UploadBlob`` rows, named as the FileField names them (``uploads/%Y/%m/<sha256>.tgz``).

    ``blobs`` is the model to use; a data migration passes its historical one, everything else takes
    ``results.UploadBlob``.
    """

    def __init__(self, blobs: type[models.Model] | None = None):
        self._blobs = blobs

    @property
    def blobs(self) -> type[models.Model]:
        return self._blobs or apps.get_model("results", "UploadBlob")

    def _open(self, name: str, mode: str = "rb") -> File:
        if set(mode) - set("rb"):
            raise ValueError(f"{name}: a stored file is read-only (mode {mode!r}); save a new one instead")
        content = self.blobs.objects.filter(name=name).values_list("content", flat=True).first()
        if content is None:
            raise FileNotFoundError(f"{name}: no such stored file")
        return ContentFile(bytes(content), name=name)

    def _save(self, name: str, content: File) -> str:
        if hasattr(content, "seek"):
            content.seek(0)
        data = b"".join(content.chunks())
        self.blobs.objects.create(name=name, content=data, size=len(data))
        return name

    def delete(self, name: str) -> None:
        self.blobs.objects.filter(name=name).delete()

    def exists(self, name: str) -> bool:
        return self.blobs.objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        size = self.blobs.objects.filter(name=name).values_list("size", flat=True).first()
        if size is None:
            raise FileNotFoundError(f"{name}: no such stored file")
        return size

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = path.strip("/") + "/" if path.strip("/") else ""
        directories, files = set(), []
        for name in self.blobs.objects.filter(name__startswith=prefix).values_list("name", flat=True):
            head, _, tail = name[len(prefix) :].partition("/")
            if tail:
                directories.add(head)
            else:
                files.append(head)
        return sorted(directories), sorted(files)

    def get_created_time(self, name: str) -> datetime:
        created = self.blobs.objects.filter(name=name).values_list("created_at", flat=True).first()
        if created is None:
            raise FileNotFoundError(f"{name}: no such stored file")
        return created

    get_modified_time = get_created_time  # a stored file is never rewritten in place

    def url(self, name: str | None) -> str:
        raise NotImplementedError("stored files are served by their views (runs/<id>/upload/), not from a URL")


def move_media_into_storage(uploads: type[models.Model], blobs: type[models.Model]) -> tuple[int, list[str]]:
    """Copy each upload's file from MEDIA_ROOT into the configured storage, unless it is there already.

    Returns how many were copied and the names missing on disk (reported by the caller, never fatal: the
    upload's download answers 404, as it did with the file gone). ``uploads`` and ``blobs`` are the models to
    read and write, historical ones in a migration.
    """
    source = FileSystemStorage(location=settings.MEDIA_ROOT)
    target = DatabaseStorage(blobs) if isinstance(default_storage, DatabaseStorage) else default_storage
    moved, missing = 0, []
    for name in uploads.objects.exclude(file="").order_by("pk").values_list("file", flat=True).iterator():
        if target.exists(name):
            continue
        if not source.exists(name):
            missing.append(name)
            continue
        with source.open(name, "rb") as handle:
            target.save(name, handle)
        moved += 1
    return moved, missing
