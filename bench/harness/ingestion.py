"""The ingest as a benchmark sees it: what it must store, and ``manage.py ingest`` timed on generated logs."""

from __future__ import annotations

import argparse
import re
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.harness import output
from rig import PYTHON, REPO_ROOT
from rig.databases import drop_database, fresh_database, psql
from rig.processes import child_env

#: The IO500 corpus in ../shared the corpus-wide benchmarks read (absent on a clean clone).
CORPUS = REPO_ROOT.parent / "shared" / "io500-corpus"


def parse_like_the_ingest(root: Path, overrides: dict | None = None) -> list:
    """What ``ingest_upload`` does before touching the database: find the result sets below root and
    parse each (ParsedRun or ParseError). Kept in one place so the benches follow the service's API."""
    from apps.ingest.tools.io500.pipeline import parse_io500_tree, survey_tree

    return list(parse_io500_tree(root, survey_tree(root)[0], overrides))


def expected_run_identities(archive: Path) -> tuple[set[str], list[str]]:
    """The run identities the ingest of an archive must produce, and its parse failures (Django set up)."""
    from apps.ingest.core.archive import open_input
    from apps.ingest.core.common import archive_caps
    from apps.ingest.parsers.errors import ParseError
    from apps.results.models import Run

    identities, failures = set(), []
    with open_input(archive, **archive_caps()) as root:
        for item in parse_like_the_ingest(root):
            if isinstance(item, ParseError):
                failures.append(str(item))
            else:
                identities.add(Run.make_identity(item.record.content_hash, item.record.source_path))
    return identities, failures


INGEST_SUMMARY_LINE = re.compile(r"(\d+) logs stored \((\d+) points\), (\d+) updated, (\d+) unchanged, (\d+) failed")


def timed_manage(args: list[str], env: dict, timeout: float = 900) -> tuple[float, str]:
    """Run ``manage.py args`` in a child; its wall time (start-up included) and its output."""
    started = time.perf_counter()
    result = subprocess.run(
        [PYTHON, "manage.py", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    wall = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(
            f"manage.py {' '.join(args)} failed ({result.returncode}):\n{result.stdout[-2000:]}"
            f"\n{result.stderr[-2000:]}"
        )
    return wall, result.stdout


def ingest_counts(report: str) -> dict[str, int]:
    """The counts of a log-by-log ingest report (``manage.py ingest --kind ior|mdtest``)."""
    match = INGEST_SUMMARY_LINE.search(report)
    if not match:
        raise SystemExit(f"unexpected ingest report:\n{report[-2000:]}")
    return dict(zip(("stored", "points", "updated", "unchanged", "failed"), map(int, match.groups()), strict=True))


def log_ingest_arguments(name: str, description: str, argv: list[str]) -> argparse.Namespace:
    """The options of a benchmark that times ``manage.py ingest`` on generated logs (``time_log_ingest``):
    how many logs, a PostgreSQL database instead of SQLite, and ``--json``."""
    parser = argparse.ArgumentParser(prog=f"python -m bench {name}", description=description)
    parser.add_argument("--logs", type=int, default=1000)
    parser.add_argument("--postgres", metavar="DATABASE", help="a fresh PostgreSQL database ioboard_* on 127.0.0.1")
    output.add_json_option(parser)
    return parser.parse_args(argv)


@dataclass
class LogIngestTimings:
    """A first ingest of generated logs, the same ingest again (all unchanged), and any commands after."""

    logs: int
    size_mib: float
    database: str
    first_wall: float
    second_wall: float
    first: dict[str, int]
    second: dict[str, int]
    after: dict[str, tuple[float, str]]

    #: The columns of ``rows``.
    HEADERS = ("run", "logs", "points created", "wall s", "logs/s")

    def rows(self) -> list[list]:
        return [
            ["first ingest", self.logs, self.first["points"], self.first_wall, self.logs / self.first_wall],
            ["re-ingest (unchanged)", self.logs, self.second["points"], self.second_wall, self.logs / self.second_wall],
        ]

    def summary(self, logs_named: str, after_reingest: str) -> str:
        """One line to paste into a doc: when, the command, the logs (``logs_named``: "IOR logs"), the two walls
        (``after_reingest`` follows the second's) and where it ran."""
        return (
            f"- {output.now_utc()} · `{output.this_command()}` · {self.logs} {logs_named} ({self.size_mib:.1f} MiB, "
            f"{self.first['points']} points) in {self.first_wall:.1f} s = {self.logs / self.first_wall:.0f} logs/s, "
            f"whole command incl. start-up; re-ingest {self.second_wall:.1f} s{after_reingest} · {self.database} · "
            f"{output.machine_line()}"
        )

    def figures(self) -> dict:
        """The figures ``bench.rows`` reads."""
        return {
            "logs": self.logs,
            "points": self.first["points"],
            "first_seconds": self.first_wall,
            "reingest_seconds": self.second_wall,
            "database": self.database,
        }


def time_log_ingest(
    *,
    kind: str,
    generate: Callable[[Path, int], int],
    logs: int,
    postgres: str | None,
    target: list[str],
    after: dict[str, list[str]] | None = None,
) -> LogIngestTimings:
    """Generate ``logs`` logs with their manifest.csv into a temporary folder and time ``manage.py ingest
    --kind KIND FOLDER TARGET --manifest FOLDER/manifest.csv`` twice, then each command of ``after``, against
    an empty, migrated database (a temporary SQLite file, or the fresh PostgreSQL database ``postgres``).
    Exits if the first ingest did not store every log or the second found any log changed."""
    with tempfile.TemporaryDirectory(prefix=f"ioboard-bench-{kind}-") as scratch:
        folder = Path(scratch) / "logs"
        folder.mkdir()
        count = generate(folder, logs)
        size_mib = sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) / 2**20
        if postgres:
            database = "PostgreSQL " + psql("SHOW server_version", capture=True).strip()
            url = fresh_database(postgres)
        else:
            database = "SQLite (embedded default)"
            url = f"sqlite:///{Path(scratch) / 'bench.sqlite3'}"
        env = child_env({"DATABASE_URL": url})
        try:
            if not postgres:
                timed_manage(["migrate", "--noinput", "-v", "0"], env)
            command = ["ingest", "--kind", kind, str(folder), *target, "--manifest", str(folder / "manifest.csv")]
            first_wall, first_report = timed_manage(command, env)
            second_wall, second_report = timed_manage(command, env)
            after_runs = {name: timed_manage(args, env) for name, args in (after or {}).items()}
        finally:
            if postgres:
                drop_database(postgres)
    first, second = ingest_counts(first_report), ingest_counts(second_report)
    if first["stored"] != count or first["failed"] or second["unchanged"] != count or second["points"]:
        raise SystemExit(f"unexpected outcome: first {first}, second {second}")
    return LogIngestTimings(
        logs=count,
        size_mib=size_mib,
        database=database,
        first_wall=first_wall,
        second_wall=second_wall,
        first=first,
        second=second,
        after=after_runs,
    )
