"""Receiving uploads: check the bytes, keep them, and queue the ingest.

An upload is treated as hostile until proven otherwise. It is copied to a private scratch directory, under a
generated name, while its size is capped and its sha256 computed; the same bytes the same account sent before as
the same kind return its existing upload (another account's are never answered). A new archive's format is then
told by its magic bytes and its directory (zip central directory, tar headers) is checked against the configured
caps (``inspect_archive``: entries, declared sizes per file and in all, compression ratio) without writing a byte
of it: a zip or tar bomb is refused here, in well under a second. Expansion is the Celery worker's job, never the
request's. Only then is the file stored (named by its sha256; apps.results.storage) in the transaction that creates
the Upload and its IngestJob, so a web host killed or a database lost mid-way leaves neither; the Celery task is
enqueued when that transaction commits. Any refusal raises UploadRefused naming the problem, and leaves nothing
behind: scratch is always removed and the stored file is written only after every check has passed.
"""

import gzip
import hashlib
import re
import tarfile
import tempfile
from datetime import datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import BinaryIO, NamedTuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.files import File
from django.db import IntegrityError, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from apps.ingest.core.archive import ArchiveError, inspect_archive, is_archive
from apps.ingest.core.common import archive_limits
from apps.ingest.models import IngestJob
from apps.ingest.tasks import ingest_upload_task
from apps.ingest.tools import upload_kinds
from apps.results.models import Upload
from apps.results.services.embargo import EmbargoError, embargo_of
from apps.results.storage import DatabaseStorage

CHUNK_BYTES = 1024 * 1024
# A multipart body carries the form fields and boundaries besides the file itself.
MULTIPART_OVERHEAD_BYTES = 64 * 1024
# The scratch copy's name: generated, never the client's (which only ever appears in messages).
RECEIVED_NAME = "received.upload"


class UploadRefused(Exception):
    """The upload is not accepted; the message names the problem. Nothing of it was stored."""


class UploadQuotaExceeded(UploadRefused):
    """The account has stored its day's worth of uploads or bytes (a 429: it may send again later)."""


class ReceivedUpload(NamedTuple):
    upload: Upload
    job: IngestJob
    created: bool


def refuse_oversized_request(content_length: int) -> None:
    """Refuse a request body that cannot hold an upload under the cap, before reading any of it."""
    cap = settings.IOBOARD_UPLOAD_MAX_BYTES
    if content_length > cap + MULTIPART_OVERHEAD_BYTES:
        raise UploadRefused(f"request body of {content_length} bytes is over the upload size cap of {cap} bytes")


def receive_upload(
    fileobj: BinaryIO,
    *,
    name: str,
    kind: str,
    uploader: AbstractBaseUser | None,
    metadata: dict,
    edition: str = "",
    embargo_until: datetime | None = None,
) -> ReceivedUpload:
    """Store a new upload and queue its ingest, or return the account's existing upload of the same bytes and kind.
    With an `edition` not yet frozen or an `embargo_until` ahead, what it stores is private until released
    (apps.results.services.embargo)."""
    name = display_name(name)
    with tempfile.TemporaryDirectory(prefix="ioboard-receive-") as scratch:
        copy = Path(scratch) / RECEIVED_NAME
        sha256, size = copy_with_cap(fileobj, copy, name)
        existing = existing_upload(sha256, uploader, kind)
        if existing:
            return existing
        check_quota(uploader, size, name)
        check_content(copy, kind=kind, name=name)
        try:
            embargoed = embargo_of(edition, embargo_until)
        except EmbargoError as error:
            raise UploadRefused(str(error)) from error
        upload = Upload(
            sha256=sha256,
            original_name=name,
            size=size,
            kind=kind,
            uploader=uploader,
            declared_metadata=metadata,
            edition=edition,
            embargo_until=embargo_until,
            embargoed=embargoed,
        )
        try:
            with transaction.atomic():
                with open(copy, "rb") as handle:
                    upload.file.save(stored_name(sha256, name), File(handle), save=False)
                check_quota(uploader, size, name, locked=True)
                upload.save()
                job = start_job(upload)
        except IntegrityError:
            # The same bytes arrived concurrently and the other request committed first.
            discard_stored_file(upload)
            existing = existing_upload(sha256, uploader, kind)
            if existing is None:
                raise
            return existing
        except BaseException:
            # Nothing partial is stored: a row that could not be written leaves no file behind (each retry
            # of a refused request would otherwise leave another copy).
            discard_stored_file(upload)
            raise
    # In eager mode the ingest ran at commit; answer with the job as it stands now.
    job.refresh_from_db(fields=["status"])
    return ReceivedUpload(upload, job, created=True)


