"""The value types every tool grammar shares: a number as the tool printed it, and a manifest's text and rows.

One definition each, so the mdtest, IOR and stack readers agree on what a number is (``nan`` and ``inf``
have no value; the printed token is kept beside the ``Decimal``) and on how a manifest CSV is read (a
byte-order mark dropped, undecodable bytes replaced, an unreadable file or a row csv cannot read refused
as a ``ParseError`` naming the file and line). IOR task reordering is a fact with one definition too:
``TaskReordering`` in ``apps.results.judgements.anomalies.facts`` (rules read it), filled only by the IOR grammar.
Plain Python: no Django.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from apps.ingest.parsers.errors import ParseError

# A printed decimal number, exponent allowed (IOR prints %e in places; mdtest never does).
NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
# Cells the tools print where a value could not be computed (a zero-length phase, a skipped stonewall).
NOT_A_NUMBER = frozenset({"na", "nan", "-nan", "+nan", "inf", "-inf", "+inf"})
_NUMBER = re.compile(NUMBER)
# Values are stored as floats: a printed number past this magnitude would be stored as inf.
_FLOAT_MAX = Decimal(sys.float_info.max)


@dataclass(frozen=True)
class PrintedNumber:
    """A number as the tool printed it; ``value`` is None for NA, nan and inf cells."""

    printed: str
    value: Decimal | None


def printed_number(text: str) -> PrintedNumber:
    """A printed cell as ``PrintedNumber``; NA, nan, inf, a number past a float's range (stored, it would be inf)
    and anything that is not a number have no value."""
    token = text.strip()
    if token.lower() in NOT_A_NUMBER or not _NUMBER.fullmatch(token):
        return PrintedNumber(token, None)
    try:
        value = Decimal(token)
    except InvalidOperation:
        return PrintedNumber(token, None)
    return PrintedNumber(token, value if abs(value) <= _FLOAT_MAX else None)


def require_finite(value: float | None, path: str, line: int | None, what: str) -> None:
    """Refuse a value a grammar read as inf or nan (printed so, or past a float's range), naming the file and
    line: stored, it would be ranked and charted, and no JSON answer could hold it."""
    if value is not None and not math.isfinite(value):
        raise ParseError(path, line, f"{what} is not a finite number")


def manifest_text(data: bytes) -> str:
    """A manifest's bytes as text: a byte-order mark (spreadsheets write one) dropped, bad bytes replaced."""
    return data.decode("utf-8-sig", errors="replace")


def read_manifest_text(path: str | Path, name: str) -> str:
    """The text of the manifest file at ``path``; one that cannot be read is refused naming it ``name``."""
    try:
        return manifest_text(Path(path).read_bytes())
    except OSError as exc:
        raise ParseError(name, None, f"cannot read the manifest: {exc.strerror or exc}") from exc


def csv_rows(text: str, name: str) -> Iterator[tuple[int, list[str]]]:
    """A manifest's rows with the line each ends on; a row csv cannot read (an unclosed quote, a field over
    csv's limit) is refused."""
    reader = csv.reader(io.StringIO(text, newline=""))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise ParseError(name, reader.line_num, f"not a CSV row: {error}") from None
        yield reader.line_num, row
