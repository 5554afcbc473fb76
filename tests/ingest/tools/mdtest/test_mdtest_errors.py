"""Truncated, garbled and foreign input: a ParseError naming the file and line, never a partial log."""

import contextlib
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.mdtest.grammar import parse_mdtest_bytes, read_mdtest_lenient

DATA = Path(__file__).resolve().parents[3] / "data" / "mdtest"
LOGS = sorted(path for path in DATA.glob("mdtest-*.txt"))
SINGLE_RUN = DATA / "mdtest-1.9.3_llnl_single-run_vi4io-io-500-dev_sandia-2017.txt"


def summary_rows(log):
    return [
        (launch.index, block.index, table.kind, row.operation, tuple(row.printed().values()))
        for launch in log.launches
        for block in launch.blocks
        for table in block.tables
        for row in table.rows
    ]


def parse_or_error(data: bytes, name: str):
    """(log, None) or (None, ParseError): any other exception escapes and fails the test."""
    try:
        return parse_mdtest_bytes(data, name), None
    except ParseError as error:
        return None, error


def expect_error(text: str, line: int | None = None) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse_mdtest_bytes(text.encode(), "broken.out")
    assert caught.value.path == "broken.out"
    assert str(caught.value).startswith("broken.out")
    if line is not None:
        assert caught.value.line == line
    return caught.value


@pytest.mark.parametrize("path", LOGS, ids=lambda path: path.name[:50])
def test_every_line_prefix_is_an_error_or_a_prefix_of_the_launches(path):
    """Cut a log after any line: what parses must be whole launches of the original, never a
    launch with rows missing; anything else is a ParseError."""
    data = path.read_bytes()
    original = summary_rows(parse_mdtest_bytes(data, path.name))
    lines = data.split(b"\n")
    for cut in range(len(lines)):
        log, error = parse_or_error(b"\n".join(lines[:cut]), path.name)
        if error:
            assert error.path == path.name
            continue
        partial = summary_rows(log)
        assert partial == original[: len(partial)]
        last_launch = partial[-1][0]
        assert partial == [row for row in original if row[0] <= last_launch]


def test_a_log_cut_inside_the_summary_table_names_the_last_line():
    lines = SINGLE_RUN.read_text().split("\n")
    cut = next(number for number, line in enumerate(lines) if "File stat" in line)
    error = expect_error("\n".join(lines[:cut]))
    assert error.line == cut
    assert "truncated" in error.message


def test_a_row_cut_in_the_middle_is_malformed():
    text = SINGLE_RUN.read_text()
    broken = text.replace(
        "   File stat         :          0.000          0.000          0.000          0.000",
        "   File stat         :          0.000          0.0",
    )
    error = expect_error(broken)
    assert "File stat" in error.message
    assert broken.split("\n")[error.line - 1].startswith("   File stat")


def test_a_garbled_number_is_reported_at_its_line():
    text = SINGLE_RUN.read_text().replace("222.391          0.000", "222.391          0.0x0")
    error = expect_error(text)
    assert "'0.0x0' is not a number" in error.message
    assert "0.0x0" in text.split("\n")[error.line - 1]


def test_a_garbled_row_label_inside_a_table_is_an_error():
    text = SINGLE_RUN.read_text().replace("File read         :", "File r3ad         :")
    expect_error(text)


def test_a_time_table_missing_rows_of_the_rate_table_is_an_error():
    text = (DATA / "mdtest-3.3.0+dev_io500-bash-era_rate+time-tables_io500-submission-data_sub52.txt").read_text()
    head, time_table = text.split("SUMMARY time:")
    shortened = "\n".join(line for line in time_table.split("\n") if "File read" not in line)
    error = expect_error(head + "SUMMARY time:" + shortened)
    assert "time table" in error.message


def test_results_without_a_launch_line_are_an_error():
    text = SINGLE_RUN.read_text().replace(
        "mdtest-1.9.3 was launched with 2 total task(s) on 1 node(s)",
        "mdtest-1.9.3 was launched with two total task(s) on 1 node(s)",
    )
    error = expect_error(text)
    assert "launch line" in error.message


def test_a_second_launch_before_the_first_finished_is_an_error():
    text = SINGLE_RUN.read_text()
    unfinished = text.split("-- finished at")[0]
    error = expect_error(unfinished + text)
    assert "truncated" in error.message
    assert error.line == len(unfinished.split("\n"))


def test_a_task_block_without_summary_is_an_error():
    text = (DATA / "mdtest-1.9.3_llnl_verbose_task-scaling-f4-l8-s4_constructed.txt").read_text()
    first_block_end = text.index("\n8 tasks, 800 files/directories")
    first_summary = text.index("SUMMARY: (of 2 iterations)")
    error = expect_error(text[:first_summary] + text[first_block_end:])
    assert "no SUMMARY" in error.message or "second SUMMARY" in error.message


