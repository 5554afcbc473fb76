"""An upload: the file a run, series, study or stack came from, and who sent it.

It lives in results rather than in ingest because a run points at the upload it came from, and
that arrow must not point from results to ingest.
"""

import hashlib

from django.conf import settings
from django.db import models


class Upload(models.Model):
    """A file exactly as it was received, content-addressed, so it can always be re-ingested.

    The same bytes are one upload per account and kind: an account sending them again finds its upload, while
    another account's copy (or the bytes sent as another kind) is an upload of its own. Answering with another
    account's upload would show its id and status, and bytes sent once as the wrong kind would block the right one.

    ``kind`` names the benchmark tool whose pipeline ingests it. Its valid values are the upload kinds of
    the tool registry (``apps.ingest.tools``), checked where an upload is received: this app imports no
    other, and a new tool needs no migration."""

    file = models.FileField(upload_to="uploads/%Y/%m/")
    sha256 = models.CharField(max_length=64, db_index=True)
    original_name = models.CharField(max_length=500)
    size = models.BigIntegerField()
    kind = models.CharField(max_length=40, default="io500", help_text="an upload kind of apps.ingest.tools")
    uploader = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="uploads"
    )
    declared_metadata = models.JSONField(default=dict, blank=True)
    edition = models.CharField(
        max_length=50, blank=True, help_text="the edition (e.g. sc26) it is submitted to: private until it is frozen"
    )
    embargo_until = models.DateTimeField(null=True, blank=True, help_text="private until this moment")
    embargoed = models.BooleanField(
        default=False,
        help_text="private until released (its edition frozen or its embargo date passed): what it stored is "
        "seen by its account and staff only (apps.results.models.visibility)",
    )
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="superseded_by",
        help_text="the upload this corrected version replaces (its runs withdrawn, kept in the history)",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["uploader", "kind", "sha256"], name="upload_unique_bytes_per_account_kind")
        ]

    def __str__(self) -> str:
        return f"{self.original_name} ({self.sha256[:12]})"

    @property
    def needs_review(self) -> bool:
        """Runs of this upload wait for the committee, unless its uploader may publish without review.

        A committee board ranks only accepted runs (issue: the lists as the IO500 publishes them); a site's
        own board gives its submitters the permission, and their uploads are ranked at the next read.
        """
        return not (self.uploader and self.uploader.has_perm("results.publish_without_review"))

    @staticmethod
    def hash_file(fileobj) -> str:
        digest = hashlib.sha256()
        for chunk in iter(lambda: fileobj.read(1024 * 1024), b""):
            digest.update(chunk)
        fileobj.seek(0)
        return digest.hexdigest()


class UploadBlob(models.Model):
    """The bytes of a stored file (an upload), kept in PostgreSQL so that every web host and worker reads them.

    ``name`` is the storage name the FileField holds (``uploads/2026/11/<sha256>.tgz``); ``apps.results.storage``
    reads and writes these rows. An upload is at most IOBOARD_UPLOAD_MAX_BYTES (64 MiB), well inside what one
    bytea value holds and what one worker reads into memory; the real corpus's largest is 1.3 MB.
    """

    name = models.CharField(max_length=255, unique=True)
    content = models.BinaryField()
    size = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name} ({self.size} bytes)"
