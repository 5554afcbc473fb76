"""The parts of the ingest core that know Django: the error a pipeline raises, limits and field sizes, and the
worker's own copy of a stored upload."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db.models import Model

from apps.ingest.core.archive import SCRATCH_PREFIX, ArchiveLimits, scratch_space
from apps.results.models import Upload

COPY_CHUNK_BYTES = 1024 * 1024


class IngestError(Exception):
    """Bad content: the message names the file and line. Retrying cannot help."""


class IngestUsageError(ValueError):
    """A pipeline was asked for something it cannot do as asked (a missing option, no path)."""


@contextmanager
def stored_upload_copy(upload: Upload) -> Iterator[Path]:
    """The upload's bytes as a file in this worker's own scratch space (``tempfile``), removed at the end.

    The stored file lives where every host reaches it (the database or a bucket, apps.results.storage), not on
    this host's disk; the pipelines read files, so each ingest copies it out first. The copy keeps the storage
    name below the scratch directory, so a message naming it reads as before once the scratch prefix is cut
    (apps.ingest.tasks.without_server_paths): ``uploads/2026/11/<sha256>.tgz: ...``.
    """
    with scratch_space():
        scratch_directory = tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX)
    with scratch_directory as scratch:
        copy = Path(scratch) / upload.file.name
        try:
            source = upload.file.storage.open(upload.file.name, "rb")
        except FileNotFoundError as exc:
            raise IngestError(f"{upload.original_name}: the stored upload is missing") from exc
        with scratch_space(), source:
            copy.parent.mkdir(parents=True, exist_ok=True)
            with open(copy, "wb") as sink:
                shutil.copyfileobj(source, sink, COPY_CHUNK_BYTES)
        yield copy


def archive_caps() -> dict:
    """The configured limits for reading an archive (``IOBOARD_ARCHIVE_MAX_*``), as ``open_input`` takes them."""
    return {
        "max_entries": settings.IOBOARD_ARCHIVE_MAX_ENTRIES,
        "max_expanded_bytes": settings.IOBOARD_ARCHIVE_MAX_EXPANDED_BYTES,
        "max_file_bytes": settings.IOBOARD_ARCHIVE_MAX_FILE_BYTES,
        "max_ratio": settings.IOBOARD_ARCHIVE_MAX_RATIO,
    }


def archive_limits() -> ArchiveLimits:
    """The same limits as one value, as ``inspect_archive`` takes them."""
    return ArchiveLimits(**archive_caps())


def check_runs_per_upload(count: int, name: str) -> None:
    """Refuse an upload holding more runs than ``IOBOARD_UPLOAD_MAX_RUNS`` before any is parsed: each run
    may create a system, so this bounds what one upload adds to the lists."""
    cap = settings.IOBOARD_UPLOAD_MAX_RUNS
    if count > cap:
        raise IngestError(
            f"{name}: holds {count} IO500 result directories, over the limit of {cap} runs per upload "
            "(split it, or ask an administrator to ingest it)"
        )


def fit(model: type[Model], field_name: str, value: str | None) -> str:
    """``value`` cut to the ``max_length`` of ``model.field_name`` (``None`` becomes "").

    Parsed text (a printed value, a file name, a Lustre tag) can be longer than any sane column;
    reading the limit from the model keeps one definition of each size.
    """
    text = value or ""
    max_length = model._meta.get_field(field_name).max_length
    return text[:max_length] if max_length else text
