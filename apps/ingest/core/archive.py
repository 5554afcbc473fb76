"""Safe extraction of uploaded result archives (.tar, .tar.gz/.tgz, .tar.bz2, .tar.xz, .zip).

Uploads come from strangers, so the archive is treated as hostile: the format is decided by
magic bytes (a ``.tgz`` suffix proves nothing), every entry name is checked before anything is
written, links and device files are refused outright (a symlink followed by a file "through"
it is the classic way out of the target directory), and the expanded size is counted from the
bytes actually written rather than from headers, which a bomb can set to anything.

On any refusal the partially extracted tree is removed, so a caller never sees half an upload.
"""

from __future__ import annotations

import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import time
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path, PurePosixPath
from typing import BinaryIO

DEFAULT_MAX_ENTRIES = 100_000
DEFAULT_MAX_EXPANDED_BYTES = 8 * 1024**3
COPY_CHUNK_BYTES = 1024 * 1024

_TAR_STREAM_MODES = {"tar": "r|", "tar.gz": "r|gz", "tar.bz2": "r|bz2", "tar.xz": "r|xz"}
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:([\\/]|$)")
_SWAP_FILE = re.compile(r"^\.?.*\.sw[a-p]$|~$|^\.#|^#.*#$")


class ArchiveError(Exception):
    """The upload is not an archive we accept; the message names the entry and the problem."""


def detect_format(path: Path) -> str:
    """Return "zip", "tar", "tar.gz", "tar.bz2" or "tar.xz" from the file's first bytes.

    Compressed streams are only recognised by their container magic here; whether a gzip
    stream really holds a tar is found out while reading it.
    """
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError as error:
        raise ArchiveError(f"{path.name}: cannot be read ({error.strerror or error})") from error
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if head.startswith(b"\x1f\x8b"):
        return "tar.gz"
    if head.startswith(b"BZh"):
        return "tar.bz2"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "tar.xz"
    if _looks_like_tar_header(head):
        return "tar"
    raise ArchiveError(f"{path.name}: not a tar, tar.gz, tar.bz2, tar.xz or zip archive (unknown magic bytes)")


def is_archive(path: Path) -> bool:
    """A regular file in one of the archive formats ``detect_format`` knows (anything else is a plain file)."""
    if not path.is_file():
        return False
    try:
        detect_format(path)
    except ArchiveError:
        return False
    return True


def _looks_like_tar_header(block: bytes) -> bool:
    """A POSIX/GNU header says "ustar" at offset 257; a v7 header only has a valid checksum."""
    if len(block) < 512:
        return False
    if block[257:262] == b"ustar":
        return True
    try:
        recorded = int(block[148:156].strip(b" \x00") or b"-1", 8)
    except ValueError:
        return False
    unsigned = sum(block[:148]) + 8 * 32 + sum(block[156:512])
    return recorded == unsigned and block[0] != 0


def is_junk_entry(name: str) -> bool:
    """macOS resource forks, Finder files and editor swap/backup files carry no results."""
    parts = [part for part in re.split(r"[\\/]", name) if part]
    if not parts:
        return False
    if "__MACOSX" in parts:
        return True
    base = parts[-1]
    return base.startswith("._") or base == ".DS_Store" or bool(_SWAP_FILE.search(base))


def safe_relative_path(name: str) -> PurePosixPath:
    """Validate an entry name and return it as a relative path, or raise ArchiveError.

    Backslashes count as separators for the checks, so ``..\\..\\x`` is refused like ``../../x``.
    A drive letter is only refused at the start: the corpus has a directory literally named ``G:``.
    """
    if not name or "\x00" in name:
        raise ArchiveError(f"{name!r}: empty or NUL-containing entry name")
    if name.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(name):
        raise ArchiveError(f"{name!r}: absolute path")
    parts = [part for part in re.split(r"[\\/]", name) if part not in ("", ".")]
    if ".." in parts:
        raise ArchiveError(f"{name!r}: path contains a '..' component")
    return PurePosixPath(*parts)


