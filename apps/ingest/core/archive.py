"""Safe extraction of uploaded result archives (.tar, .tar.gz/.tgz, .tar.bz2, .tar.xz, .zip).

Uploads come from strangers, so the archive is treated as hostile: the format is decided by
magic bytes (a ``.tgz`` suffix proves nothing), every entry name is checked before anything is
written, links and device files are refused outright (a symlink followed by a file "through"
it is the classic way out of the target directory).

The work an archive can cost is bounded before it is spent (OWASP's file-upload advice):
``inspect_archive`` reads only the archive's directory (a zip's central directory, a tar's headers)
and refuses an entry count, a declared size per file or in all, or a compression ratio over the
limits, writing nothing; the web request runs it and nothing more. ``extract_archive`` (in the
worker) runs the same inspection first, then writes entry by entry, counting the bytes actually
written as well, since a header can lie. Decompressed bytes are counted as they are read
(``_BoundedReader``), so no header, padding or trailing data can make the reader decompress more
than the limits allow. Nothing is ever extracted with ``extractall`` or a tar filter: every entry is
checked and written here (PEP 706's filters have had bypasses).

On any refusal the partially extracted tree is removed, so a caller never sees half an upload.
"""

from __future__ import annotations

import bz2
import errno
import gzip
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
from typing import BinaryIO, NamedTuple

# Real IO500 submissions are small: the 144 of ../shared/io500-corpus hold at most 118 files, 1.3 MB
# in all, 0.6 MB in one file, and compress at most 83:1 (zlib -9, one file). The defaults leave a
# wide margin; the settings (IOBOARD_ARCHIVE_MAX_*) say the same (docs/deployment.md).
DEFAULT_MAX_ENTRIES = 20_000
DEFAULT_MAX_EXPANDED_BYTES = 64 * 1024**2
DEFAULT_MAX_FILE_BYTES = 16 * 1024**2
DEFAULT_MAX_RATIO = 200
# Below this many expanded bytes a ratio proves nothing (a small file of one repeated line compresses 1000:1).
RATIO_FLOOR_BYTES = 1024 * 1024
# A tar stream holds a 512-byte header and up to 511 bytes of padding per entry, and a closing record.
TAR_OVERHEAD_PER_ENTRY = 1024
TAR_CLOSING_BYTES = 20 * 1024
COPY_CHUNK_BYTES = 1024 * 1024
# A zip's bytes that no entry accounts for (prepended data, gaps between entries) are stored with the upload but
# counted by no other limit. Headers, data descriptors, the zip64 records and the archive comment (at most 64 KiB)
# are accounted for; a local header's extra field may differ from the central one's. Past this margin the zip
# is refused: a real archive tool leaves no such bytes.
ZIP_UNACCOUNTED_MARGIN_BYTES = 128 * 1024
# Fixed sizes of the zip records (APPNOTE 4.3): local header, central directory header, end of central directory,
# zip64 end record and its locator, and the largest data descriptor (zip64, with its signature).
ZIP_LOCAL_HEADER_BYTES = 30
ZIP_CENTRAL_HEADER_BYTES = 46
ZIP_END_RECORDS_BYTES = 22 + 56 + 20
ZIP_DATA_DESCRIPTOR_BYTES = 24

_DECOMPRESSORS = {"tar": None, "tar.gz": gzip.GzipFile, "tar.bz2": bz2.BZ2File, "tar.xz": lzma.LZMAFile}
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:([\\/]|$)")
_SWAP_FILE = re.compile(r"^\.?.*\.sw[a-p]$|~$|^\.#|^#.*#$")


class ArchiveError(Exception):
    """The upload is not an archive we accept; the message names the entry and the problem."""


class ScratchSpaceFull(Exception):
    """This host's scratch space (the temporary directory) has no room left: a fault of the host, not of the upload.

    Not an ArchiveError, so no pipeline reports it as the upload's problem: the ingest task gives the job back and
    tries it again once there may be room (apps.ingest.tasks)."""


#: The errors of a write that found its file system full (or the account's quota spent).
NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


@contextmanager
def scratch_space() -> Iterator[None]:
    """Writes to this host's scratch space: an OSError saying it is full becomes ScratchSpaceFull."""
    try:
        yield
    except OSError as error:
        if error.errno in NO_SPACE:
            raise ScratchSpaceFull(f"the scratch space of this worker is full ({error.strerror})") from error
        raise


