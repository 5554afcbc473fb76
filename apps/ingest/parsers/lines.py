"""The one line cap and the one line walk every grammar reads through.

The longest line in the real corpus (../shared/io500-corpus) has 62 KB (an mdtest rank list); a longer
one is an attack or corruption. Every reader takes its lines from ``numbered_lines``, so no pattern ever
sees more than ``MAX_LINE_CHARS``: a strict reader refuses a longer line (a ``ParseError`` naming the
file and line), a lenient one (the raw tool outputs inside IO500 result directories, the scripts and
inventories read for provenance) cuts it. Plain Python.
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
        if len(line) > MAX_LINE_CHARS:
            if strict:
                raise ParseError(
                    path, number, f"line of {len(line)} characters is over the limit of {MAX_LINE_CHARS} characters"
                )
            line = line[:MAX_LINE_CHARS]
        yield number, line


def capped_lines(lines: Iterable[str], path: str = "", *, strict: bool) -> Iterator[str]:
    """The lines of ``numbered_lines`` without their numbers, for readers that count lines themselves."""
    return (line for _, line in numbered_lines(lines, path, strict=strict))