def test_a_table_without_rows_is_an_error():
    text = SINGLE_RUN.read_text()
    header_end = text.index("   File creation")
    finished = text.index("-- finished at")
    expect_error(text[:header_end] + "\n" + text[finished:])


@pytest.mark.parametrize("content", [b"", b"\x00\x01\x02", b"hello\nworld\n", b"SUMMARY: (of 1 iterations)\n"])
def test_files_that_are_not_mdtest_output_are_errors(content):
    with pytest.raises(ParseError):
        parse_mdtest_bytes(content, "x")


def test_an_absurdly_long_number_is_refused():
    text = SINGLE_RUN.read_text().replace("222.391          0.000", "222.391          " + "9" * 40 + ".000")
    expect_error(text)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=4096))
def test_arbitrary_bytes_give_a_log_or_a_parse_error(data):
    log, error = parse_or_error(data, "fuzz")
    assert (log is None) != (error is None)
    if error:
        assert error.path == "fuzz"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(LOGS),
    st.lists(
        st.tuples(
            st.integers(min_value=0),
            st.sampled_from(["replace", "delete", "insert"]),
            st.binary(min_size=1, max_size=8),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_mutated_real_logs_give_a_log_or_a_parse_error(path, mutations):
    data = bytearray(path.read_bytes())
    for position, kind, chunk in mutations:
        at = position % (len(data) + 1)
        if kind == "replace":
            data[at : at + len(chunk)] = chunk
        elif kind == "delete":
            del data[at : at + len(chunk)]
        else:
            data[at:at] = chunk
    log, error = parse_or_error(bytes(data), path.name)
    if error:
        assert error.path == path.name
        assert error.line is None or error.line >= 1
    else:
        assert log.launches
        assert all(
            block.tables and table.rows for launch in log.launches for block in launch.blocks for table in block.tables
        )


def test_shuffled_lines_never_crash():
    rng = random.Random(5)
    for path in LOGS:
        lines = path.read_bytes().split(b"\n")
        for _ in range(20):
            rng.shuffle(lines)
            with contextlib.suppress(ParseError):
                parse_mdtest_bytes(b"\n".join(lines), path.name)


@pytest.mark.parametrize(
    ("original", "corrupt"),
    [
        ("with 2 total task(s)", "with 99999999999 total task(s)"),
        ("2 tasks, 1220 files", "2 tasks, 99999999999999999999 files"),
        ("(of 1 iterations)", "(of 4294967296 iterations)"),
    ],
)
def test_implausibly_large_counts_are_refused(original, corrupt):
    text = SINGLE_RUN.read_text()
    assert original in text
    error = expect_error(text.replace(original, corrupt))
    assert "implausibly large" in error.message


# ---------------------------------------------------------------- lenient mode (IO500 raw outputs)


def test_lenient_mode_reads_every_sample_exactly_as_strict_mode_does():
    for path in LOGS:
        strict = parse_mdtest_bytes(path.read_bytes(), path.name)
        lenient = read_mdtest_lenient(path.read_text(errors="replace").split("\n"), path.name)
        assert summary_rows(lenient) == summary_rows(strict), path.name
        assert lenient.problems == [], path.name


def test_lenient_mode_keeps_a_truncated_launch_and_records_what_strict_mode_raises():
    lines = SINGLE_RUN.read_text().split("\n")
    cut = next(number for number, line in enumerate(lines) if line.startswith("-- finished at"))
    truncated = "\n".join(lines[:cut])
    expect_error(truncated)

    log = read_mdtest_lenient(truncated.split("\n"), "broken.out")

    (launch,) = log.launches
    assert launch.finished_at == ""
    assert launch.blocks[0].tables  # the SUMMARY printed before the cut is kept
    assert [problem.path for problem in log.problems] == ["broken.out"]
    assert "truncated" in log.problems[0].message


def test_lenient_mode_leaves_out_a_garbled_row_and_keeps_the_others():
    text = (
        "mdtest-3.3.0 was launched with 2 total task(s) on 1 node(s)\n"
        "SUMMARY rate: (of 1 iterations)\n"
        "   File creation       10.000     10.000     10.000      0.000\n"
        "   File stat           x1         2          3           4\n"
        "   File read           30.000     30.000     30.000      0.000\n"
        "-- finished at 01/01/2020 00:00:01 --\n"
    )
    expect_error(text, line=4)

    log = read_mdtest_lenient(text.split("\n"), "broken.out")

    assert [row.operation for row in log.launches[0].blocks[0].tables[0].rows] == ["file_creation", "file_read"]
    assert [problem.line for problem in log.problems] == [4]


def test_lenient_mode_gives_no_launch_for_foreign_text():
    log = read_mdtest_lenient(["hello", "SUMMARY of something else"], "notes.txt")

    assert log.launches == []