def discard_stored_file(upload: Upload) -> None:
    """Remove the file of an upload whose row was rolled back, where the rollback did not take it along.

    In the database storage (the default) the file is a row written in the upload's own transaction: a web host
    killed, or PostgreSQL lost, before the commit leaves neither, and there is nothing to delete (a delete by name
    could only find another request's file of the same bytes, committed meanwhile). A bucket's object outlives
    the rollback and is deleted here."""
    if upload.file.name and not isinstance(upload.file.storage, DatabaseStorage):
        upload.file.delete(save=False)


def display_name(name: str) -> str:
    """The base name a client gave, without any directory part or control character, never empty."""
    base = PurePosixPath(re.sub(r"[\x00-\x1f\x7f]", "", name or "").replace("\\", "/")).name.strip()
    return base[:200] if base not in ("", ".", "..") else "upload"


def stored_name(sha256: str, name: str) -> str:
    """Content-addressed file name, keeping the archive suffix for people browsing MEDIA_ROOT."""
    suffix = "".join(PurePosixPath(name).suffixes[-2:])
    return sha256 + (suffix if re.fullmatch(r"(\.[A-Za-z0-9]{1,5}){1,2}", suffix) else "")


def copy_with_cap(fileobj: BinaryIO, destination: Path, name: str) -> tuple[str, int]:
    """Copy the upload, hashing as it goes; refuse it (naming it ``name``) as soon as it grows past the cap."""
    cap = settings.IOBOARD_UPLOAD_MAX_BYTES
    digest, size = hashlib.sha256(), 0
    fileobj.seek(0)
    with open(destination, "wb") as sink:
        for chunk in iter(lambda: fileobj.read(CHUNK_BYTES), b""):
            size += len(chunk)
            if size > cap:
                raise UploadRefused(f"{name}: file is over the upload size cap of {cap} bytes")
            digest.update(chunk)
            sink.write(chunk)
    if size == 0:
        raise UploadRefused(f"{name}: file is empty")
    return digest.hexdigest(), size


def check_quota(uploader: AbstractBaseUser | None, size: int, name: str, *, locked: bool = False) -> None:
    """Refuse an upload of `size` bytes past the account's day (the last 24 hours): more uploads than
    IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY, or more bytes than IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY. Staff are not
    counted. `locked`: in the transaction that stores the upload, the account's row is locked first, so two
    uploads at once cannot both pass on the same count (PostgreSQL; SQLite writes one at a time anyway)."""
    if uploader is None or uploader.is_staff:
        return
    if locked:
        get_user_model().objects.select_for_update().filter(pk=uploader.pk).exists()
    day = Upload.objects.filter(uploader=uploader, created_at__gte=timezone.now() - timedelta(days=1))
    spent = day.aggregate(uploads=Count("pk"), size=Sum("size"))
    uploads, spent_bytes = spent["uploads"], spent["size"] or 0
    per_day, bytes_per_day = settings.IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY, settings.IOBOARD_UPLOAD_QUOTA_BYTES_PER_DAY
    if uploads >= per_day:
        raise UploadQuotaExceeded(
            f"{name}: refused: this account sent {uploads} uploads in the last 24 hours, its limit of {per_day} "
            "uploads per day; send it again later"
        )
    if spent_bytes + size > bytes_per_day:
        raise UploadQuotaExceeded(
            f"{name}: refused: its {size} bytes and the {spent_bytes} this account sent in the last 24 hours are over "
            f"its limit of {bytes_per_day} bytes per day; send it again later"
        )