class ArchiveLimits(NamedTuple):
    """What one archive may cost: entries, expanded bytes in all and per file, and compression ratio."""

    max_entries: int = DEFAULT_MAX_ENTRIES
    max_expanded_bytes: int = DEFAULT_MAX_EXPANDED_BYTES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_ratio: float = DEFAULT_MAX_RATIO


class ArchiveSummary(NamedTuple):
    """What an archive's directory declares: its format, entries, regular files and their total size."""

    format: str
    entries: int
    files: int
    declared_bytes: int


def detect_format(path: Path, label: str | None = None) -> str:
    """Return "zip", "tar", "tar.gz", "tar.bz2" or "tar.xz" from the file's first bytes.

    Compressed streams are only recognised by their container magic here; whether a gzip
    stream really holds a tar is found out while reading it. Messages name the file ``label``
    (default: its name).
    """
    label = label or path.name
    try:
        with open(path, "rb") as handle:
            head = handle.read(512)
    except OSError as error:
        raise ArchiveError(f"{label}: cannot be read ({error.strerror or error})") from error
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
    raise ArchiveError(f"{label}: not a tar, tar.gz, tar.bz2, tar.xz or zip archive (unknown magic bytes)")


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


class _Budget:
    """The limits of one archive, counted entry by entry from what its directory declares."""

    def __init__(self, limits: ArchiveLimits):
        self.limits = limits
        self.entries = 0
        self.files = 0
        self.declared_bytes = 0

    def count_entry(self, name: str) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise ArchiveError(f"{name!r}: archive has more than {self.limits.max_entries} entries")

    def count_file(self, name: str, declared_size: int, compressed_size: int | None = None) -> None:
        """A regular file of ``declared_size`` bytes (``compressed_size`` when the directory gives it)."""
        self.files += 1
        if declared_size > self.limits.max_file_bytes:
            raise ArchiveError(
                f"{name!r}: declared size of {declared_size} bytes exceeds the per-file limit of "
                f"{self.limits.max_file_bytes} bytes"
            )
        self.declared_bytes += declared_size
        if self.declared_bytes > self.limits.max_expanded_bytes:
            raise ArchiveError(f"{name!r}: expanded size exceeds the limit of {self.limits.max_expanded_bytes} bytes")
        if compressed_size is not None:
            check_ratio(name, declared_size, compressed_size, self.limits.max_ratio)

    def stream_bytes(self) -> int:
        """The most a tar stream within the limits can decompress to: data, headers, padding, closing record."""
        return (
            self.limits.max_expanded_bytes + TAR_OVERHEAD_PER_ENTRY * (self.limits.max_entries + 1) + TAR_CLOSING_BYTES
        )


def check_ratio(name: str, expanded: int, compressed: int, max_ratio: float) -> None:
    """Refuse ``expanded`` bytes from ``compressed`` ones at a ratio over ``max_ratio`` (a bomb's signature)."""
    if expanded > RATIO_FLOOR_BYTES and expanded > max_ratio * max(compressed, 1):
        raise ArchiveError(
            f"{name!r}: compression ratio of {expanded // max(compressed, 1)}:1 exceeds the limit of {max_ratio:g}:1"
        )


class _BoundedReader:
    """The decompressed bytes of a tar stream, refused past ``limit`` bytes or past the ratio limit.

    tarfile reads headers and skips data through this, so a header that lies, a huge pax header or
    gigabytes of padding cost no more decompression than the limits allow.
    """

    def __init__(self, name: str, raw: BinaryIO, decompressed: BinaryIO, limit: int, max_ratio: float):
        self.name = name
        self.raw = raw
        self.decompressed = decompressed
        self.limit = limit
        self.max_ratio = max_ratio
        self.total = 0

    def read(self, size: int = -1) -> bytes:
        data = self.decompressed.read(COPY_CHUNK_BYTES if size is None or size < 0 else size)
        self.total += len(data)
        if self.total > self.limit:
            raise ArchiveError(f"{self.name}: expanded size exceeds the limit of {self.limit} bytes")
        if self.decompressed is not self.raw:
            check_ratio(self.name, self.total, self.raw.tell(), self.max_ratio)
        return data


