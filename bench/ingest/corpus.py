"""Ingest throughput on the IO500 corpus against a floor measured in the same run.

    .venv/bin/python -m bench ingest_corpus [CORPUS] [--repeat 3] [--db ioboard_bench_ingest] [--json FILE]

CORPUS defaults to ../shared/io500-corpus. Three stages, each in its own child process (so each has
its own peak RSS), alternated --repeat times, medians reported:

1. read: every file the ingest opens (traced with an audit hook during the floor stage), read and
   split into decoded lines; no parsing.
2. floor: finding and parsing every result set (``survey_tree`` + ``parse_io500_tree``), the exact
   code the ingest runs before it touches the database: it reads the same files and scans them with
   the same regular expressions. Database access is blocked in this child, so the floor provably
   has no database in it.
3. ingest: ``ingest_path`` into a freshly created and migrated PostgreSQL database (one transaction
   per run), as ``manage.py ingest CORPUS`` does, with DEBUG off.

The ratio that matters is ingest / floor wall time. The page cache is warmed first, and the
database is re-created (untimed) before every ingest, so every ingest starts from empty.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
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

    def total_bytes(self) -> int:
        return sum(os.path.getsize(p) for p in self.files())


def child_setup() -> None:
    import django

    django.setup()


def block_database():
    from django.db import connection

    def refuse(*args, **kwargs):
        raise AssertionError("the floor stage must not touch the database")

    return connection.execute_wrapper(refuse)


def child_floor(corpus: Path, files_out: Path | None) -> dict:
    child_setup()
    from apps.ingest.parsers.errors import ParseError

    trace = OpenTrace(corpus)
    with block_database():
        trace.active = True
        started = time.perf_counter()
        items = ingestion.parse_like_the_ingest(corpus)
        wall = time.perf_counter() - started
        trace.active = False
    if files_out:
        files_out.write_text("\n".join(trace.files()))
    errors = sum(isinstance(item, ParseError) for item in items)
    return {
        "wall": wall,
        "runs": len(items) - errors,
        "errors": errors,
        "files": len(trace.files()),
        "bytes": trace.total_bytes(),
    }


def child_read(files: Path) -> dict:
    paths = [p for p in files.read_text().splitlines() if p]
    started = time.perf_counter()
    lines = size = 0
    for path in paths:
        with open(path, "rb") as handle:
            data = handle.read()
        size += len(data)
        lines += len(data.decode("utf-8", errors="replace").splitlines())
    return {"wall": time.perf_counter() - started, "files": len(paths), "bytes": size, "lines": lines}


def child_ingest(corpus: Path) -> dict:
    child_setup()
    from django.db import connection

    from apps.ingest.tools.io500.pipeline import ingest_path
    from apps.results.models import Run

    stats = {"queries": 0, "db_seconds": 0.0}

    def count(execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            stats["queries"] += 1
            stats["db_seconds"] += time.perf_counter() - started

    trace = OpenTrace(corpus)
    with connection.execute_wrapper(count):
        trace.active = True
        started = time.perf_counter()
        summary = ingest_path(corpus)
        wall = time.perf_counter() - started
        trace.active = False
    return {
        "wall": wall,
        "runs": len(summary.created),
        "failed": len(summary.failed),
        "stored": Run.objects.count(),
        "files": len(trace.files()),
        "bytes": trace.total_bytes(),
        **stats,
    }


def run_child(stage: str, corpus: Path, *, env: dict | None = None, files: Path | None = None) -> dict:
    argv = [rig.PYTHON, "-m", "bench", "ingest_corpus", str(corpus), "--child", stage]
    if files:
        argv += ["--files", str(files)]
    measured = timing.run_measured(argv, env=env, timeout=3600)
    if measured.returncode != 0:
        raise RuntimeError(f"{stage} child failed ({measured.returncode}):\n{measured.stderr[-4000:]}")
    result = measured.json()
    result["peak_rss_mib"] = measured.peak_rss_mib
    return result


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench ingest_corpus", description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=ingestion.CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--db", default="ioboard_bench_ingest", help="PostgreSQL database to (re)create and drop")
    parser.add_argument("--keep-db", action="store_true", help="leave the last ingest's database in place")
    output.add_json_option(parser)
    parser.add_argument("--child", choices=["floor", "read", "ingest"], help=argparse.SUPPRESS)
    parser.add_argument("--files", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()

    if args.child == "floor":
        print(json.dumps(child_floor(corpus, args.files)))
        return
    if args.child == "read":
        print(json.dumps(child_read(args.files)))
        return
    if args.child == "ingest":
        print(json.dumps(child_ingest(corpus)))
        return

    if not corpus.is_dir():
        raise SystemExit(f"{corpus}: no such corpus directory")
    if not 1 <= args.repeat <= 20:
        raise SystemExit("--repeat must be between 1 and 20")
    files = Path(os.environ.get("TMPDIR", "/tmp")) / f"ioboard-bench-ingest-files-{os.getpid()}.txt"
    results: dict[str, list[dict]] = {"read": [], "floor": [], "ingest": []}
    try:
        run_child("floor", corpus, files=files)  # warm the page cache and learn the file list (untimed)
        run_child("read", corpus, files=files)
        for attempt in range(1, args.repeat + 1):
            results["read"].append(run_child("read", corpus, files=files))
            results["floor"].append(run_child("floor", corpus, files=files))
            url = databases.fresh_database(args.db)
            results["ingest"].append(run_child("ingest", corpus, env={"DATABASE_URL": url}))
            print(
                f"round {attempt}/{args.repeat}: read {results['read'][-1]['wall']:.2f} s, "
                f"floor {results['floor'][-1]['wall']:.2f} s, ingest {results['ingest'][-1]['wall']:.2f} s"
            )
    finally:
        files.unlink(missing_ok=True)
        if not args.keep_db:
            databases.drop_database(args.db)

    report(corpus, args, results)


def report(corpus: Path, args, results: dict[str, list[dict]]) -> None:
    med = {
        stage: {
            key: statistics.median([r[key] for r in rows])
            for key, value in rows[0].items()
            if isinstance(value, (int, float))
        }
        for stage, rows in results.items()
    }
    floor, ingest, read = med["floor"], med["ingest"], med["read"]
    runs = int(ingest["runs"])
    mb = ingest["bytes"] / 1e6
    rows = [
        [
            "read only (bytes + decoded lines)",
            read["wall"],
            "-",
            "-",
            read["bytes"] / 1e6,
            read["bytes"] / 1e6 / read["wall"],
            med["read"]["peak_rss_mib"],
            "-",
        ],
        [
            "floor: parse only, same files + regexes, no DB",
            floor["wall"],
            int(floor["runs"]),
            floor["runs"] / floor["wall"],
            floor["bytes"] / 1e6,
            floor["bytes"] / 1e6 / floor["wall"],
            floor["peak_rss_mib"],
            0,
        ],
        [
            "ingest into PostgreSQL",
            ingest["wall"],
            runs,
            runs / ingest["wall"],
            mb,
            mb / ingest["wall"],
            ingest["peak_rss_mib"],
            int(ingest["queries"]),
        ],
    ]
    ratio = ingest["wall"] / floor["wall"]
    headers = ["stage", "wall s", "runs", "runs/s", "MB read", "MB/s", "peak RSS MiB", "DB queries"]
    text = output.table(headers, rows)
    all_rounds = "; ".join(f"{stage} " + ", ".join(f"{r['wall']:.2f}" for r in rows) for stage, rows in results.items())
    checks = (
        f"Runs stored: {int(ingest['stored'])} (created {runs}, failed {int(ingest['failed'])}); the floor parsed "
        f"{int(floor['runs'])} runs with {int(floor['errors'])} parse errors. Files read: "
        f"{int(ingest['files'])} by the ingest, {int(floor['files'])} by the floor "
        f"({ingest['bytes'] / 1e6:.2f} MB; MB = 10^6 bytes)."
    )
    db_share = ingest["db_seconds"] / ingest["wall"]
    summary = (
        f"**ingest / floor = {ratio:.2f}x** (target: within 5x). Time inside database calls during the ingest "
        f"(client side, round trips included): {ingest['db_seconds']:.2f} s = {db_share:.0%} of the ingest; "
        f"{ingest['queries'] / max(runs, 1):.1f} queries per run."
    )
    print()
    print(text)
    print()
    print(checks)
    print(summary)
    print(f"all rounds (wall s): {all_rounds}")
    output.write_json(
        args.json,
        {
            "corpus": str(corpus),
            "rounds": args.repeat,
            "medians": med,
            "ingest_over_floor": ratio,
            "queries_per_run": ingest["queries"] / max(runs, 1),
        },
    )
