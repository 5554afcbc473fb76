"""Every real mdtest log in ../shared parses, and every SUMMARY row keeps its four numbers as printed.

The expected rows come from an independent, deliberately simple reading of the raw text (the
recipe of docs/io500-formats.md section 5), not from the parser under test.
"""

import re
from decimal import Decimal
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.grammar import parse_mdtest_file
from tests.conftest import shared_files, shared_path

ROW = re.compile(
    r"^\s+(?:Directory|File|Tree) (?:creation|stat|read|rename|removal|create \(stonewall\))\s*:?"
    r"(?:(?:\s+\S+){3})?\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$"
)
SUMMARY = re.compile(r"^SUMMARY")

pytestmark = pytest.mark.corpus


def printed_rows(path: Path) -> list[tuple[str, str, str, str]]:
    """The last four tokens of every row that follows a SUMMARY header, in file order."""
    found, in_table = [], False
    for line in path.read_text(errors="replace").split("\n"):
        if SUMMARY.match(line):
            in_table = True
        elif in_table and (match := ROW.match(line)):
            found.append(match.groups())
        elif in_table and line.strip() and not line.lstrip().startswith(("Operation", "---")):
            in_table = False
    return found


def parsed_rows(path: Path) -> list[tuple[str, str, str, str]]:
    log = parse_mdtest_file(path)
    return [
        (row.max.printed, row.min.printed, row.mean.printed, row.stddev.printed)
        for launch in log.launches
        for block in launch.blocks
        for table in block.tables
        for row in table.rows
    ]


REAL_LOGS = [path for path in shared_files("mdtest-logs", "*.txt") if path.name != "SOURCES.txt"]


def test_the_shared_logs_are_there():
    shared_path("mdtest-logs")
    assert len(REAL_LOGS) >= 7


def test_the_shared_campaign_sample_is_there():
    shared_path("dne-campaign-sample")
    assert len(shared_files("dne-campaign-sample", "mdtest.out")) >= 40


@pytest.mark.parametrize("path", REAL_LOGS, ids=lambda path: path.name[:60])
def test_every_summary_row_is_stored_exactly_as_printed(path):
    expected = printed_rows(path)
    assert expected
    parsed = parsed_rows(path)
    assert parsed == expected
    for printed in parsed:
        for token in printed:
            if token != "NA":
                assert str(Decimal(token)) == token


@pytest.mark.parametrize("path", shared_files("dne-campaign-sample", "mdtest.out"), ids=lambda path: path.parent.name)
def test_every_campaign_log_parses_with_its_iterations(path):
    log = parse_mdtest_file(path)
    (block,) = log.launches[0].blocks
    assert parsed_rows(path) == printed_rows(path)
    assert {len(values) for values in block.iteration_values.values()} == {block.iterations}


def test_every_mdtest_output_of_the_io500_corpus_parses():
    paths = [path for path in shared_files("io500-corpus", "*.txt") if b"was launched with" in path.read_bytes()]
    if not paths:
        shared_path("io500-corpus")
    assert paths, "no mdtest output in the IO500 corpus"
    for path in paths:
        assert parsed_rows(path) == printed_rows(path), path
