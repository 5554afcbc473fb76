"""From parsed IOR logs (and a manifest) to the points of a parameter study. Plain Python.

A point is one operation of one IOR test. Its axes come from two places:

* the log itself: ``api`` (the library's usual name), ``nodes``, ``tasks``, and the transfer size,
  block size and access mode IOR printed (a ``-f`` script may vary them between tests);
* the manifest CSV, if any: a ``log`` column (the log's path, relative to the manifest's folder)
  and any other columns, each of which becomes an axis (``filesystem``, ``config``, ``stripe_count``...).
  A manifest column wins over a log axis of the same name.

Manifest axes come first in the axis order, then the log's: the analysis treats a later axis that is
a function of the earlier ones as derived (``label`` of ``config``, ``tasks`` of ``nodes``).
Values are kept as printed; only whole numbers in the manifest become integers, so that node counts
and stripe counts sort and compare as numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.values import csv_rows, read_manifest_text
from apps.ingest.tools.ior.grammar import IorLog, IorTest

MANIFEST_NAME = "manifest.csv"
LOG_COLUMN = "log"
_INTEGER = re.compile(r"[-+]?\d{1,18}")
_AXIS_NAME = re.compile(r"^[A-Za-z_][\w .-]{0,63}$")


@dataclass
class StudyManifest:
    path: Path
    columns: list[str]
    entries: dict[Path, dict[str, str | int]] = field(default_factory=dict)  # resolved log path -> axes

    def axes_for(self, log_path: Path) -> dict[str, str | int] | None:
        return self.entries.get(log_path.resolve())


@dataclass
class StudyPointRecord:
    """The fields of a ``StudyPoint`` (without the study)."""

    axes: dict[str, str | int]
    operation: str
    max: str
    min: str
    mean: str
    stddev: str
    iterations: list[str]
    source: str
    source_line: int | None
    test_index: int
    log_hash: str


def read_study_manifest(path: str | Path, display_name: str | None = None) -> StudyManifest:
    """A manifest CSV: a ``log`` column and any axis columns. Errors name the file and line."""
    path = Path(path)
    name = display_name or str(path)
    rows = list(csv_rows(read_manifest_text(path, name), name))
    if not rows:
        raise ParseError(name, 1, "empty manifest: a header with a 'log' column is expected")
    header = [column.strip() for column in rows[0][1]]
    if LOG_COLUMN not in header:
        raise ParseError(name, 1, f"the manifest header has no '{LOG_COLUMN}' column: {', '.join(header)}")
    for column in header:
        if column != LOG_COLUMN and not _AXIS_NAME.match(column):
            raise ParseError(name, 1, f"column {column!r} is not a usable axis name")
    if len(set(header)) != len(header):
        raise ParseError(name, 1, "the manifest header repeats a column")
    columns = [column for column in header if column != LOG_COLUMN]
    manifest = StudyManifest(path=path, columns=columns)
    for number, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise ParseError(name, number, f"expected {len(header)} cells, read {len(row)}")
        cells = dict(zip(header, (cell.strip() for cell in row), strict=True))
        log = cells.pop(LOG_COLUMN)
        if not log:
            raise ParseError(name, number, "empty 'log' cell")
        resolved = (path.parent / log).resolve()
        if resolved in manifest.entries:
            raise ParseError(name, number, f"log {log!r} is listed twice")
        manifest.entries[resolved] = {column: _axis_value(value) for column, value in cells.items()}
    return manifest


def study_point_records(log: IorLog, source: str, manifest_axes: dict[str, str | int] | None) -> list[StudyPointRecord]:
    """One record per operation of every test of the log."""
    records = []
    for index, test in enumerate(log.tests):
        axes = dict(manifest_axes or {})
        for name, value in log_axes(test).items():
            axes.setdefault(name, value)
        for operation in test.operations():
            row = test.summary_row(operation)
            iterations = [result.cells.get("bw(MiB/s)", "NA") for result in test.iterations(operation)]
            records.append(
                StudyPointRecord(
                    axes=axes,
                    operation=operation,
                    max=row.max.printed if row else "",
                    min=row.min.printed if row else "",
                    mean=row.mean.printed if row else "",
                    stddev=row.stddev.printed if row else "",
                    iterations=iterations,
                    source=source,
                    source_line=row.line if row and log.format == "text" else None,
                    test_index=index,
                    log_hash=log.content_hash,
                )
            )
    return records


def log_axes(test: IorTest) -> dict[str, str | int]:
    """The axes a log gives by itself."""
    axes: dict[str, str | int] = {}
    if test.api:
        axes["api"] = test.api
    if test.nodes is not None:
        axes["nodes"] = test.nodes
    if test.tasks is not None:
        axes["tasks"] = test.tasks
    for name in ("access", "xfersize", "blocksize"):
        if test.options.get(name):
            axes[name] = test.options[name]
    return axes


def _axis_value(text: str) -> str | int:
    return int(text) if _INTEGER.fullmatch(text) else text
