"""A 1 MiB tmpfs to fill (rig.filesystems), skipped with the reason where mounting is not permitted."""

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from rig.filesystems import MountRefused
from rig.filesystems import tiny_filesystem as mounted_tmpfs


@contextlib.contextmanager
def tiny_filesystem(directory: Path) -> Iterator[Path]:
    try:
        with mounted_tmpfs(directory) as mounted:
            yield mounted
    except MountRefused as refused:
        pytest.skip(f"no full scratch disk to test on: {refused}")
