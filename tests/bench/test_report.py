"""bench.report: docs/performance.md is one current table, every figure next to the command that made it."""

import re
import shlex
import signal
import subprocess
import sys
import time

from bench.registry import BENCHMARKS
from bench.report import DOC, WHY, Outcome, kept_section, measure, render, run_within
from bench.rows import ROWS, BenchRow, Figure, list_latency

TABLE_HEADER = "| measurement | figure | value | command |"
HEADER = {
    "command": "cmd",
    "date": "today",
    "commit": "abc1234",
    "machine": "m",
    "prefix": "ioboard_bench",
    "services": "s",
    "load_before": 0.5,
    "load_after": 0.75,
}


def demo_row(benchmark: str = "demo") -> BenchRow:
    return BenchRow(
        name="demo", title="Demo bench", benchmark=benchmark, arguments={"small": ("--n", "3")}, figures=lambda _: []
    )


def test_every_row_runs_a_registered_benchmark_that_can_write_its_figures_as_json():
    for benchmark in {bench.benchmark for bench in ROWS.values()}:
        assert benchmark in BENCHMARKS
        usage = subprocess.run(
            [sys.executable, "-m", "bench", benchmark, "--help"],
            cwd=DOC.parents[1],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        assert "--json FILE" in usage, benchmark
    assert all(set(bench.arguments) == {"small", "full"} for bench in ROWS.values())


def test_a_row_is_rendered_with_its_command_once_beside_its_figures():
    figures = [Figure("first", "1.0 s"), Figure("second", "2x")]

    text = render([Outcome(demo_row(), figures, 12.3)], "small", HEADER)

    assert text.count(TABLE_HEADER) == 1
    assert "- rows not measured in this run: none" in text
    assert text.splitlines()[-2:] == [
        "| Demo bench | first | 1.0 s | `.venv/bin/python -m bench demo --n 3` (12 s) |",
        "|  | second | 2x |  |",
    ]


def test_a_row_not_measured_shows_why_beside_its_command_no_figure_and_the_header_names_it():
    why = "exit 1: upload 21 (submission-212): job processing after 1 attempts | stuck\nsince 13:53"

    text = render([Outcome(demo_row(), [], 7200.4, why)], "small", HEADER)

    assert "- rows not measured in this run: 1 (demo), each saying why" in text
    assert text.splitlines()[-1] == (
        "| Demo bench | not measured in this run | exit 1: upload 21 (submission-212): job processing after 1 "
        "attempts \\| stuck since 13:53 | `.venv/bin/python -m bench demo --n 3` (7200 s) |"
    )


def test_a_bench_that_fails_leaves_its_row_not_measured_with_its_exit_status(tmp_path):
    outcome = measure(demo_row(benchmark="no_such_bench"), "small", tmp_path)

    assert outcome.figures == []
    assert outcome.not_measured == "exit 2"  # the dispatcher's answer to an unknown benchmark


def test_a_command_past_its_time_limit_is_interrupted_so_that_it_cleans_up_and_reported_unfinished(tmp_path):
    cleaned = tmp_path / "cleaned"
    stuck = f"import time, pathlib\ntry:\n    time.sleep(120)\nfinally:\n    pathlib.Path({str(cleaned)!r}).touch()"
    started = time.monotonic()

    status = run_within([sys.executable, "-c", stuck], limit=10)  # time to start Python on a loaded host first

    assert status is None
    assert cleaned.exists(), "its finally block ran: a bench stops its services and drops its database there"
    assert time.monotonic() - started < 60


def test_a_report_started_in_the_background_still_interrupts_a_command_so_that_it_cleans_up(tmp_path):
    """A shell starts a background job (`nohup ... &`) with SIGINT ignored, and the report's commands inherit that."""
    cleaned = tmp_path / "cleaned"
    stuck = f"import time, pathlib\ntry:\n    time.sleep(600)\nfinally:\n    pathlib.Path({str(cleaned)!r}).touch()"
    started = time.monotonic()
    inherited = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        status = run_within([sys.executable, "-c", stuck], limit=10)
    finally:
        signal.signal(signal.SIGINT, inherited)

    assert status is None
    assert cleaned.exists()
    assert time.monotonic() - started < 60  # interrupted, not killed after the grace period nor slept out


def test_a_rerun_keeps_the_hand_written_section_after_a_fresh_table():
    old = render([], "small", HEADER) + "\n" + WHY + "\n\nPaging by OFFSET was slow.\n"

    text = render([], "full", HEADER, kept_section(old))

    assert "at the `full` scale" in text
    assert text.endswith("| --- | --- | --- | --- |\n\n" + WHY + "\n\nPaging by OFFSET was slow.\n")
    assert kept_section(render([], "small", HEADER)) == ""


def test_list_latency_figures_are_full_renders_next_to_healthz_of_the_same_run():
    result = {
        "runs": 1000,
        "timings": [
            {"url": "/lists/io500/", "median": 3.0, "p95": 4.0, "cold_median": 60.0, "cold_p95": 90.0},
            {"url": "/healthz", "median": 2.0, "p95": 3.0, "cold_median": 2.0, "cold_p95": 3.0},
        ],
    }

    figures = {figure.label: figure.value for figure in list_latency(result)}

    assert figures["`/lists/io500/` at 1,000 runs, median / p95"] == "60.0 ms / 90.0 ms"
    assert figures["`/lists/io500/` / `/healthz` (medians)"] == "30.0x"  # 60 / 2: the page-cache hit (3.0) is unused


def test_the_committed_page_is_one_table_whose_every_command_is_a_registered_row():
    text = DOC.read_text()
    assert text.count(TABLE_HEADER) == 1
    assert re.findall(r"^## .*", text, re.MULTILINE) == [WHY], "no appended sections but the hand-written one"
    scale = re.search(r"at the `(\w+)` scale", text).group(1)
    prefix = re.search(r"^- databases: named `(\w+)_…`", text, re.MULTILINE).group(1)
    documented = {f"`{shlex.join(bench.command(scale, prefix))}`" for bench in ROWS.values()}
    rows = [line for line in text.splitlines() if line.startswith("| ") and line != TABLE_HEADER]
    commands = [re.match(r"(`[^`]+`)", line.rsplit("|", 2)[1].strip()) for line in rows]
    assert {match.group(1) for match in commands if match} == documented
    assert all(line.split("|")[3].strip() for line in rows), "every figure has a value"


def test_cold_path_figures_bound_each_page_by_healthz_and_summarise_the_sorts():
    healthz = [2.0] * 18 + [4.0] * 2  # median 2.0; p95 (nearest rank, the 19th of 20) 4.0
    result = {
        "runs": 1_000_000,
        "seed_seconds": None,
        "labels": {
            "/lists/historic/?sort=nodes": "historic list sorted by nodes",
            "/lists/historic/?sort=-nodes": "historic list sorted by -nodes",
        },
        "timings_ms": {
            "/healthz": healthz,
            "/lists/io500/": [8.0] * 20,
            "/compare/?runs=1,2": [11.0] * 20,
            "/lists/historic/?sort=nodes": [6.0] * 20,
            "/lists/historic/?sort=-nodes": [9.0] * 20,
        },
        "upload": {"ingest_seconds": 0.12, "first_read_ms": 10.0, "rank_shown": 7, "rank_expected": 7},
    }

    figures = {figure.label: figure.value for figure in ROWS["cold_path_million"].figures(result)}

    assert figures["`/lists/io500/` at 1,000,000 runs, median / p95 (x `/healthz`)"] == "8.0 ms / 8.0 ms (4.0x / 2.0x)"
    sorts = (
        "the historic list's 2 sorts at 1,000,000 runs: medians / x `/healthz`; "
        "slowest `/lists/historic/?sort=-nodes`; worst p95"
    )
    assert figures[sorts] == "3.0x to 4.5x; 9.0 ms; 2.2x"
    assert not any("sort=nodes`" in label for label in figures)  # a sort is not also a figure of its own
    assert figures["URLs within 5x (median) and 10x (p95) of `/healthz` at 1,000,000 runs"] == "4 of 5"  # compare 5.5x
    assert figures["one upload's ingest at 1,000,000 runs; first read of the list after it"] == (
        "0.12 s; 10.0 ms, rank 7 (reference 7)"
    )


def test_the_deadline_is_judged_against_its_pages_idle_p95_on_its_bursts_median_p95_and_says_how_many_were_within():
    from bench.rows import deadline_load

    burst = {"server_p95_seconds": None, "reader_requests": 180, "uploads_seconds": 8.0}
    result = {
        "runs": 100_000,
        "readers": 32,
        "think_seconds": [1, 5],
        "uploads": 50,
        "healthz_median_seconds": 0.002,
        "pages_alone_median_seconds": 0.012,
        "pages_alone_p95_seconds": 0.020,
        "bound_x_pages_alone_p95": 2.5,
        "readers_p95_seconds": 0.060,
        "within_bound": False,
        "bursts": [
            {**burst, "readers_p95_seconds": 0.030, "within_bound": True},
            {**burst, "readers_p95_seconds": 0.060, "within_bound": False},
            {**burst, "readers_p95_seconds": 0.090, "within_bound": False},
        ],
        "reader_errors": 0,
        "failures": [],
    }

    figures = deadline_load(result)

    assert figures[0].label.endswith("p95, the median of 3 bursts (x the same pages' idle p95; target 2.5x)")
    assert figures[0].value == "60.0 ms (3.0x: NOT met)"
    assert figures[1].value == "1.5x, 3.0x, 4.5x; 1 of 3"
    assert figures[2].value == "12.0 ms / 20.0 ms; 2.0 ms"
    assert "3 x 50 uploads from 5 accounts" in figures[3].label


def test_the_databases_a_row_names_follow_the_prefix_an_engineer_gives(monkeypatch):
    monkeypatch.setenv("IOBOARD_BENCH_DATABASE_PREFIX", "alice")

    commands = [shlex.join(bench.command(scale)) for bench in ROWS.values() for scale in ("small", "full")]

    assert "--database-url postgres://postgres@127.0.0.1:5432/alice_cold_1m" in shlex.join(
        ROWS["cold_path_million"].command("small")
    )
    assert not [command for command in commands if "ioboard_bench" in command or "{" in command]
