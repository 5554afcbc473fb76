"""An IOR log as a tool reading: the one IOR grammar (``apps.ingest.tools.ior.grammar``), strict, and the
``Max(MiB)`` of its ``Summary of all tests`` rows."""

from __future__ import annotations

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import MIB, Figure, ToolReading
from apps.ingest.tools.ior.grammar import parse_ior_bytes


def read_ior(data: bytes, path: str) -> ToolReading:
    log = parse_ior_bytes(data, path, strict=True)
    reading = ToolReading(tool="ior", path=path, version=log.runs[0].version if log.runs else "")
    for test in log.tests:
        for row in test.summary:
            if row.operation not in ("write", "read"):
                continue
            maximum = row.max
            if maximum.value is None:
                raise ParseError(path, row.line, f"Max(MiB) of the {row.operation} summary row is {maximum.printed!r}")
            value = float(maximum.value) * MIB / 10**6
            current = reading.figures.get(row.operation)
            if current is None or value > current.value:
                reading.figures[row.operation] = Figure(row.operation, value, f"{maximum.printed} MiB/s", row.line)
    if not reading.figures:
        raise ParseError(path, None, "no 'Summary of all tests' row with Max(MiB) in this IOR log")
    return reading