def check_content(path: Path, *, kind: str, name: str) -> None:
    """Prove the upload is something we ingest: an archive within the caps, or (for a tool whose registry
    entry has a bare-log marker: mdtest, IOR) a text log.

    The kind must be a registered upload kind (``apps.ingest.tools``). An archive is judged by its
    directory alone (``inspect_archive``); nothing of it is expanded here.
    """
    tools = upload_kinds()
    if kind not in tools:
        raise UploadRefused(f"{name}: unknown kind {kind!r}; known: {', '.join(tools)}")
    marker = tools[kind].ingest.log_marker
    if marker and not is_archive(path):
        check_text_log(path, kind, name, marker)
        return
    try:
        summary = inspect_archive(path, archive_limits(), label=name)
    except ArchiveError as error:
        raise UploadRefused(str(error)) from error
    if not summary.files:
        raise UploadRefused(f"{name}: archive contains no files")


def check_text_log(path: Path, kind: str, name: str, marker: bytes) -> None:
    """A bare log must be text that mentions its tool (``marker``, lower case), within the per-file cap;
    anything else is an unknown format."""
    cap = settings.IOBOARD_ARCHIVE_MAX_FILE_BYTES
    if path.stat().st_size > cap:
        raise UploadRefused(f"{name}: a log of {path.stat().st_size} bytes is over the per-file limit of {cap} bytes")
    tail, mentions_tool = b"", False
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(CHUNK_BYTES), b""):
            if b"\x00" in chunk:
                raise UploadRefused(f"{name}: not an archive and not a text log (binary data)")
            window = (tail + chunk).lower()
            mentions_tool = mentions_tool or marker in window
            tail = window[-(len(marker) - 1) :]
    if not mentions_tool:
        raise UploadRefused(f"{name}: not an archive and not a log of {kind} (no {kind} output in it)")


def existing_upload(sha256: str, uploader: AbstractBaseUser | None, kind: str) -> ReceivedUpload | None:
    """The upload of these bytes this account sent before as this kind (``Upload``: one per account and kind)."""
    upload = Upload.objects.filter(sha256=sha256, uploader=uploader, kind=kind).first()
    if upload is None:
        return None
    job = upload.jobs.order_by("-pk").first()
    if job is None:
        with transaction.atomic():
            job = start_job(upload)
    return ReceivedUpload(upload, job, created=False)


def start_job(upload: Upload) -> IngestJob:
    """Create the upload's ingest job and enqueue it once the surrounding transaction commits.

    The upload is already kept when the message is sent, so an unreachable broker must not turn an
    accepted upload into an error: the failure is logged (robust=True), the job stays pending and
    the periodic sweep (requeue_stuck_uploads) enqueues it again.
    """
    job = IngestJob.objects.create(upload=upload)

    def enqueue_ingest():
        ingest_upload_task.delay(job.pk)

    transaction.on_commit(enqueue_ingest, robust=True)
    return job


def ingest_as_private_upload(
    path: Path, *, kind: str, metadata: dict, edition: str, embargo_until: datetime | None
) -> IngestJob:
    """The operator's bulk path to an edition or an embargo date (``ingest --edition`` or ``--embargo-until``):
    `path` (a folder is packed into a .tar.gz) is received as an upload of nobody's account with those fields,
    exactly as the API stores an upload's, and ingested here, in this process. Its runs are private until the
    release (apps.results.services.embargo) and released with the uploads of that edition or date. A job a worker
    took first (the ingest is also enqueued, as every upload's) is finished by it: running it twice is harmless."""
    with tempfile.TemporaryDirectory(prefix="ioboard-operator-") as scratch:
        packed = pack_folder(path, Path(scratch)) if path.is_dir() else path
        with open(packed, "rb") as handle:
            received = receive_upload(
                handle,
                name=packed.name,
                kind=kind,
                uploader=None,
                metadata=metadata,
                edition=edition,
                embargo_until=embargo_until,
            )
    ingest_upload_task(received.job.pk)
    received.job.refresh_from_db()
    return received.job


def pack_folder(folder: Path, scratch: Path) -> Path:
    """A .tar.gz of `folder` in `scratch`, the folder's contents at its top (as ioboard-submit packs one). The
    same files pack to the same bytes (no time in the gzip header), so the same folder given again finds its
    upload rather than making another."""
    archive = scratch / f"{folder.name or 'upload'}.tar.gz"
    with gzip.GzipFile(archive, "wb", mtime=0) as compressed, tarfile.open(fileobj=compressed, mode="w") as packed:
        for item in sorted(folder.iterdir()):
            packed.add(item, arcname=item.name)
    return archive
