"""Reading submission files safely: any bytes, any line length, CRLF, no exceptions but ParseError.

Result trees come from many sites and tools: CRLF line ends, non-UTF-8 bytes, mdtest ``Nodemap``
lines of tens of thousands of characters, macOS AppleDouble ``._*`` twins, editor swap files and
archives packed next to the folders they duplicate. Everything here decodes with
``errors="replace"`` and streams lines, so no file is ever held longer than needed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lines import capped

ARCHIVE_SUFFIXES = (
    ".zip",
    ".tar",
    ".tgz",
    ".tar.gz",
    ".gz",
    ".tbz2",
    ".tar.bz2",
    ".bz2",
    ".txz",
    ".tar.xz",
    ".xz",
    ".7z",
    ".rar",
    ".zst",
    ".tar.zst",
)
JUNK_NAMES = {".DS_Store", "Thumbs.db", "desktop.ini", ".gitkeep"}
JUNK_SUFFIXES = (".swp", ".swo", ".swx", "~")
# Files larger than this are not opened just to see what they are (job stdouts, io-500-gen output).
MAX_SNIFF_BYTES = 4 * 1024 * 1024
# Bytes read and decoded at a time by ``text_lines`` (rounded up to the end of a line).
READ_BLOCK_BYTES = 1024 * 1024


def is_junk_name(name: str) -> bool:
    """Files that are never part of a result set: AppleDouble twins, swap files, archives, OS litter."""
    lowered = name.lower()
    return (
        name.startswith("._")
        or name in JUNK_NAMES
        or lowered.endswith(JUNK_SUFFIXES)
        or lowered.endswith(ARCHIVE_SUFFIXES)
    )


def is_skipped_dir_name(name: str) -> bool:
    """Folders never walked: AppleDouble resource forks, VCS metadata, macOS archive litter."""
    return name.startswith("._") or name in {".git", ".svn", ".hg", "__MACOSX"}


def storable(text: str) -> str:
    """Text that PostgreSQL and JSON can always hold: lone surrogates (undecodable file-name bytes,
    ``\\ud800`` JSON escapes) and NUL characters become U+FFFD."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def relative_posix(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` as a storable posix string ("." for the root itself)."""
    try:
        text = path.relative_to(root).as_posix()
    except ValueError:
        text = path.as_posix()
    return storable(text) or "."


def read_bytes(path: Path, rel: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise ParseError(rel, None, f"cannot read file: {exc.strerror or exc}") from exc


def iter_lines(path: Path, rel: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without line end) for every line, streamed (``text_lines``)."""
    return enumerate(text_lines(path, rel), start=1)


def text_lines(path: Path, rel: str) -> Iterator[str]:
    """The text of every line without its line end, streamed a block of whole lines at a time.

    A lone ``\\r`` inside a line is kept; ``\\r\\n`` and ``\\n`` both end a line. NUL bytes become
    U+FFFD (PostgreSQL text cannot hold them). A line over ``MAX_LINE_CHARS`` is cut (``capped``, lenient).
    A block ends after a ``\\n`` byte, which is never part of a UTF-8 sequence, so decoding a block at once
    gives the text decoding each line would: one decode and one split per block, not a call per line.
    """
    try:
        with path.open("rb") as handle:
            while block := handle.read(READ_BLOCK_BYTES):
                if not block.endswith(b"\n"):
                    block += handle.readline()
                text = block.decode("utf-8", errors="replace").replace("\x00", "\ufffd")
                lines = text.split("\n")
                if not lines[-1]:  # the block ended with its last line's "\n"
                    lines.pop()
                if "\r" in text:
                    lines = [line.rstrip("\r") for line in lines]
                yield from capped(lines, rel, strict=False)
    except OSError as exc:
        raise ParseError(rel, None, f"cannot read file: {exc.strerror or exc}") from exc


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def looks_binary(sample: bytes) -> bool:
    """A NUL byte in the first block is the usual sign of a binary file."""
    return b"\x00" in sample[:8192]


def list_files(folder: Path) -> list[Path]:
    """The regular, non-junk files directly inside ``folder``, sorted by name.

    ``os.scandir``: the directory entries say which are files, so only a symbolic link is stat-ed (every run
    lists its folder and each folder above it).
    """
    names = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if is_junk_name(entry.name):
                    continue
                try:
                    if entry.is_file():
                        names.append(entry.name)
                except OSError:
                    continue
    except OSError:
        return []
    return [folder / name for name in sorted(names)]
