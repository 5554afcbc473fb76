"""Benchmark tools, one folder each: ``apps/ingest/tools/<tool>/``, and ``TOOLS``, the one registry.

A tool folder holds everything ioboard knows about one tool: its ``__init__.py`` says what it reads and
ends in ``TOOL = Tool(...)``; ``grammar.py`` (or the ``grammar/`` package) is the reader (plain Python,
no Django; strict: a garbled or truncated log is a ``ParseError`` naming the file and line; lines capped;
linear regexes); a manifest reader beside it when the tool has one; ``pipeline.py`` stores what was
read (Django). ``base.py`` holds what they share: the ``Tool`` entry and the ``ToolReading`` of one log.

One registry, because one tool can be both things a tool can be: a stack reader (``Tool.read``: the
name a stack manifest's ``tool`` column uses) and an upload kind (``Tool.ingest``: ``Upload.kind``,
``manage.py ingest --kind``, the upload API and its schema, with the kind's own options, metadata
fields and bare-log marker). IOR is both. An upload kind's pipeline is Django, so it is registered
beside this plain registry, in ``apps.ingest.pipelines`` (``PIPELINES``). Everything that chooses by
kind or tool loops over ``TOOLS`` through the functions below, reading it at call time (never a copy
made at import), so a tool registered later (a test's stub) is offered everywhere.

Adding a tool: a new folder with its ``TOOL``, one entry below (and, for an upload kind, its ``PIPELINE``'s
entry in ``apps.ingest.pipelines``), its tests in ``tests/ingest/tools/<tool>/`` (a sample in
``tests/data/``), its docs.
"""

from __future__ import annotations

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools import fio, ib_write_bw, io500, ior, iozone, lnet_selftest, mdtest, obdfilter_survey, stack, xdd
from apps.ingest.tools.base import Figure, Tool, ToolReading

TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in (
        io500.TOOL,
        mdtest.TOOL,
        ior.TOOL,
        stack.TOOL,
        xdd.TOOL,
        iozone.TOOL,
        fio.TOOL,
        ib_write_bw.TOOL,
        lnet_selftest.TOOL,
        obdfilter_survey.TOOL,
    )
}
# The kind an upload or an ``ingest`` without ``--kind`` is.
DEFAULT_KIND = "io500"

__all__ = [
    "DEFAULT_KIND",
    "TOOLS",
    "Figure",
    "ParseError",
    "Tool",
    "ToolReading",
    "read_log",
    "stack_readers",
    "upload_kind_choices",
    "upload_kinds",
]


def stack_readers() -> dict[str, Tool]:
    """The tools a stack manifest may name: those that read one log into a ``ToolReading``."""
    return {name: tool for name, tool in TOOLS.items() if tool.read is not None}


def upload_kinds() -> dict[str, Tool]:
    """The tools that are upload kinds (``Upload.kind``, ``ingest --kind``), in registry order."""
    return {name: tool for name, tool in TOOLS.items() if tool.ingest is not None}


def upload_kind_choices() -> list[tuple[str, str]]:
    """``(kind, label)`` for every upload kind: the API's choices and the schema's enum."""
    return [(name, ingest.label) for name, tool in TOOLS.items() if (ingest := tool.ingest) is not None]


def read_log(tool: str, data: bytes, path: str) -> ToolReading:
    """Read one log with the named tool; an unknown tool, or one that reads no single log, is refused naming
    the file."""
    readers = stack_readers()
    if tool not in readers:
        raise ParseError(path, None, f"unknown tool {tool!r}; known: {', '.join(sorted(readers))}")
    return readers[tool].read_one(data, path)
