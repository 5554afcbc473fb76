"""Command lines are split into the words the shell (``shlex``) reads, quickly where they hold no shell syntax."""

import shlex
from pathlib import Path

import pytest

from apps.ingest.parsers.command_line import shell_split

DATA = Path(__file__).resolve().parents[2] / "data"


def shlex_words(text: str) -> list[str] | type[ValueError]:
    try:
        return shlex.split(text)
    except ValueError:
        return ValueError


def shell_split_words(text: str) -> list[str] | type[ValueError]:
    try:
        return shell_split(text)
    except ValueError:
        return ValueError


@pytest.mark.parametrize(
    "text",
    [
        "mdtest -n 1000 -u  -L",
        "ior\t-w -r\r\n-C",
        "",
        "   ",
        "lfs setstripe -c 4 '/scratch/my dir'",
        'echo "unbalanced',
        "a\\ b",
        "vertical\x0btab",
        "no-break\xa0space",
        "form\x0cfeed and\x1cseparator",
        "hash#inside #comment",
    ],
)
def test_it_splits_as_shlex_does(text):
    assert shell_split_words(text) == shlex_words(text)


def test_every_line_of_the_sample_data_splits_as_shlex_splits_it():
    lines = [
        line
        for path in sorted(DATA.rglob("*"))
        if path.is_file() and path.suffix not in {".gz", ".tgz", ".tar", ".zip", ".xz", ".bz2"}
        for line in path.read_bytes().decode("utf-8", errors="replace").splitlines()
    ]
    assert len(lines) > 10_000, "the sample data's lines"
    assert [line for line in lines if shell_split_words(line) != shlex_words(line)] == []
