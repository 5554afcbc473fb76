"""A scratch directory on a file system of its own (a small tmpfs) that a fault scenario can fill to the last byte.

Used by tests/faults/test_scratch_disk_full.py and `python -m bench fault_scenarios --scenario scratch`: a worker
whose TMPDIR is such a directory meets a full scratch disk for real (ENOSPC from the kernel), not a stand-in.
Mounting needs root; where it is refused, `tiny_filesystem` raises MountRefused saying why.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

TINY_BYTES = 1024 * 1024


class MountRefused(RuntimeError):
    """`mount -t tmpfs` was refused (not root, or no mounts allowed here)."""


@contextlib.contextmanager
def tiny_filesystem(directory: Path, size: int = TINY_BYTES) -> Iterator[Path]:
    """`directory` as a fresh tmpfs of `size` bytes, unmounted at the end."""
    directory.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=1777", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode:
        raise MountRefused(f"cannot mount a {size}-byte tmpfs: {mounted.stderr.strip() or 'not root'}")
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
    if os.statvfs(directory).f_bavail:
        raise RuntimeError(f"{directory} still has room after filling it")
    return filler
