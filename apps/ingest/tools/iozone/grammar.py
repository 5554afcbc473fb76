"""IOzone throughput mode (``-t N``), 3.420 and 3.471.

The measurement is ``Children see throughput for N initial writers`` (write) and ``Children see
throughput for N readers`` (read): not ``Parent sees``, not the per-process min/max/avg lines, not the
``-R`` report block. IOzone's kilobyte is 1024 bytes whichever way it is spelled (``KB/sec`` in
3.420, ``kB/sec`` in 3.471), so MB/s = value x 1024 / 10^6. A ``-l/-u`` sweep prints the line once
per process count: the last (largest count) is taken.
"""

from __future__ import annotations

import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import NUMBER, Figure, ToolReading, capture_lines, number, text_of

_VERSION = re.compile(r"Version \$Revision:\s*(?P<version>[\d.]+)")
_CHILDREN = re.compile(
    rf"^\s*Children see throughput for\s+(?P<count>\d+)\s+(?P<what>[A-Za-z][A-Za-z -]*?)\s*=\s*"
    rf"(?P<value>{NUMBER})\s*(?P<unit>\S+)\s*$"
)
_OPERATIONS = {"initial writers": "write", "readers": "read"}
_KILOBYTE_UNITS = {"KB/sec", "kB/sec"}


def read_iozone(data: bytes, path: str) -> ToolReading:
    reading = ToolReading(tool="iozone", path=path)
    seen_header = False
    for line_number, line in capture_lines(text_of(data), path):
        if not reading.version and (match := _VERSION.search(line)):
            reading.version = match["version"]
        if "Iozone: Performance Test of File I/O" in line:
            seen_header = True
        match = _CHILDREN.match(line)
        if not match or (operation := _OPERATIONS.get(" ".join(match["what"].split()))) is None:
            continue
        if match["unit"] not in _KILOBYTE_UNITS:
            raise ParseError(
                path,
                line_number,
                f"IOzone unit {match['unit'][:20]!r} is not KB/sec or kB/sec (ops/sec output, -O, has no bandwidth)",
            )
        value = number(match["value"], path, line_number, "IOzone throughput")
        reading.figures[operation] = Figure(
            operation, value * 1024 / 10**6, f"{match['value']} {match['unit']}", line_number
        )
    if not seen_header and not reading.figures:
        raise ParseError(path, None, "not IOzone output (no 'Iozone: Performance Test of File I/O' header)")
    if not reading.figures:
        raise ParseError(
            path,
            None,
            "no 'Children see throughput for N initial writers / readers' line "
            "(not a throughput-mode run, or truncated)",
        )
    return reading
