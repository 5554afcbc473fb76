"""What the fault and security tests upload, and how: kept here so they do not lean on another package's fixtures."""

import io
import tarfile
from pathlib import Path

from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.conftest import REPO_ROOT

# A C-application-era submission kept in the repository, so these tests run without ../shared.
DEMO_SUBMISSION = REPO_ROOT / "fixtures" / "demo" / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8"


def tar_gz_of(folder: Path) -> bytes:
    """A .tar.gz of a folder, its contents at the top level (as `tar -C folder -czf`)."""
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
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client