class _Extraction:
    """Bookkeeping for one extraction: caps, the resolved root, names already written."""

    def __init__(self, dest: Path, max_entries: int, max_expanded_bytes: int):
        self.root = dest.resolve()
        self.max_entries = max_entries
        self.max_expanded_bytes = max_expanded_bytes
        self.entries = 0
        self.expanded_bytes = 0
        self.written: set[PurePosixPath] = set()

    def count_entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.max_entries:
            raise ArchiveError(f"{name!r}: archive has more than {self.max_entries} entries")

    def count_bytes(self, name: str, amount: int) -> None:
        self.expanded_bytes += amount
        if self.expanded_bytes > self.max_expanded_bytes:
            raise ArchiveError(f"{name!r}: expanded size exceeds the limit of {self.max_expanded_bytes} bytes")

    def target(self, name: str, relative: PurePosixPath) -> Path:
        """The on-disk path for an entry, proven to lie inside the root after resolution."""
        target = (self.root / relative).resolve()
        if target != self.root and not target.is_relative_to(self.root):
            raise ArchiveError(f"{name!r}: would be written outside the destination")
        return target

    def make_directory(self, name: str, relative: PurePosixPath) -> None:
        target = self.target(name, relative)
        try:
            target.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArchiveError(f"{name!r}: cannot create directory ({error.strerror})") from error

    def write_file(self, name: str, relative: PurePosixPath, source: BinaryIO, mtime: float | None) -> None:
        if relative in self.written:
            raise ArchiveError(f"{name!r}: duplicate entry")
        target = self.target(name, relative)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "xb") as sink:
                while chunk := source.read(COPY_CHUNK_BYTES):
                    self.count_bytes(name, len(chunk))
                    sink.write(chunk)
        except OSError as error:
            raise ArchiveError(f"{name!r}: cannot write file ({error.strerror or error})") from error
        self.written.add(relative)
        if mtime is not None:
            with suppress(OverflowError, OSError, ValueError):
                os.utime(target, (mtime, mtime))


def extract_archive(src: Path, dest: Path, *, max_entries: int, max_expanded_bytes: int) -> Path:
    """Extract ``src`` into ``dest`` (created if missing, must be empty) and return ``dest``.

    Raises ArchiveError for any refused entry, cap overrun or unreadable archive; ``dest`` is
    then emptied again so nothing from the refused upload survives.
    """
    src, dest = Path(src), Path(dest)
    archive_format = detect_format(src)
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise ArchiveError(f"{dest}: destination directory is not empty")
    extraction = _Extraction(dest, max_entries, max_expanded_bytes)
    try:
        if archive_format == "zip":
            _extract_zip(src, extraction)
        else:
            _extract_tar(src, _TAR_STREAM_MODES[archive_format], extraction)
    except BaseException:
        _empty_directory(dest)
        raise
    return dest


def _empty_directory(directory: Path) -> None:
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()


def _extract_tar(src: Path, mode: str, extraction: _Extraction) -> None:
    """Stream the tar member by member: nothing is trusted before its header has been checked."""
    try:
        with open(src, "rb") as raw, tarfile.open(fileobj=raw, mode=mode) as archive:
            for member in archive:
                _extract_tar_member(archive, member, extraction)
    except ArchiveError:
        raise
    except TypeError as error:
        # tarfile's gzip stream reader calls ord() on an empty read when the gzip header is cut short.
        raise ArchiveError(f"{src.name}: truncated compressed stream ({error})") from error
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as error:
        raise ArchiveError(f"{src.name}: unreadable tar archive ({error})") from error


