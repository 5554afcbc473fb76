"""Helpers shared by the era-specific record builders: the files of a result set, numbers, timestamps."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from apps.ingest.tools.io500.grammar.files import list_files, relative_posix

# A printed number: C %f / awk %g / exponent forms, and inf/nan accepted defensively.
NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf(?:inity)?|nan)"
RESULT_DIR_TIMESTAMP = re.compile(r"(\d{4})\.(\d{2})\.(\d{2})-(\d{2})\.(\d{2})\.(\d{2})")
TIMESTAMP_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%a %b %d %H:%M:%S %Y",  # IOR "Began : Mon Nov 11 04:23:34 2019"
    "%m/%d/%Y %H:%M:%S",  # mdtest "-- started at 11/11/2019 04:37:18 --"
    "%Y-%m-%d",
)


@dataclass
class ResultSetFiles:
    """The files directly inside one result directory (junk excluded), addressed by name."""

    root: Path
    folder: Path
    rel: str
    files: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def scan(cls, root: Path, folder: Path) -> ResultSetFiles:
        return cls(root, folder, relative_posix(folder, root), {p.name: p for p in list_files(folder)})

    def rel_of(self, path: Path) -> str:
        return relative_posix(path, self.root)

    def get(self, *names: str) -> Path | None:
        """The first of ``names`` present (exact name first, then case-insensitive)."""
        for name in names:
            if name in self.files:
                return self.files[name]
        lowered = {existing.lower(): path for existing, path in self.files.items()}
        for name in names:
            if name.lower() in lowered:
                return lowered[name.lower()]
        return None

    def rel_of_present(self, name: str) -> str:
        """The relative path of a file the caller already found with ``get``."""
        path = self.get(name)
        if path is None:
            raise LookupError(f"{self.rel} holds no {name}")
        return self.rel_of(path)


def printed_score_fact(bw: str, md: str, total: str, source_file: str, source_line: int | None) -> dict:
    """``RunEvidence.reported_score_printed``: the reported score exactly as printed, with its place."""
    return {"bw": bw, "md": md, "total": total, "source_file": source_file, "source_line": source_line}


def to_float(text: str | None) -> float | None:
    """A printed number (``%f``, ``%g``, ``inf``/``nan`` accepted) or None."""
    if text is None:
        return None
    try:
        return float(text.strip())
    except ValueError:
        return None


def to_int(text: str | None) -> int | None:
    """A plain non-negative integer (ASCII digits only, surrounding blanks allowed) or None."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*([0-9]{1,18})\s*", text)
    return int(match.group(1)) if match else None


def parse_timestamp(text: str | None) -> datetime | None:
    """A naive local datetime from any timestamp spelling the result files use, else None.

    The files carry no time zone (the benchmark wrote the node's local time), so none is invented.
    """
    if not text:
        return None
    compact = " ".join(text.split())
    match = RESULT_DIR_TIMESTAMP.search(compact)
    if match:
        try:
            return datetime.strptime(match.group(0), "%Y.%m.%d-%H.%M.%S")
        except ValueError:
            return None
    for pattern in TIMESTAMP_FORMATS:
        try:
            return datetime.strptime(compact, pattern)
        except ValueError:
            continue
    return None


def relative_difference(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    scale = max(abs(a), abs(b))
    if scale == 0:
        return 0.0
    difference = abs(a - b) / scale
    return None if math.isnan(difference) else difference
