"""python -m bench: one entry point names every benchmark and runs one by its name."""

import ast
import inspect
import subprocess
import sys
from pathlib import Path

from bench.registry import BENCHMARKS, entry_point

BENCH = Path(__file__).resolve().parents[2] / "bench"


def run_bench(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bench", *arguments],
        cwd=BENCH.parent,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def modules_with_a_main() -> set[str]:
    """Every module under bench/ that defines main(argv), found by reading the files (not the registry)."""
    found = set()
    for path in BENCH.rglob("*.py"):
        if path.name == "__main__.py" or path.parent.name == "harness" or path.name == "otava_runner.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body):
            found.add(".".join(path.relative_to(BENCH.parent).with_suffix("").parts))
    return found


def test_list_names_every_benchmark_with_its_summary():
    listed = run_bench("--list")

    assert listed.returncode == 0, listed.stderr
    lines = dict(line.split(None, 1) for line in listed.stdout.splitlines())
    assert {"cold_path", "ingest_corpus", "load_deadline", "fault_scenarios", "report"} <= lines.keys()
    assert lines["cold_path"].startswith("Cold-path latency of every page")
    assert set(BENCHMARKS) == set(lines)
    assert set(BENCHMARKS.values()) == modules_with_a_main(), "a benchmark module missing from the registry"


def test_an_unknown_name_exits_2_and_says_where_the_names_are():
    answer = run_bench("cold_paths")

    assert answer.returncode == 2
    assert answer.stdout == ""
    assert "no benchmark named 'cold_paths'" in answer.stderr
    assert "--list" in answer.stderr


def test_no_name_exits_2_with_the_usage():
    answer = run_bench()

    assert answer.returncode == 2
    assert answer.stderr.startswith("usage: python -m bench NAME")


def test_a_benchmarks_options_are_its_own_under_its_name():
    answer = run_bench("change_heldout", "--help")

    assert answer.returncode == 0, answer.stderr
    assert answer.stdout.startswith("usage: python -m bench change_heldout [-h] first last")


def test_every_registered_benchmark_imports_and_takes_its_arguments_as_a_list():
    for name in BENCHMARKS:
        parameters = list(inspect.signature(entry_point(name)).parameters)
        assert parameters == ["argv"], name
