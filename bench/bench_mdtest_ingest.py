"""mdtest ingest throughput: N generated DNE-campaign logs through ``manage.py ingest --kind mdtest``.

    .venv/bin/python -m bench.bench_mdtest_ingest [--logs 1000] [--postgres ioboard_bench_mdtest] [--no-doc]

Generates a campaign of ``--logs`` mdtest 1.8.3 logs (the format of shared/dne-campaign-sample, with
per-iteration lines; tests/results/campaign_factory.py) and its manifest in a temporary folder, then
runs ``manage.py ingest --kind mdtest FOLDER --series bench --manifest FOLDER/manifest.csv`` in a
child process against an empty, migrated database (a temporary SQLite file, or with --postgres a
fresh PostgreSQL database on 127.0.0.1), timing the whole command: interpreter and Django start-up,
parsing, placement and one transaction per log. The same command is then run a second time to time
an idempotent re-ingest (every log found unchanged). DEBUG is off, so no query log is kept.

Prints the figures and appends a dated line with the command and the machine under
``## mdtest ingest`` in docs/performance.md (the section is created when absent).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from bench import harness  # noqa: E402
from tests.results.campaign_factory import OPERATION_LABELS, CampaignSpec, write_campaign  # noqa: E402

SECTION = "## mdtest ingest"
SERIES = "bench"
MDT_COUNTS = (1, 2, 4, 8, 16)
THREADS = (1, 20, 40, 80, 120, 160, 240, 280, 320, 400)
STRIPINGS = ("inherited", "non-inherited")
LOGS_PER_LOAD = len(MDT_COUNTS) * len(THREADS) * len(STRIPINGS)
SUMMARY_LINE = re.compile(r"(\d+) logs stored \((\d+) points\), (\d+) updated, (\d+) unchanged, (\d+) failed")


def generate(folder: Path, logs: int) -> int:
    """Write a campaign of exactly ``logs`` logs (several directory loads, both stripings); return the count."""
    loads = [10_000 * (index + 1) for index in range(-(-logs // LOGS_PER_LOAD))]
    knees = {(operation, load, striping): MDT_COUNTS[(index + position) % (len(MDT_COUNTS) - 1)]
             for index, operation in enumerate(OPERATION_LABELS) for position, load in enumerate(loads)
             for striping in STRIPINGS}
    write_campaign(folder, CampaignSpec(knees=knees, mdt_counts=MDT_COUNTS, threads=THREADS, seed=logs))
    manifest = folder / "manifest.csv"
    header, *rows = manifest.read_text().splitlines()
    for row in rows[logs:]:
        (folder / row.split(",")[0]).unlink()
    manifest.write_text("\n".join([header, *rows[:logs]]) + "\n")
    return min(logs, len(rows))


def child_env(database_url: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key not in {"DATABASE_URL", "REDIS_URL"}}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "0", "SECRET_KEY": os.urandom(32).hex(),
                "DATABASE_URL": database_url, "LOG_LEVEL": "WARNING", "PYTHONUNBUFFERED": "1"})
    return env


def manage(args: list[str], env: dict, timeout: float = 900) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run([harness.PYTHON, "manage.py", *args], cwd=REPO_ROOT, env=env, capture_output=True,
                            text=True, timeout=timeout, check=False)
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"manage.py {' '.join(args)} failed ({result.returncode}):\n{result.stdout[-2000:]}"
                         f"\n{result.stderr[-2000:]}")
    return wall, result.stdout


def counts(report: str) -> dict[str, int]:
    match = SUMMARY_LINE.search(report)
    if not match:
        raise SystemExit(f"unexpected ingest report:\n{report[-2000:]}")
    return dict(zip(("stored", "points", "updated", "unchanged", "failed"), map(int, match.groups()), strict=True))


def append_line(line: str) -> None:
    """Add one line at the end of the ``## mdtest ingest`` section, creating it when absent; the rest of
    the file (other people's sections) is left as it is. Under the same lock as bench/harness.py."""
    doc = harness.DOC
    doc.parent.mkdir(parents=True, exist_ok=True)
    with open(doc, "a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            handle.seek(0)
            text = handle.read() or harness.DOC_HEADER
            if SECTION not in text.split("\n"):
                text = text.rstrip("\n") + f"\n\n{SECTION}\n\nThroughput of `manage.py ingest --kind mdtest` on " \
                       "generated DNE-campaign logs (bench/bench_mdtest_ingest.py), one line per run.\n"
            start = text.split("\n").index(SECTION)
            lines = text.split("\n")
            end = next((index for index in range(start + 1, len(lines)) if lines[index].startswith("## ")),
                       len(lines))
            while end > start + 1 and not lines[end - 1].strip():
                end -= 1
            lines[end:end] = [line] if lines[end - 1].startswith("- ") else ["", line]
            handle.seek(0)
            handle.truncate()
            handle.write("\n".join(lines).rstrip("\n") + "\n")
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    print(f"appended to {doc} under '{SECTION}'")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", type=int, default=1000)
    parser.add_argument("--postgres", metavar="DATABASE", help="a fresh PostgreSQL database ioboard_* on 127.0.0.1")
    parser.add_argument("--no-doc", action="store_true", help="print only; do not touch docs/performance.md")
    options = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ioboard-bench-mdtest-") as scratch:
        folder = Path(scratch) / "campaign"
        folder.mkdir()
        logs = generate(folder, options.logs)
        size_mib = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 2**20
        if options.postgres:
            database = "PostgreSQL " + harness.psql("SHOW server_version", capture=True).strip()
            url = harness.fresh_database(options.postgres)
        else:
            database = "SQLite (embedded default)"
            url = f"sqlite:///{Path(scratch) / 'bench.sqlite3'}"
        env = child_env(url)
        try:
            if not options.postgres:
                manage(["migrate", "--noinput", "-v", "0"], env)
            command = ["ingest", "--kind", "mdtest", str(folder), "--series", SERIES,
                       "--manifest", str(folder / "manifest.csv")]
            first_wall, first_report = manage(command, env)
            second_wall, second_report = manage(command, env)
        finally:
            if options.postgres:
                harness.drop_database(options.postgres)
    first, second = counts(first_report), counts(second_report)
    if first["stored"] != logs or first["failed"] or second["unchanged"] != logs or second["points"]:
        raise SystemExit(f"unexpected outcome: first {first}, second {second}")

    print(harness.table(
        ["run", "logs", "points created", "wall s", "logs/s"],
        [["first ingest", logs, first["points"], first_wall, logs / first_wall],
         ["re-ingest (unchanged)", logs, second["points"], second_wall, logs / second_wall]],
    ))
    line = (f"- {harness.now_utc()} · `{harness.this_command()}` · {logs} logs ({size_mib:.1f} MiB, "
            f"{first['points']} points) in {first_wall:.1f} s = {logs / first_wall:.0f} logs/s, whole command "
            f"incl. start-up; re-ingest {second_wall:.1f} s, 0 new points · {database} · {harness.machine_line()}")
    print(line)
    if not options.no_doc:
        append_line(line)


if __name__ == "__main__":
    main()
