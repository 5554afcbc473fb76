"""Corrupt compressed data in an uploaded archive is refused like any unreadable archive: a 400, nothing kept.

Found by tests/ingest/test_fuzz_all_parsers.py: a deflate (or LZMA) stream damaged in transit makes
zipfile raise zlib.error (or lzma.LZMAError), which are neither OSError nor BadZipFile.
"""

import io
import lzma
import random
import zipfile
import zlib

import pytest

from apps.ingest.models import IngestJob
from apps.results.models import Upload
from tests.api.uploading import client_with_token, named_file
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CONTENT = b"[RESULT] ior-easy-write 1.0 GiB/s : time 300.0 seconds\n" * 50


def zip_with_corrupt_stream(method: int, error: type[Exception]) -> bytes:
    """A zip whose central directory is sound but whose compressed data raises ``error`` when read."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("sub/result.txt", CONTENT)
    original, rng = buffer.getvalue(), random.Random(1)
    start = 30 + len("sub/result.txt")  # local file header, then the compressed data
    for _ in range(2000):
        data = bytearray(original)
        for _ in range(3):
            data[rng.randrange(start, start + 60)] = rng.randrange(256)
        try:
            with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
                archive.read("sub/result.txt")
        except error:
            return bytes(data)
        except Exception:  # noqa: S112 - another kind of damage: try another variant
            continue
    pytest.fail(
        f"the fixture could not build a zip whose data raises {error.__name__}: the security test "
        "would prove nothing, so it fails rather than skips"
    )


@pytest.mark.parametrize(
    ("method", "error"),
    [(zipfile.ZIP_DEFLATED, zlib.error), (zipfile.ZIP_LZMA, lzma.LZMAError)],
    ids=["deflate", "lzma"],
)
def test_a_zip_with_a_corrupt_compressed_stream_is_refused_with_400(method, error, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    client = client_with_token(UserFactory(username="mallory"))
    client.raise_request_exception = False

    response = client.post(
        "/api/v1/uploads/", {"file": named_file(zip_with_corrupt_stream(method, error), "r.zip")}, format="multipart"
    )

    assert response.status_code == 400, response.content[:300]
    assert "file" in response.json()
    assert Upload.objects.count() == IngestJob.objects.count() == 0


@pytest.mark.parametrize(
    "data",
    [b"\x1f\x8b\x08", b"\x1f\x8b\x08\x00", b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\x00\x05"],
    ids=["gzip-magic-then-nothing", "gzip-flags-then-nothing", "gzip-extra-field-cut"],
)
def test_a_truncated_gzip_header_is_refused_with_400(data, settings, tmp_path):
    """tarfile's stream reader raises TypeError (ord() of an empty read) on a gzip header cut short."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    client = client_with_token(UserFactory(username="mallory"))
    client.raise_request_exception = False

    response = client.post("/api/v1/uploads/", {"file": named_file(data, "r.tgz")}, format="multipart")

    assert response.status_code == 400, response.content[:300]
    assert Upload.objects.count() == IngestJob.objects.count() == 0
