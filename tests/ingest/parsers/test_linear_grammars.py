"""Every grammar reads a hostile line in time linear in its length, and keeps a bounded list of problems.

An attacker's 976-byte upload of long runs of spaces once held the only worker for 52 s: patterns like
``(?P<value>.*?)\\s*$`` retry the run of spaces from every position. Here every compiled pattern of every
grammar module is run on pathological lines, and the readers themselves are fed a 1 MB line.
"""

import importlib
import pkgutil
import re
import time

import pytest

import apps.ingest.core.metadata
import apps.ingest.parsers
import apps.ingest.tools
from apps.ingest.parsers.errors import MAX_KEPT_PROBLEMS, ParseError, joined_problems
from apps.ingest.parsers.lines import MAX_LINE_CHARS
from apps.ingest.parsers.lustre.shell import shell_words
from apps.ingest.tools.ior.grammar import parse_ior_bytes
from apps.ingest.tools.mdtest.grammar import parse_mdtest_bytes, read_mdtest_lenient

GRAMMAR_MODULES = [apps.ingest.core.metadata] + [
    importlib.import_module(info.name)
    for package in (apps.ingest.parsers, apps.ingest.tools)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
]
PATTERNS = [
    (f"{module.__name__}.{name}", value)
    for module in GRAMMAR_MODULES
    for name, value in vars(module).items()
    if isinstance(value, re.Pattern)
]
# What the grammars' lines start with, so a pattern gets past its fixed prefix into the hostile part.
PREFIXES = [
    "",
    "-- started at ",
    "Command line used: ",
    "Test 0 started: ",
    "Began               : ",
    "   File creation     :",
    "Path: ",
    "  api = ",
    "hints ",
    "Operation  Max Min Mean Std Dev",
    "stonewall rank 1: ",
    "[RESULT] ",
    "io500_info_system = ",
    "TARGET PASS1 ",
    "Combined ",
    "TARGET_AVERAGE ",
    "COMBINED ",
]
LENGTH = 10_000
HOSTILE_BODIES = {
    "spaces": " " * LENGTH,
    "spaces then a letter": "a" + " " * LENGTH + "b",
    "tabs then a letter": "\t" * LENGTH + "x",
    "digits": "1" * LENGTH + "x",
    "dashes": "-" * LENGTH + "x",
    "words and spaces": "ab " * (LENGTH // 3),
    "header words without the last": "Max Min " * (LENGTH // 8),
    "openers": "{{$((" * (LENGTH // 5),
    "equals": "a" + "=" * LENGTH,
    "colons": ":" * LENGTH,
}
# Linear work on 10,000 characters takes at most 60 ms; a quadratic pattern takes far longer (the old
# mdtest start-time pattern: 0.4 s on 10,000 spaces, 1.6 s on 20,000).
SECONDS_PER_PATTERN = 0.25


def test_the_grammar_modules_are_all_found():
    assert len(PATTERNS) > 60
    assert any(name.endswith("mdtest.grammar._STARTED") for name, _ in PATTERNS)


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[name for name, _ in PATTERNS])
def test_every_pattern_is_linear_on_hostile_lines(name, pattern):
    for body_name, body in HOSTILE_BODIES.items():
        for prefix in PREFIXES:
            started = time.perf_counter()
            pattern.search(prefix + body)
            elapsed = time.perf_counter() - started
            assert elapsed < SECONDS_PER_PATTERN, f"{name} took {elapsed:.2f} s on {prefix!r} + {body_name}"


def timed(call):
    started = time.perf_counter()
    try:
        outcome = call()
    except ParseError as error:
        outcome = error
    return outcome, time.perf_counter() - started


MDTEST_HEAD = "-- started at 11/26/2026 05:00:00 --\n\nmdtest-3.3.0 was launched with 4 total task(s) on 1 node(s)\n"
IOR_HEAD = "IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n\nBegan               : Thu Nov 26 05:00:00 2026\n"


@pytest.mark.parametrize(
    "line",
    ["-- started at " + " " * 1_000_000 + "x", "Command line used: mdtest" + " " * 1_000_000 + "-n 1", "x" * 1_000_000],
)
def test_a_strict_mdtest_log_with_a_1_mb_line_fails_at_that_line_in_well_under_a_second(line):
    outcome, elapsed = timed(lambda: parse_mdtest_bytes((MDTEST_HEAD + line + "\n").encode(), "hostile.log"))

    assert isinstance(outcome, ParseError)
    assert str(outcome).startswith("hostile.log:4: line of 1")
    assert f"over the limit of {MAX_LINE_CHARS} characters" in str(outcome)
    assert elapsed < 0.5


@pytest.mark.parametrize("line", ["Test 0 started: " + " " * 1_000_000 + "x", "  api = " + " " * 1_000_000 + "x"])
def test_a_strict_ior_log_with_a_1_mb_line_fails_at_that_line_in_well_under_a_second(line):
    outcome, elapsed = timed(lambda: parse_ior_bytes((IOR_HEAD + line + "\n").encode(), "hostile.log"))

    assert isinstance(outcome, ParseError)
    assert str(outcome).startswith("hostile.log:4: line of 1")
    assert elapsed < 0.5


@pytest.mark.parametrize("filler", [" ", "\t", "1", "-"])
def test_readers_take_lines_just_under_the_cap_in_well_under_a_second(filler):
    """Lines the cap lets through reach every pattern: the lenient readers (IO500 raw files) and the strict ones."""
    run = filler * (MAX_LINE_CHARS - 100)
    lines = [prefix + run + "x" for prefix in PREFIXES]
    text = MDTEST_HEAD + "\n".join(lines) + "\n"

    for reader in (
        lambda: read_mdtest_lenient(text.split("\n"), "raw.txt"),
        lambda: parse_mdtest_bytes(text.encode(), "log.txt"),
        lambda: parse_ior_bytes((IOR_HEAD + "\n".join(lines)).encode(), "ior.txt"),
        lambda: parse_ior_bytes((IOR_HEAD + "\n".join(lines)).encode(), "ior.txt", strict=False),
    ):
        _, elapsed = timed(reader)
        assert elapsed / len(lines) < 0.25  # measured: about 0.1 s a line of 256 KiB


def test_the_shell_reader_takes_a_line_of_unclosed_openers_in_linear_time():
    _, elapsed = timed(lambda: shell_words("lfs setstripe " + "$((" * 200_000 + " {{" * 100_000))
    assert elapsed < 0.5


def test_a_lenient_reader_keeps_the_first_problems_and_counts_the_rest():
    bad_rows = [
        "SUMMARY rate: (of 1 iterations)",
        "   Operation   Max   Min   Mean   Std Dev",
        "   ---------   ---   ---   ----   -------",
    ] + ["   File creation : not-a-number"] * 100_000

    log = read_mdtest_lenient((MDTEST_HEAD + "\n".join(bad_rows)).split("\n"), "raw.txt")

    assert len(log.problems) == MAX_KEPT_PROBLEMS
    assert len(log.problems) + log.problems.more >= 100_000
    assert all(problem.path == "raw.txt" and problem.line for problem in log.problems)


def test_joined_problems_shows_the_first_and_counts_the_rest():
    problems = [f"log-{n}.txt:3: bad row" for n in range(MAX_KEPT_PROBLEMS + 7)]

    message = joined_problems(problems)

    assert message.startswith("log-0.txt:3: bad row; log-1.txt:3: bad row")
    assert f"log-{MAX_KEPT_PROBLEMS - 1}.txt" in message
    assert f"log-{MAX_KEPT_PROBLEMS}.txt" not in message
    assert message.endswith("; and 7 more")