class _Extraction:
    """Writing one archive's entries: the resolved root, names already written, bytes actually written."""

    def __init__(self, dest: Path, limits: ArchiveLimits):
        self.root = dest.resolve()
        self.limits = limits
        self.expanded_bytes = 0
        self.written: set[PurePosixPath] = set()

    def target(self, name: str, relative: PurePosixPath) -> Path:
        """The on-disk path for an entry, proven to lie inside the root after resolution."""
        target = (self.root / relative).resolve()
        if target != self.root and not target.is_relative_to(self.root):
            raise ArchiveError(f"{name!r}: would be written outside the destination")
        return target

    def make_directory(self, name: str, relative: PurePosixPath) -> None:
        target = self.target(name, relative)
        try:
            with scratch_space():
                target.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ArchiveError(f"{name!r}: cannot create directory ({error.strerror})") from error

    def write_file(self, name: str, relative: PurePosixPath, source: BinaryIO, mtime: float | None) -> None:
        if relative in self.written:
            raise ArchiveError(f"{name!r}: duplicate entry")
        target = self.target(name, relative)
        try:
            with scratch_space():
                self.write_entry(name, target, source)
        except OSError as error:
            raise ArchiveError(f"{name!r}: cannot write file ({error.strerror or error})") from error
        self.written.add(relative)
        if mtime is not None:
            with suppress(OverflowError, OSError, ValueError):
                os.utime(target, (mtime, mtime))

    def write_entry(self, name: str, target: Path, source: BinaryIO) -> None:
        """One entry's bytes, counted as they are written (its header's size may lie)."""
        file_bytes = 0
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as sink:
            while chunk := source.read(COPY_CHUNK_BYTES):
                file_bytes += len(chunk)
                self.expanded_bytes += len(chunk)
                if file_bytes > self.limits.max_file_bytes:
                    raise ArchiveError(
                        f"{name!r}: size exceeds the per-file limit of {self.limits.max_file_bytes} bytes"
                    )
                if self.expanded_bytes > self.limits.max_expanded_bytes:
                    raise ArchiveError(
                        f"{name!r}: expanded size exceeds the limit of {self.limits.max_expanded_bytes} bytes"
                    )
                sink.write(chunk)


def inspect_archive(src: Path, limits: ArchiveLimits | None = None, label: str | None = None) -> ArchiveSummary:
    """Check an archive from its directory alone, writing nothing; raise ArchiveError naming the entry
    (or the archive, as ``label``: default its file name).

    A zip's central directory gives every entry's name, kind, declared and compressed size, so a zip
    bomb is refused before a byte is decompressed; a zip that passes has its data read through (never
    written) to find damaged streams. A tar has its headers between the data, so its stream is
    decompressed (never written) through ``_BoundedReader``, each header checked as it comes and
    refused before the data it declares is read.
    """
    src = Path(src)
    label = label or src.name
    archive_format = detect_format(src, label)
    budget = _Budget(limits or ArchiveLimits())
    if archive_format == "zip":
        _walk_zip(src, label, budget, None)
    else:
        _walk_tar(src, label, archive_format, budget, None)
    return ArchiveSummary(archive_format, budget.entries, budget.files, budget.declared_bytes)


def extract_archive(
    src: Path,
    dest: Path,
    *,
    max_entries: int,
    max_expanded_bytes: int,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_ratio: float = DEFAULT_MAX_RATIO,
) -> Path:
    """Extract ``src`` into ``dest`` (created if missing, must be empty) and return ``dest``.

    The archive's directory is inspected in full first (``inspect_archive``), so a refused archive
    writes nothing; then each entry is written. Raises ArchiveError for any refused entry, cap overrun
    or unreadable archive; ``dest`` is then emptied again so nothing from the refused upload survives.
    """
    src, dest = Path(src), Path(dest)
    limits = ArchiveLimits(max_entries, max_expanded_bytes, max_file_bytes, max_ratio)
    archive_format = inspect_archive(src, limits).format
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise ArchiveError(f"{dest}: destination directory is not empty")
    extraction = _Extraction(dest, limits)
    try:
        if archive_format == "zip":
            _walk_zip(src, src.name, _Budget(limits), extraction)
        else:
            _walk_tar(src, src.name, archive_format, _Budget(limits), extraction)
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


def _walk_tar(src: Path, label: str, archive_format: str, budget: _Budget, extraction: _Extraction | None) -> None:
    """Stream the tar member by member, checking each header before its data is read (and written,
    with an ``extraction``): nothing is trusted before its header has been checked."""
    decompressor = _DECOMPRESSORS[archive_format]
    try:
        with open(src, "rb") as raw:
            decompressed = (
                decompressor(fileobj=raw)
                if decompressor is gzip.GzipFile
                else (decompressor(raw) if decompressor else raw)
            )
            stream = _BoundedReader(label, raw, decompressed, budget.stream_bytes(), budget.limits.max_ratio)
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for member in archive:
                    _tar_member(archive, member, budget, extraction)
    except ArchiveError:
        raise
    except TypeError as error:
        # tarfile's gzip stream reader calls ord() on an empty read when the gzip header is cut short.
        raise ArchiveError(f"{label}: truncated compressed stream ({error})") from error
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as error:
        raise ArchiveError(f"{label}: unreadable tar archive ({error})") from error


