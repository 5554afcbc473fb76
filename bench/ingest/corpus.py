"""Bulk IO500 ingest against the read + regular expression floor of the same files, measured in the same run.

    .venv/bin/python -m bench ingest_corpus [TREE] [--times N] [--repeat 5] [--db NAME] [--json FILE]

TREE defaults to ../shared/io500-corpus (142 submissions); ``--times 10`` benches a tree ten times it instead,
generated untimed into a scratch folder (``synth.io500_tree``: every copy its own institutions, systems and
submission ids, and its own results: each submission's phase values scaled by a seeded factor, its scores and
score hashes recomputed, so no copy is a duplicate result of another).

What is timed, in one child process per round, alternately (the floor first in odd rounds, the ingest first in
even ones, so neither always meets the warmer machine):

- floor: ``bench.ingest.floor`` over every file the ingest reads (its docstring says what that is: every file
  read and decoded, the patterns of the grammar reading it tried over each line);
- read: the same files read and decoded into lines, no pattern (how much of the floor is the bytes);
- ingest: ``manage.py ingest TREE`` as the command runs it (the io500 pipeline's ``ingest_paths``, then the
  statistics refresh of a bulk load) into an empty migrated PostgreSQL database, DEBUG off; every query is
  counted, and its CPU time (this process's; the database's is not in it) is reported beside its wall.

The files are those the ingest opened in an untimed warm-up ingest (traced with an audit hook), which also fills
the page cache. The figure is the ratio ingest / floor of each round: its median and its range over the rounds
are reported, as are the median walls, the queries per stored run and the peak RSS (``ru_maxrss`` of the child
after its ingest: the child's own peak, Django loaded, the floor's being far below it). Each round's database is
cloned (untimed) from a template migrated once.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import rig
from bench.harness import ingestion, output, statistics, timing
from rig import databases


class OpenTrace:
    """Regular files below ``root`` opened for reading, seen through the interpreter's "open" audit event."""

    def __init__(self, root: Path):
        self.root = str(root.resolve())
        self.paths: set[str] = set()
        self.active = False
        sys.addaudithook(self.hook)

    def hook(self, event: str, args) -> None:
        if not self.active or event != "open":
            return
        path, mode = args[0], args[1]
        if isinstance(path, int) or path is None:
            return
        if isinstance(mode, str) and any(flag in mode for flag in "wax+"):
            return
        text = os.fsdecode(path)
        if text.startswith(self.root):
            self.paths.add(text)

    def files(self) -> list[str]:
        return sorted(p for p in self.paths if os.path.isfile(p))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ingest_tree(tree: Path) -> dict:
    """``manage.py ingest TREE`` in this process, timed, its queries counted (Django set up)."""
    from django.db import connection

    from apps.ingest.pipelines import pipeline_for
    from apps.results.models import Run
    from apps.results.services.list_entries import analyze_after_bulk_write

    counted = {"queries": 0}

    def count(execute, sql, params, many, context):
        counted["queries"] += 1
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        started, cpu = time.perf_counter(), time.process_time()
        report = pipeline_for("io500").ingest_paths([tree], {})
        analyze_after_bulk_write()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {
        "wall": wall,
        "cpu": cpu,
        "created": len(report.created),
        "failed": len(report.failed),
        "stored": Run.objects.count(),
        "queries": counted["queries"],
        "peak_rss_mib": peak_rss_mib(),
    }


def read_only(paths: list[Path]) -> dict:
    started = time.perf_counter()
    lines = size = 0
    for path in paths:
        with path.open("rb") as handle:
            for raw in handle:
                size += len(raw)
                lines += 1
                raw.decode("utf-8", errors="replace")
    return {"wall": time.perf_counter() - started, "bytes": size, "lines": lines, "peak_rss_mib": peak_rss_mib()}


def floor(paths: list[Path]) -> dict:
    from bench.ingest.floor import patterns_by_kind, run_floor

    patterns_by_kind()  # the grammar modules imported before the clock starts
    started, cpu = time.perf_counter(), time.process_time()
    tally = run_floor(paths)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, **vars(tally), "peak_rss_mib": peak_rss_mib()}


def child_trace(tree: Path, files_out: Path) -> dict:
    """The warm-up: one ingest with its opened files traced into ``files_out``."""
    import django

    django.setup()
    trace = OpenTrace(tree)
    trace.active = True
    result = ingest_tree(tree)
    trace.active = False
    files_out.write_text("\n".join(trace.files()))
    return {**result, "files": len(trace.files())}


def child_round(tree: Path, files: Path, floor_first: bool) -> dict:
    import django

    django.setup()
    paths = [Path(p) for p in files.read_text().splitlines() if p]
    measured = {}
    if floor_first:
        measured["floor"], measured["read"] = floor(paths), read_only(paths)
    measured["ingest"] = ingest_tree(tree)
    if not floor_first:
        measured["floor"], measured["read"] = floor(paths), read_only(paths)
    return measured


def run_child(argv: list[str], env: dict) -> dict:
    measured = timing.run_measured([rig.PYTHON, "-m", "bench", "ingest_corpus", *argv], env=env, timeout=7200)
    if measured.returncode != 0:
        raise RuntimeError(f"child {argv} failed ({measured.returncode}):\n{measured.stderr[-4000:]}")
    return measured.json()


