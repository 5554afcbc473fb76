"""A scratch directory on a file system of its own, 1 MiB of tmpfs, that a test can fill to the last byte."""

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

TMPFS_BYTES = 1024 * 1024


@contextlib.contextmanager
def tiny_filesystem(directory: Path) -> Iterator[Path]:
    """`directory` as a fresh 1 MiB tmpfs (root only: skipped, saying why, where mounting is not permitted)."""
    directory.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={TMPFS_BYTES},mode=1777", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a 1 MiB tmpfs for a full scratch disk: {mounted.stderr.strip() or 'not root'}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", "--lazy", str(directory)], capture_output=True, check=False)


def fill(directory: Path) -> Path:
    """Write a file into `directory` until its file system has no byte left; the file, to remove to make room."""
    filler = directory / "filler"
    with open(filler, "wb", buffering=0) as sink, contextlib.suppress(OSError):
        while True:
            sink.write(b"\0" * 64 * 1024)
    assert os.statvfs(directory).f_bavail == 0
    return filler