def _tar_member(
    archive: tarfile.TarFile, member: tarfile.TarInfo, budget: _Budget, extraction: _Extraction | None
) -> None:
    name = member.name
    budget.count_entry(name)
    if member.issym() or member.islnk():
        kind = "symbolic link" if member.issym() else "hard link"
        raise ArchiveError(f"{name!r}: {kind} to {member.linkname!r} refused")
    if member.ischr() or member.isblk() or member.isfifo():
        raise ArchiveError(f"{name!r}: device or FIFO entry refused")
    if not (member.isreg() or member.isdir()):
        raise ArchiveError(f"{name!r}: unsupported entry type {member.type!r}")
    relative = safe_relative_path(name)
    if member.isreg():
        budget.count_file(name, member.size)
    if extraction is None or is_junk_entry(name):
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


def _walk_zip(src: Path, label: str, budget: _Budget, extraction: _Extraction | None) -> None:
    """Check every entry of the central directory (and write it, with an ``extraction``).

    Without an extraction, once the whole directory has passed, each file's data is read through and
    thrown away, so a damaged stream (bad deflate data, a wrong CRC) is refused like a bad header;
    the directory's checks bound what that reading can cost.
    """
    try:
        with zipfile.ZipFile(src) as archive:
            for info in archive.infolist():
                _zip_entry(archive, info, budget, extraction)
            _check_zip_accounted(archive, src.stat().st_size, label)
            if extraction is None:
                for info in archive.infolist():
                    if _zip_entry_kind(info) == "file":
                        with archive.open(info) as source:
                            while source.read(COPY_CHUNK_BYTES):
                                pass
    except ArchiveError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        OSError,
        ValueError,
        NotImplementedError,
        zlib.error,
        lzma.LZMAError,
    ) as error:
        raise ArchiveError(f"{label}: unreadable zip archive ({error})") from error


def _check_zip_accounted(archive: zipfile.ZipFile, size: int, label: str) -> None:
    """Refuse a zip whose file holds more than ``ZIP_UNACCOUNTED_MARGIN_BYTES`` beyond its entries' compressed
    data and the records around them (bytes hidden before, between or after the entries)."""
    accounted = ZIP_END_RECORDS_BYTES + len(archive.comment)
    for info in archive.infolist():
        name = len(info.filename.encode())
        accounted += info.compress_size + ZIP_LOCAL_HEADER_BYTES + name + len(info.extra)
        accounted += ZIP_CENTRAL_HEADER_BYTES + name + len(info.extra) + len(info.comment)
        if info.flag_bits & 0x08:
            accounted += ZIP_DATA_DESCRIPTOR_BYTES
    unaccounted = size - accounted
    if unaccounted > ZIP_UNACCOUNTED_MARGIN_BYTES:
        raise ArchiveError(
            f"{label}: {unaccounted} bytes outside its entries (over the margin of {ZIP_UNACCOUNTED_MARGIN_BYTES} "
            "bytes): re-create the zip with a standard tool"
        )


def _zip_entry(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _Budget, extraction: _Extraction | None
) -> None:
    name = info.filename
    budget.count_entry(name)
    kind = _zip_entry_kind(info)
    if kind not in ("file", "dir"):
        raise ArchiveError(f"{name!r}: {kind} entry refused")
    if info.flag_bits & 0x1:
        raise ArchiveError(f"{name!r}: encrypted entry refused")
    relative = safe_relative_path(name)
    if kind == "file":
        budget.count_file(name, info.file_size, info.compress_size)
    if extraction is None or is_junk_entry(name):
        return
    if kind == "dir":
        extraction.make_directory(name, relative)
        return
    with archive.open(info) as source:
        extraction.write_file(name, relative, source, _zip_mtime(info))


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
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    max_ratio: float = DEFAULT_MAX_RATIO,
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
    with scratch_space():
        scratch_directory = tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX)
    with scratch_directory as scratch:
        yield extract_archive(
            path,
            Path(scratch),
            max_entries=max_entries,
            max_expanded_bytes=max_expanded_bytes,
            max_file_bytes=max_file_bytes,
            max_ratio=max_ratio,
        )


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
