"""Helpers for tests that upload: archives of real submissions, in-memory files, leftovers."""

import hashlib
import io
import tarfile
from pathlib import Path

from django.core.files.base import ContentFile
from rest_framework.test import APIClient

from apps.ingest.models import IngestJob
from apps.results.models import ApiToken, Run, Upload, UploadBlob
from tests.conftest import REPO_ROOT
from tests.factories import RunFactory

DEMO = REPO_ROOT / "fixtures" / "demo"
# A C-application-era submission kept in the repository, so uploads are tested without ../shared.
DEMO_SUBMISSION = DEMO / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8"
# Its recomputed score, from the row of submission 8 in ../shared/io500-corpus/expected.csv.
DEMO_SUBMISSION_SCORE = 736.332861455


def files_under(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if not path.is_dir())


def stored_files() -> list[str]:
    """The names of the files kept in the upload storage (PostgreSQL rows, not a host's disk)."""
    return sorted(UploadBlob.objects.values_list("name", flat=True))


def tar_gz_of(folder: Path) -> bytes:
    """A .tar.gz of a submission folder, its contents at the top level (as `tar -C folder -czf`)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for item in sorted(folder.iterdir()):
            archive.add(item, arcname=item.name)
    return buffer.getvalue()


def named_file(data: bytes, name: str) -> io.BytesIO:
    handle = io.BytesIO(data)
    handle.name = name
    return handle


def client_with_token(user) -> APIClient:
    client = APIClient()
    _, key = ApiToken.issue(user, "tests")
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def uploaded_run(user, content: bytes = b"archive bytes", edition: str = "", **run_fields) -> Run:
    """A run as an upload by `user` would leave it (to `edition`: private until it is frozen): the kept file, a
    finished job, the run (with `run_fields`)."""
    upload = Upload(
        sha256=hashlib.sha256(content).hexdigest(),
        original_name="run.tgz",
        size=len(content),
        uploader=user,
        edition=edition,
        embargoed=bool(edition),
    )
    upload.file.save("run.tgz", ContentFile(content), save=True)
    run = RunFactory(upload=upload, **run_fields)
    job = IngestJob.objects.create(upload=upload, status="done", progress=100)
    job.runs.set([run])
    return run
