"""The parts of the ingest core that know Django: the error a pipeline raises, limits and field sizes."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Model

from apps.ingest.core.archive import ArchiveLimits


class IngestError(Exception):
    """Bad content: the message names the file and line. Retrying cannot help."""


class IngestUsageError(ValueError):
    """A pipeline was asked for something it cannot do as asked (a missing option, no path)."""


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
