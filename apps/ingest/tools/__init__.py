"""Benchmark tools, one folder each: ``apps/ingest/tools/<tool>/``.

A tool folder holds everything ioboard knows about one tool's output: its ``__init__.py`` says what it
reads and ends in ``TOOL = Tool(name=..., reads=..., operations=..., read=...)``; ``grammar.py`` is the
reader (plain Python, no Django; strict: a garbled or truncated log is a ``ParseError`` naming the file
and line; lines capped at ``base.MAX_LINE``; linear regexes). ``base.py`` holds what they share: the
``ToolReading`` of one log (one ``Figure`` per operation, in MB/s = 10^6 bytes/s or IOPS).

``TOOLS`` maps the name a stack manifest uses (its ``tool`` column) to the tool. Adding a tool: a new
folder with its ``TOOL``, one entry below, a sample in ``tests/data/tools/`` and its tests in
``tests/ingest/tools/``.
"""

from __future__ import annotations

from apps.ingest.parsers.records import ParseError
from apps.ingest.tools import fio, ib_write_bw, ior, iozone, lnet_selftest, obdfilter_survey, xdd
from apps.ingest.tools.base import Figure, Tool, ToolReading

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        xdd.TOOL,
        iozone.TOOL,
        fio.TOOL,
        ib_write_bw.TOOL,
        lnet_selftest.TOOL,
        obdfilter_survey.TOOL,
        ior.TOOL,
    )
}

__all__ = ["TOOLS", "Figure", "ParseError", "Tool", "ToolReading", "read_log"]


def read_log(tool: str, data: bytes, path: str) -> ToolReading:
    """Read one log with the named tool; an unknown tool is refused naming the file."""
    if tool not in TOOLS:
        raise ParseError(path, None, f"unknown tool {tool!r}; known: {', '.join(sorted(TOOLS))}")
    return TOOLS[tool].read(data, path)
