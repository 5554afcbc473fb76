"""lustre-iokit's ``obdfilter-survey`` summary.

One summary line per objects x threads point: ``ost N sz S K rsz R obj O thr T write W [min, max]
rewrite W [min, max] read W [min, max]``, each figure the total MiB/s of the point (total KB / 1024 /
elapsed s) and the bracketed per-OST minimum and maximum. The measurement is the highest ``write`` /
``read`` figure over the lines (not ``rewrite``, not the brackets); a point that failed prints a word
(``SHORT``, ``ENOSPC``, ...) instead of a figure and is passed over. MB/s = x 1.048576.
"""

from __future__ import annotations

import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import MIB, NUMBER, Figure, ToolReading, capture_lines, number, text_of

_POINT = re.compile(r"^\s*ost\s+\d+\s+sz\s+\d+K\s+rsz\s+\d+\s+obj\s+\d+\s+thr\s+\d+\s+(?P<figures>.*)$")
_FIGURE = re.compile(r"\b(?P<test>write|rewrite|read)\s+(?P<value>[^\s\[]+)\s*(?:\[[^\]]{0,80}\])?")


def read_obdfilter_survey(data: bytes, path: str) -> ToolReading:
    reading = ToolReading(tool="obdfilter-survey", path=path)
    best: dict[str, tuple[float, str, int]] = {}
    points = 0
    for line_number, line in capture_lines(text_of(data), path):
        if not (match := _POINT.match(line)):
            continue
        points += 1
        for figure in _FIGURE.finditer(match["figures"]):
            operation, printed = figure["test"], figure["value"]
            if operation == "rewrite" or not re.fullmatch(NUMBER, printed):
                continue
            value = number(printed, path, line_number, f"obdfilter-survey {operation}")
            if operation not in best or value > best[operation][0]:
                best[operation] = (value, printed, line_number)
    if not points:
        raise ParseError(path, None, "no obdfilter-survey summary line (ost N sz ... obj ... thr ...)")
    for operation, (value, printed, line_number) in best.items():
        reading.figures[operation] = Figure(operation, value * MIB / 10**6, f"{printed} MiB/s", line_number)
    if not reading.figures:
        raise ParseError(path, None, "every obdfilter-survey point failed: no write or read figure")
    return reading
