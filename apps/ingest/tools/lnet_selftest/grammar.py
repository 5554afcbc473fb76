"""``lst stat`` of an lnet_selftest session (Lustre 2.4 console ``MB/s``, later consoles ``MiB/s``).

``lst stat`` prints one set of blocks per interval; the measurement is the bandwidth ``Avg`` of the
server group's ``[LNet Bandwidth of <group>]`` block, ``[R]`` (received) for a ``brw write`` test (the
clients write to the servers) and ``[W]`` (sent) for a ``brw read`` test, averaged over every interval
in the log. The server group is the ``--to`` group of ``lst add_test`` (``servers`` when the log has
no such line); the direction is the test's ``brw read``/``brw write``, or, when the log shows no
``add_test``, the larger of the two means (servers receive in a write test). The ``clients`` blocks
and the ``[LNet Rates of ...]`` blocks are not the measurement. Both ``MB/s`` and ``MiB/s`` mean
2^20 bytes/s (``lst.c`` divides by 1024 x 1024): MB/s = x 1.048576.
"""

from __future__ import annotations

import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import MIB, NUMBER, Figure, ToolReading, capture_lines, number, text_of

_ADD_TEST = re.compile(r"\blst\s+add_test\b(?P<arguments>.*?)\bbrw\s+(?P<direction>read|write)\b")
_TO_GROUP = re.compile(r"--to\s+(?P<group>\S+)")
_BLOCK = re.compile(r"^\s*\[LNet (?P<kind>Rates|Bandwidth) of (?P<group>[^\]]{1,200})\]\s*$")
_FIGURE = re.compile(rf"^\s*\[(?P<side>[RW])\]\s+Avg:\s*(?P<value>{NUMBER})\s*(?P<unit>\S+)")
_UNITS = {"MB/s", "MiB/s"}
_FEATURES = re.compile(r"\bFEATURES:\s*(?P<features>\d+)")


def read_lst_stat(data: bytes, path: str) -> ToolReading:
    reading = ToolReading(tool="lnet_selftest", path=path)
    directions: set[str] = set()
    server_group = ""
    block: tuple[str, str] | None = None
    samples: dict[str, dict[str, list[tuple[float, int, str]]]] = {}
    for line_number, line in capture_lines(text_of(data), path):
        if match := _ADD_TEST.search(line):
            directions.add(match["direction"])
            if to := _TO_GROUP.search(match["arguments"]):
                server_group = server_group or to["group"]
            continue
        if not reading.version and (match := _FEATURES.search(line)):
            reading.version = f"features {match['features']}"
        if match := _BLOCK.match(line):
            block = (match["kind"], match["group"])
            continue
        if block is None or block[0] != "Bandwidth" or not (match := _FIGURE.match(line)):
            continue
        if match["unit"] not in _UNITS:
            raise ParseError(path, line_number, f"lst stat unit {match['unit'][:20]!r} is neither MB/s nor MiB/s")
        value = number(match["value"], path, line_number, "lst stat Avg")
        samples.setdefault(block[1], {}).setdefault(match["side"], []).append((value, line_number, match["unit"]))
    group = server_group or "servers"
    if group not in samples:
        raise ParseError(path, None, f"no '[LNet Bandwidth of {group}]' block in this lst stat log")
    sides = samples[group]
    means = {side: sum(value for value, _, _ in rows) / len(rows) for side, rows in sides.items()}
    if not directions:
        directions = {"write" if means.get("R", 0) >= means.get("W", 0) else "read"}
    for direction in sorted(directions):
        side = "R" if direction == "write" else "W"
        if side not in sides:
            raise ParseError(path, None, f"no [{side}] line in the '{group}' bandwidth blocks")
        rows = sides[side]
        reading.figures[direction] = Figure(
            direction,
            means[side] * MIB / 10**6,
            f"mean of {len(rows)} intervals [{side}] Avg {means[side]:.2f} {rows[0][2]}",
            rows[0][1],
        )
    return reading
