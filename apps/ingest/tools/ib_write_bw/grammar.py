"""perftest's ``ib_write_bw`` (perftest 1.3.0 / ib_write_bw 2.6, perftest 4.x).

The result table's header names its columns, ``#bytes  #iterations  BW peak[U]  BW average[U]`` and,
from perftest 4.x, ``MsgRate[Mpps]``; the measurement is ``BW average`` of the result line. perftest's
``MB/sec`` is 2^20 bytes/s in every release (it divides by 0x100000): MB/s = x 1.048576; with
``--report_gbits`` the unit is ``Gb/sec`` (10^9 bits/s): MB/s = x 125. A sweep (``-a``) prints one
line per message size: the last (largest) is taken. The log does not say which end is the server,
so the figure is offered for both read and write and the manifest's row names the direction.
"""

from __future__ import annotations

import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import MIB, Figure, ToolReading, capture_lines, number, text_of

_HEADER = re.compile(r"^\s*#bytes\s+#iterations\s+BW peak\[[^\]]{1,20}\]\s+BW average\[(?P<unit>[^\]]{1,20})\]")
_COLUMN = re.compile(r"BW peak\[[^\]]*\]|BW average\[[^\]]*\]|\S+")
_ROW = re.compile(r"^\s*\d+\s+\d+\s")
_VERSION = re.compile(r"^\s*(?:Version|version)\s*:?\s*(?P<version>\d[\w.]*)")
# Later perftest releases spell the same 2^20 bytes/s "MiB/sec".
_TO_MB = {"MB/sec": MIB / 10**6, "MiB/sec": MIB / 10**6, "Gb/sec": 125.0}


def read_ib_write_bw(data: bytes, path: str) -> ToolReading:
    reading = ToolReading(tool="ib_write_bw", path=path)
    columns: list[str] | None = None
    unit = ""
    result: tuple[str, int] | None = None
    saw_test = False
    for line_number, line in capture_lines(text_of(data), path):
        if "RDMA_Write BW Test" in line:
            saw_test = True
        if not reading.version and (match := _VERSION.match(line)):
            reading.version = match["version"]
        if match := _HEADER.match(line):
            columns, unit = _COLUMN.findall(line), match["unit"]
            if unit not in _TO_MB:
                raise ParseError(path, line_number, f"ib_write_bw unit {unit!r} is not MB/sec, MiB/sec or Gb/sec")
            continue
        if columns is None or not _ROW.match(line):
            continue
        cells = line.split()
        if len(cells) != len(columns):
            raise ParseError(
                path, line_number, f"ib_write_bw result line has {len(cells)} columns, its header {len(columns)}"
            )
        result = (cells[columns.index(f"BW average[{unit}]")], line_number)
    if not saw_test and columns is None:
        raise ParseError(path, None, "not ib_write_bw output (no 'RDMA_Write BW Test' header)")
    if columns is None:
        raise ParseError(path, None, "no ib_write_bw result header (#bytes #iterations BW peak BW average)")
    if result is None:
        raise ParseError(path, None, "no ib_write_bw result line under the header (truncated?)")
    printed, line_number = result
    value = number(printed, path, line_number, "BW average") * _TO_MB[unit]
    for operation in ("read", "write"):
        reading.figures[operation] = Figure(operation, value, f"{printed} {unit}", line_number)
    return reading
