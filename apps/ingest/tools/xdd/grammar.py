"""xdd 6.5 and xdd 7 results: the combined line, else the sum of the per-target averages.

xdd 6.5 prints a one-line header (``T  Q  Bytes  Ops  Time  Rate  IOPS ...``) and result lines that
start with a carriage return: ``TARGET   PASS0001``, ``TARGET   Average`` (with ``-verbose``) and
``Combined``. xdd 7 prints a two-line header (``What  Pass  Target ... Bandwidth  IOPS ...`` and a
``UNITS>>`` line) and ``TARGET_PASS``, ``TARGET_AVERAGE`` and ``COMBINED`` lines. Both compute the
rate as bytes / elapsed / 10^6 (MB/s). Columns are found by their header names, never by position.

The operation: ``OP_Type`` of the line (``read``/``write``); it is random (``randread``, figure
``IOPS``) when the target's ``Seek pattern`` is ``random`` (or the command line says
``-seek random``), sequential (``read``, figure ``Rate``/``Bandwidth``) otherwise. A log that prints
no seek pattern at all offers both readings and the manifest chooses.
"""

from __future__ import annotations

import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import Figure, ToolReading, capture_lines, number, text_of

_VERSION = re.compile(r"XDD version\s+(?:xdd\s+)?(?P<version>\S+)")
_HEADER_65 = re.compile(r"^\s*T\s+Q\s+Bytes\s+Ops\s+Time\s+Rate\s+IOPS\b")
_HEADER_7 = re.compile(r"^\s*What\s+Pass\s+Target\b.*\bBandwidth\b")
_ROW_65 = re.compile(r"^\s*(?P<label>TARGET\s+(?:PASS\d+|Average)|Combined)\s+(?P<cells>\S(?:.*\S)?)\s*$")
_ROW_7 = re.compile(r"^\s*(?P<label>TARGET_PASS|TARGET_AVERAGE|COMBINED)\s+(?P<cells>\S(?:.*\S)?)\s*$")
_SEEK_PATTERN = re.compile(r"^\s*Seek pattern,\s*(?P<pattern>\w+)")
_SEEK_OPTION = re.compile(r"(?:^|\s)-seek\s+(?P<pattern>random|sequential)\b")
_RATE_COLUMNS = ("Rate", "Bandwidth")
_OP_COLUMNS = ("OP_Type", "Op_Type")


def read_xdd(data: bytes, path: str) -> ToolReading:
    reading = ToolReading(tool="xdd", path=path)
    columns: list[str] | None = None
    row_pattern = None
    combined: dict[str, tuple[dict[str, str], int]] = {}
    averages: dict[str, list[tuple[dict[str, str], int]]] = {}
    patterns: set[str] = set()
    for line_number, line in capture_lines(text_of(data), path):
        if not reading.version and (match := _VERSION.search(line)):
            reading.version = match["version"]
        if match := _SEEK_PATTERN.match(line):
            patterns.add(match["pattern"].lower())
        elif match := _SEEK_OPTION.search(line):
            patterns.add(match["pattern"])
        if _HEADER_65.match(line):
            columns, row_pattern = line.split(), _ROW_65
            continue
        if _HEADER_7.match(line):
            columns, row_pattern = line.split()[1:], _ROW_7
            continue
        if row_pattern is None or columns is None or not (match := row_pattern.match(line)):
            continue
        cells = match["cells"].split()
        if len(cells) != len(columns):
            raise ParseError(path, line_number, f"xdd result line has {len(cells)} columns, its header {len(columns)}")
        row = dict(zip(columns, cells, strict=True))
        operation = next((row[name] for name in _OP_COLUMNS if name in row), "").lower()
        if operation not in ("read", "write"):
            raise ParseError(path, line_number, f"xdd operation {operation[:20]!r} is neither read nor write")
        label = " ".join(match["label"].split()).upper().replace(" ", "_")
        if label == "COMBINED":
            if operation in combined:
                raise ParseError(path, line_number, f"a second combined {operation} line")
            combined[operation] = (row, line_number)
        elif label in ("TARGET_AVERAGE",):
            averages.setdefault(operation, []).append((row, line_number))
    if columns is None:
        raise ParseError(path, None, "no xdd results header (T Q Bytes ... Rate IOPS, or What Pass Target ...)")
    random_kinds = _kinds(patterns)
    for operation in ("read", "write"):
        if operation in combined:
            rows = [combined[operation]]
        elif operation in averages:
            rows = averages[operation]
        else:
            continue
        for kind in random_kinds:
            name, column = (f"rand{operation}", "IOPS") if kind == "random" else (operation, _rate_column(columns))
            if column not in columns:
                raise ParseError(path, rows[0][1], f"no {column} column in the xdd header")
            values = [number(row[column], path, line, f"xdd {column}") for row, line in rows]
            printed = " + ".join(row[column] for row, _ in rows)
            reading.figures[name] = Figure(
                name, sum(values), f"{printed} {'IOPS' if column == 'IOPS' else 'MB/s'}", rows[0][1]
            )
    if not reading.figures:
        raise ParseError(path, None, "no xdd Combined / COMBINED line and no TARGET Average / TARGET_AVERAGE lines")
    return reading


def _rate_column(columns: list[str]) -> str:
    return next((name for name in _RATE_COLUMNS if name in columns), _RATE_COLUMNS[0])


def _kinds(patterns: set[str]) -> tuple[str, ...]:
    if not patterns:
        return ("sequential", "random")
    return ("random",) if "random" in patterns else ("sequential",)
