"""One line cap for every grammar: 256 KiB (262,144 characters). A strict reader refuses a longer line,
naming the file and the line; a lenient one reads it cut to the cap. The stack readers' refusals are in
tests/ingest/tools/test_readers.py, the per-rank CSVs' in tests/ingest/tools/io500/test_io500_rank_csv.py."""

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lines import capped, numbered_lines
from apps.ingest.parsers.lustre.inventory import parse_ansible_inventory
from apps.ingest.parsers.lustre.shell import logical_lines
from apps.ingest.parsers.lustre.versions import parse_release_notes
from apps.ingest.tools.io500.grammar import files
from apps.ingest.tools.io500.grammar.files import iter_lines
from apps.ingest.tools.ior.grammar import parse_ior_bytes
from apps.ingest.tools.mdtest.grammar import parse_mdtest_bytes, read_mdtest_lenient

CAP = 262_144
OVER = "x" * (CAP + 10)
OVER_CAP = "log.txt:2: line of 262154 characters is over the limit of 262144 characters"
MDTEST_HEAD = [
    "-- started at 11/26/2026 05:00:00 --",
    "",
    "mdtest-3.3.0 was launched with 4 total task(s) on 1 node(s)",
]
IOR_HEAD = "IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n\nBegan               : Thu Nov 26 05:00:00 2026\n"


def test_the_walk_refuses_a_line_over_the_cap_when_strict_naming_file_and_line():
    with pytest.raises(ParseError) as refused:
        list(numbered_lines(["ok", OVER, "never reached"], "log.txt", strict=True))
    assert str(refused.value) == OVER_CAP


def test_the_walk_cuts_a_line_over_the_cap_when_lenient_and_counts_from_first():
    walked = list(numbered_lines(["ok", OVER, "x" * CAP], strict=False, first=7))
    assert [(number, len(line)) for number, line in walked] == [(7, 2), (8, CAP), (9, CAP)]


def test_a_line_exactly_at_the_cap_is_read_whole_by_a_strict_walk():
    assert [len(line) for _, line in numbered_lines(["x" * CAP], "log.txt", strict=True)] == [CAP]


def test_strict_mdtest_refuses_the_line():
    with pytest.raises(ParseError, match=OVER_CAP):
        parse_mdtest_bytes("\n".join([MDTEST_HEAD[0], OVER]).encode(), "log.txt")


def test_lenient_mdtest_reads_the_command_cut_at_the_cap():
    log = read_mdtest_lenient([*MDTEST_HEAD, "Command line used: mdtest -n 1 " + OVER], "raw/mdtest.txt")
    # "Command line used: " is 19 characters of the cut line.
    assert len(log.launches[0].command_line) == CAP - 19


def test_strict_ior_refuses_the_line_in_a_json_log_too():
    with pytest.raises(ParseError, match=OVER_CAP):
        parse_ior_bytes(("{\n" + OVER + '\n"tests": []}\n').encode(), "log.txt")


def test_lenient_ior_reads_the_command_cut_at_the_cap():
    log = parse_ior_bytes((IOR_HEAD + "Command line        : ior -w " + OVER + "\n").encode(), "raw.txt", strict=False)
    # "Command line        : " is 22 characters of the cut line.
    assert len(log.runs[0].command) == CAP - 22


def test_io500_result_files_are_read_with_long_lines_cut(tmp_path):
    path = tmp_path / "result.txt"
    path.write_text("[run]\r\n" + OVER + "\n; END\n")
    assert [(number, len(line)) for number, line in iter_lines(path, "result.txt")] == [(1, 5), (2, CAP), (3, 5)]


def test_scripts_are_read_with_long_lines_cut():
    assert [(number, len(line)) for number, line in logical_lines("a\n" + OVER + "\nb")] == [(1, 1), (2, CAP), (3, 1)]


def test_an_ini_inventory_value_is_read_cut_at_the_cap():
    (tunable,) = parse_ansible_inventory("[all:vars]\nlustre_max_rpcs=" + OVER + "\n", "hosts")
    # "lustre_max_rpcs=" is 16 characters of the cut line.
    assert (tunable.parameter, len(tunable.value), tunable.source_line) == ("lustre_max_rpcs", CAP - 16, 2)


def test_release_notes_read_a_patch_line_cut_at_the_cap():
    notes = parse_release_notes("Applied patches:\n0123456789ab LU-1234 llite: " + OVER + "\n")
    # "0123456789ab LU-1234 llite: " is 28 characters of the cut line.
    assert [(patch.ticket, len(patch.summary)) for patch in notes.patches] == [("LU-1234", CAP - 28)]


@pytest.mark.parametrize("block_bytes", [1, 2, 3, 5, 1024 * 1024])
def test_io500_files_read_in_blocks_give_the_lines_of_a_line_by_line_read(tmp_path, monkeypatch, block_bytes):
    """Blocks end after a line's end, so a character or a CRLF is never split between two of them; a damaged
    UTF-8 sequence before a line end is one U+FFFD, and a last line without its end is still a line."""
    monkeypatch.setattr(files, "READ_BLOCK_BYTES", block_bytes)
    path = tmp_path / "mdtest.txt"
    path.write_bytes(b"\xe2\x82\xac1\r\n\r\nbad \xe2\x82\nlone\rcr\r\r\nnul\x00\n\ntail\r")
    assert list(iter_lines(path, "mdtest.txt")) == [
        (1, "\u20ac1"),
        (2, ""),
        (3, "bad \ufffd"),
        (4, "lone\rcr"),
        (5, "nul\ufffd"),
        (6, ""),
        (7, "tail"),
    ]


def test_a_list_of_lines_is_capped_like_the_walk():
    assert capped(["ok", "x" * CAP], strict=True) == ["ok", "x" * CAP]
    assert [len(line) for line in capped(["ok", OVER], strict=False)] == [2, CAP]
    with pytest.raises(ParseError, match=OVER_CAP):
        capped(["ok", OVER], "log.txt", strict=True)
