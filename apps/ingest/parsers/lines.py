"""The one line cap and the one line walk every grammar reads through.

The longest line in the real corpus (../shared/io500-corpus) has 62 KB (an mdtest rank list); a longer
one is an attack or corruption. Every reader takes its lines from ``numbered_lines``, ``capped_lines`` or
``capped``, so no pattern ever sees more than ``MAX_LINE_CHARS``: a strict reader refuses a longer line (a
``ParseError`` naming the file and line), a lenient one (the raw tool outputs inside IO500 result directories,
the scripts and inventories read for provenance) cuts it. Plain Python.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from apps.ingest.parsers.errors import ParseError

MAX_LINE_CHARS = 256 * 1024


def numbered_lines(lines: Iterable[str], path: str = "", *, strict: bool, first: int = 1) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` for each of ``lines`` (streamed: ``text.split("\\n")``, a file's lines), the
    first numbered ``first``; a line over ``MAX_LINE_CHARS`` is refused naming ``path`` and its number
    (``strict``) or cut to the cap (lenient, where ``path`` is not needed)."""
    for number, line in enumerate(lines, start=first):
        yield number, (line if len(line) <= MAX_LINE_CHARS else _over_cap(line, path, number, strict=strict))


def capped_lines(lines: Iterable[str], path: str = "", *, strict: bool) -> Iterator[str]:
    """The lines of ``numbered_lines`` without their numbers, for readers that count lines themselves."""
    for number, line in enumerate(lines, start=1):
        yield line if len(line) <= MAX_LINE_CHARS else _over_cap(line, path, number, strict=strict)


def capped(lines: list[str], path: str = "", *, strict: bool) -> list[str]:
    """The lines of ``capped_lines`` as a list, for readers that hold a file's lines: ``lines`` itself when none
    is over the cap (every file of the real corpus), found by one pass over their lengths, not a walk."""
    if max(map(len, lines), default=0) <= MAX_LINE_CHARS:
        return lines
    return list(capped_lines(lines, path, strict=strict))


def _over_cap(line: str, path: str, number: int, *, strict: bool) -> str:
    if strict:
        raise ParseError(
            path, number, f"line of {len(line)} characters is over the limit of {MAX_LINE_CHARS} characters"
        )
    return line[:MAX_LINE_CHARS]
