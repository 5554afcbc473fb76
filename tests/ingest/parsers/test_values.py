"""The value types the tool grammars share: a number as printed, a manifest's text and rows."""

from decimal import Decimal

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.values import PrintedNumber, csv_rows, manifest_text, printed_number, read_manifest_text


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        (" 1234.5678 ", PrintedNumber("1234.5678", Decimal("1234.5678"))),
        ("1.5e3", PrintedNumber("1.5e3", Decimal("1500"))),
        ("NA", PrintedNumber("NA", None)),
        ("-nan", PrintedNumber("-nan", None)),
        ("inf", PrintedNumber("inf", None)),
        ("12abc", PrintedNumber("12abc", None)),
    ],
)
def test_a_printed_cell_keeps_its_token_and_has_a_value_only_when_it_is_a_number(cell, expected):
    assert printed_number(cell) == expected


def test_a_manifest_loses_its_byte_order_mark_and_keeps_bad_bytes_as_replacements():
    assert manifest_text(b"\xef\xbb\xbflog,label\nx.out,caf\xe9\n") == "log,label\nx.out,caf\ufffd\n"


def test_manifest_rows_carry_the_line_they_end_on():
    assert list(csv_rows('log,label\n\n"a\nb.out",x\nc.out,y\n', "m.csv")) == [
        (1, ["log", "label"]),
        (2, []),
        (4, ["a\nb.out", "x"]),
        (5, ["c.out", "y"]),
    ]


def test_a_manifest_that_cannot_be_read_is_refused_naming_it(tmp_path):
    with pytest.raises(ParseError, match=r"^study/manifest.csv: cannot read the manifest: No such file"):
        read_manifest_text(tmp_path / "missing.csv", "study/manifest.csv")


@pytest.mark.parametrize("printed", ["1e999", "-1e400", "1" + "0" * 400])
def test_a_number_past_a_floats_range_has_no_value(printed):
    """What is stored is a float: a printed number that would become inf has no value, like inf itself."""
    assert printed_number(printed).value is None