def clone(name: str, template: str) -> str:
    databases.psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    databases.psql(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    return databases.database_url(name)


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench ingest_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", nargs="?", type=Path, default=ingestion.CORPUS)
    parser.add_argument("--times", type=int, default=1, help="bench a generated tree this many times TREE")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--db", default=f"ioboard_bench_ingest_{os.getpid()}", help="PostgreSQL database to create and drop"
    )
    output.add_json_option(parser)
    parser.add_argument("--child", choices=["trace", "round"], help=argparse.SUPPRESS)
    parser.add_argument("--files", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor-first", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    tree = args.tree.resolve()

    if args.child == "trace":
        print(json.dumps(child_trace(tree, args.files)))
        return
    if args.child == "round":
        print(json.dumps(child_round(tree, args.files, args.floor_first)))
        return

    if not tree.is_dir():
        raise SystemExit(f"{tree}: no such directory")
    if not 1 <= args.repeat <= 20 or not 1 <= args.times <= 100:
        raise SystemExit("--repeat must be between 1 and 20, --times between 1 and 100")
    template = f"{args.db}_template"
    with tempfile.TemporaryDirectory(prefix="ioboard-bench-ingest-") as scratch:
        if args.times > 1:
            from synth.io500_tree import write_scaled_tree

            tree = write_scaled_tree(tree, Path(scratch) / "tree", args.times).root
        files = Path(scratch) / "files.txt"
        try:
            databases.fresh_database(template)
            env = {"DATABASE_URL": clone(args.db, template)}
            warm = run_child([str(tree), "--child", "trace", "--files", str(files)], env)
            rounds = []
            for attempt in range(1, args.repeat + 1):
                env = {"DATABASE_URL": clone(args.db, template)}
                child = [str(tree), "--child", "round", "--files", str(files)]
                rounds.append(run_child(child + (["--floor-first"] if attempt % 2 else []), env))
                last = rounds[-1]
                print(
                    f"round {attempt}/{args.repeat}: floor {last['floor']['wall']:.2f} s, "
                    f"read {last['read']['wall']:.2f} s, ingest {last['ingest']['wall']:.2f} s, "
                    f"ratio {last['ingest']['wall'] / last['floor']['wall']:.2f}x",
                    flush=True,
                )
        finally:
            databases.drop_database(args.db)
            databases.drop_database(template)
    report(tree if args.times == 1 else args.tree.resolve(), args, warm, rounds)


def report(tree: Path, args, warm: dict, rounds: list[dict]) -> None:
    ratios = [r["ingest"]["wall"] / r["floor"]["wall"] for r in rounds]

    def med(stage: str, key: str) -> float:
        return statistics.median([r[stage][key] for r in rounds])

    runs = int(med("ingest", "stored"))
    peak = max(r["ingest"]["peak_rss_mib"] for r in rounds)
    queries_per_run = med("ingest", "queries") / max(runs, 1)
    megabytes = med("floor", "bytes") / 1e6
    rows = [
        ["read (bytes decoded into lines)", med("read", "wall"), "-", megabytes / med("read", "wall"), "-", "-"],
        [
            "floor (read + the grammars' line patterns)",
            med("floor", "wall"),
            med("floor", "cpu"),
            megabytes / med("floor", "wall"),
            "-",
            "-",
        ],
        [
            "ingest into PostgreSQL",
            med("ingest", "wall"),
            med("ingest", "cpu"),
            megabytes / med("ingest", "wall"),
            peak,
            queries_per_run,
        ],
    ]
    print()
    headers = ["stage", "median wall s", "its CPU s", "MB/s", "peak RSS MiB", "queries/run"]
    print(output.table(headers, rows))
    print()
    print(
        f"{tree}{f' x{args.times}' if args.times > 1 else ''}: {runs} runs stored ({warm['failed']} failed), "
        f"{int(med('floor', 'files'))} files, {megabytes:.1f} MB, {int(med('floor', 'lines'))} lines "
        f"({int(med('floor', 'matched'))} matched a pattern)."
    )
    print(
        f"**ingest / floor = {statistics.median(ratios):.2f}x** (median of {len(ratios)} rounds, range "
        f"{min(ratios):.2f}-{max(ratios):.2f}x; target: within 5x); peak RSS {peak:.0f} MiB (target: under 300)."
    )
    print("rounds (ingest/floor): " + ", ".join(f"{ratio:.2f}" for ratio in ratios))
    output.write_json(
        args.json,
        {
            "tree": str(tree),
            "times": args.times,
            "rounds": len(rounds),
            "runs": runs,
            "ratios": ratios,
            "ratio_median": statistics.median(ratios),
            "ingest_seconds": med("ingest", "wall"),
            "ingest_cpu_seconds": med("ingest", "cpu"),
            "floor_seconds": med("floor", "wall"),
            "read_seconds": med("read", "wall"),
            "peak_rss_mib": peak,
            "queries_per_run": queries_per_run,
            "files": int(med("floor", "files")),
            "megabytes": megabytes,
        },
    )