def _extract_tar_member(archive: tarfile.TarFile, member: tarfile.TarInfo, extraction: _Extraction) -> None:
    name = member.name
    extraction.count_entry(name)
    if member.issym() or member.islnk():
        kind = "symbolic link" if member.issym() else "hard link"
        raise ArchiveError(f"{name!r}: {kind} to {member.linkname!r} refused")
    if member.ischr() or member.isblk() or member.isfifo():
        raise ArchiveError(f"{name!r}: device or FIFO entry refused")
    if not (member.isreg() or member.isdir()):
        raise ArchiveError(f"{name!r}: unsupported entry type {member.type!r}")
    relative = safe_relative_path(name)
    if is_junk_entry(name):
        extraction.count_bytes(name, member.size if member.isreg() else 0)
        return
    if member.isdir():
        extraction.make_directory(name, relative)
        return
    source = archive.extractfile(member)
    if source is None:
        raise ArchiveError(f"{name!r}: file data cannot be read")
    extraction.write_file(name, relative, source, member.mtime)


def _zip_entry_kind(info: zipfile.ZipInfo) -> str:
    """Classify an entry as file, dir or a refused kind, from its Unix mode bits when present."""
    mode = info.external_attr >> 16
    if mode and info.create_system == 3:
        if stat.S_ISLNK(mode):
            return "symbolic link"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            return "device, FIFO or socket"
        if stat.S_ISDIR(mode):
            return "dir"
    return "dir" if info.is_dir() else "file"


def _extract_zip(src: Path, extraction: _Extraction) -> None:
    try:
        with zipfile.ZipFile(src) as archive:
            for info in archive.infolist():
                _extract_zip_entry(archive, info, extraction)
    except ArchiveError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError, zlib.error,
            lzma.LZMAError) as error:
        raise ArchiveError(f"{src.name}: unreadable zip archive ({error})") from error


def _extract_zip_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, extraction: _Extraction) -> None:
    name = info.filename
    extraction.count_entry(name)
    kind = _zip_entry_kind(info)
    if kind not in ("file", "dir"):
        raise ArchiveError(f"{name!r}: {kind} entry refused")
    if info.flag_bits & 0x1:
        raise ArchiveError(f"{name!r}: encrypted entry refused")
    relative = safe_relative_path(name)
    if is_junk_entry(name):
        return
    if kind == "dir":
        extraction.make_directory(name, relative)
        return
    mtime = _zip_mtime(info)
    with archive.open(info) as source:
        extraction.write_file(name, relative, source, mtime)


def _zip_mtime(info: zipfile.ZipInfo) -> float | None:
    """Zip stores local wall-clock time without a zone; keep it as local time, like unzip does."""
    try:
        return time.mktime((*info.date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return None


@contextmanager
def open_input(
    path: Path,
    *,
    max_entries: int = DEFAULT_MAX_ENTRIES,
    max_expanded_bytes: int = DEFAULT_MAX_EXPANDED_BYTES,
) -> Iterator[Path]:
    """Yield a directory to ingest: ``path`` itself if it is one, else its safely extracted copy.

    The temporary extraction is removed when the ``with`` block ends, whatever happens inside.
    """
    path = Path(path)
    if path.is_dir():
        yield path
        return
    if not path.is_file():
        raise ArchiveError(f"{path}: no such file or directory")
    with tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX) as scratch:
        yield extract_archive(path, Path(scratch), max_entries=max_entries, max_expanded_bytes=max_expanded_bytes)


SCRATCH_PREFIX = "ioboard-upload-"


def sweep_orphaned_scratch(older_than_seconds: float, scratch_root: Path | None = None) -> list[Path]:
    """Remove extraction directories left behind by a worker that was killed mid-ingest.

    ``open_input`` removes its directory however the ingest ends, except when the process dies
    (SIGKILL, OOM); the redelivered task extracts afresh, so a directory older than any task may
    live is an orphan.
    """
    root = Path(scratch_root or tempfile.gettempdir())
    cutoff = time.time() - older_than_seconds
    removed = []
    for candidate in root.glob(f"{SCRATCH_PREFIX}*"):
        with suppress(OSError):
            if candidate.is_dir() and not candidate.is_symlink() and candidate.stat().st_mtime < cutoff:
                shutil.rmtree(candidate)
                removed.append(candidate)
    return removed
