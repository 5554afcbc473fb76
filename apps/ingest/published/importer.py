"""Import io500.org's published record: replay its SQL files, then store what they leave (the service behind
`manage.py import_published`)."""

import hashlib
from dataclasses import asdict
from pathlib import Path

from apps.ingest.published.corrections import CORRECTIONS, Correction
from apps.ingest.published.replay import COMMIT_ORDER, PublishedRecord, Replay, read_record
from apps.results.services.published import RECORD_FORMAT, StoreResult, store_record


def files_digest(directory: Path, order: list[str], corrections: list[Correction]) -> str:
    """Of the files in their order, the corrections and the way the record is stored: the same files imported
    again by the same code change nothing."""
    digest = hashlib.sha256(f"{RECORD_FORMAT}\0{corrections!r}".encode())
    for name in order:
        digest.update(name.encode() + b"\0" + (directory / name).read_bytes())
    return digest.hexdigest()


def import_published(
    directory: Path, order: list[str] = COMMIT_ORDER, corrections: list[Correction] = CORRECTIONS
) -> tuple[PublishedRecord, StoreResult]:
    """Replay the files of `directory` in `order` with `corrections` (ReplayError, and nothing stored, when a
    statement cannot be applied) and store the record."""
    record = read_record(Replay(corrections).run(directory, order))
    result = store_record(
        record.releases,
        record.lists,
        record.submissions,
        [asdict(change) for change in record.changes],
        files_digest(directory, order, corrections),
    )
    return record, result
