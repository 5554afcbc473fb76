"""What every tool shares: the registry entry (``Tool``, with its optional reader and upload kind), the
reading (one figure per operation), a capture's lines and numbers.

A tool reader turns the raw bytes of one capture (prompts, warnings and carriage returns included)
into a ``ToolReading``: the tool's own aggregate for each operation the log measures, already in the
unit ioboard stores (MB/s = 10^6 bytes/s for bandwidth, IOPS for random operations), with the printed
figure and the line it came from. A log that is not the tool's output, or is truncated before its
aggregate, raises ``ParseError`` naming the file and line. Plain Python: no Django.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lines import numbered_lines
from apps.ingest.parsers.values import NUMBER
from apps.results.judgements.stacks.semantics import BANDWIDTH_OPERATIONS, IOPS_OPERATIONS, OPERATIONS, unit_of

MB = 10**6
MIB = 2**20
__all__ = [
    "BANDWIDTH_OPERATIONS",
    "IOPS_OPERATIONS",
    "MB",
    "MIB",
    "NUMBER",
    "OPERATIONS",
    "Figure",
    "Ingest",
    "Option",
    "Tool",
    "ToolReading",
    "UploadField",
    "capture_lines",
    "number",
    "text_of",
    "unit_of",
]


@dataclass(frozen=True)
class Figure:
    """One operation's measurement: ``value`` in MB/s (10^6 bytes/s) or IOPS, the figure as printed
    (with its unit) and the line it was read from (the first line, for a figure summed over lines)."""

    operation: str
    value: float
    printed: str
    line: int | None

    @property
    def unit(self) -> str:
        return unit_of(self.operation)


@dataclass
class ToolReading:
    """What a reader found in one log: the tool's version (as printed) and one figure per operation."""

    tool: str
    path: str
    version: str = ""
    figures: dict[str, Figure] = field(default_factory=dict)

    def figure(self, operation: str) -> Figure:
        """The figure for ``operation``; a log without it is refused, naming the file."""
        try:
            return self.figures[operation]
        except KeyError:
            found = ", ".join(self.figures) or "none"
            raise ParseError(
                self.path, None, f"this {self.tool} log has no {operation} measurement (it measures: {found})"
            ) from None


@dataclass(frozen=True)
class Option:
    """One ``manage.py ingest`` option a tool reads (``--series NAME``), as argparse takes it.

    Two tools may declare the same flag (``--manifest``) with the same ``type``: the command offers it
    once, its help naming each tool's use."""

    flag: str
    help: str
    type: Callable[[str], Any] = str
    metavar: str | None = None

    @property
    def dest(self) -> str:
        """The key the pipeline reads in the command's options (``--storage-vendor`` -> ``storage_vendor``)."""
        return self.flag.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class UploadField:
    """One metadata field an upload of this kind takes (API and form), kept in ``Upload.declared_metadata``.

    ``value`` says what it holds, so the API builds the field without this package knowing DRF:
    ``text`` (at most 255 characters), ``slug`` (at most 100) or ``fraction`` (0.001 to 1)."""

    name: str
    help: str
    value: Literal["text", "slug", "fraction"] = "text"


@dataclass(frozen=True)
class Ingest:
    """What makes a tool an upload kind: how its files are stored and what an ingest of them takes.

    The pipeline that stores them is not here: pipelines are Django and this registry is plain Python (the
    stack reader and the import-linter contracts import it without Django), so each kind's ``PIPELINE`` is
    registered in ``apps.ingest.pipelines``. ``log_marker`` is the lower-case bytes a bare (not archived) log
    of this kind must contain; None: archives only."""

    label: str  # as people name the kind: "IOR", "bottom-up campaign"
    stores: str  # what an ingest makes, for help texts: "runs", "a DNE scaling series"
    log_marker: bytes | None = None
    options: tuple[Option, ...] = ()
    upload_fields: tuple[UploadField, ...] = ()


@dataclass(frozen=True)
class Tool:
    """One benchmark tool as the registry knows it: its name, what it reads, and what it can do.

    Two optional capabilities, one registry: ``read`` reads one log into a ``ToolReading`` (a stack
    manifest's ``tool`` column names it), and ``ingest`` makes it an upload kind (``Upload.kind``,
    ``ingest --kind``). IOR has both; fio only the first; IO500, mdtest and stack only the second."""

    name: str
    reads: str  # one sentence: the output it reads and the figure it takes
    operations: tuple[str, ...] = ()
    read: Callable[[bytes, str], ToolReading] | None = None
    ingest: Ingest | None = None

    def read_one(self, data: bytes, path: str) -> ToolReading:
        """Read one log with ``read``; a tool that reads no single log is refused, naming the file."""
        if self.read is None:
            raise ParseError(path, None, f"{self.name} reads no single log")
        return self.read(data, path)


def text_of(data: bytes) -> str:
    """The capture as text: undecodable bytes and NULs become U+FFFD (never an exception)."""
    return data.decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def capture_lines(text: str, path: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a capture, strict (``apps.ingest.parsers.lines``: a line over the cap is
    refused), with carriage returns removed (xdd 6.5 starts result lines with one, and ``\\r\\n`` captures
    end with one)."""
    for number, line in numbered_lines(text.split("\n"), path, strict=True):
        yield number, line.replace("\r", "")


def number(token: str, path: str, line: int, what: str) -> float:
    """A printed number as float; anything else (``nan``, ``inf``, garbage) is refused."""
    if not re.fullmatch(NUMBER, token):
        raise ParseError(path, line, f"{what} {token[:40]!r} is not a number")
    value = float(token)
    if value != value or value in (float("inf"), float("-inf")):
        raise ParseError(path, line, f"{what} {token[:40]!r} is not a finite number")
    if value < 0:
        raise ParseError(path, line, f"{what} {token[:40]!r} is negative")
    return value
