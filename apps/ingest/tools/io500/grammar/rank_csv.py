"""Per-rank CSVs of the IO500 C application, and IOR's stonewall spread.

With ``saveRankPerformanceDetailsCSV`` the C app asks IOR and mdtest for one CSV per phase, one
row per rank (docs/io500-formats.md 2.6):

* ``ior-<phase>.csv``: ``access,rank,runtime-with-openclose,runtime,throughput-withopenclose,
  throughput`` (seconds, bytes/s);
* ``mdtest-<phase>.csv``: ``rank,items,rate-<op>,time-<op>,...`` for 11 operations, an ``all``
  aggregate row first, then one row per rank with empty cells for the operations not run;
* ``find.csv``: ``runtime: <s> rate: <ops/s>``, then ``rank, errors, ..., found, total, checked, ...``
  (comma + space, times with an ``s`` suffix). pfind reports per-rank work, not per-rank time.

A phase's per-rank figures are what separates a slow file system from one slow client: the
aggregate hides a straggler. Plain Python: the ingest pipeline reads, ``apps.results.judgements.rank_stats``
summarises. A malformed CSV is a ``ParseError`` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lines import capped

# mdtest phase suffix -> the CSV operation its score comes from
MDTEST_CSV_OPERATION = {
    "write": "File creation",
    "stat": "File stat",
    "read": "File read",
    "delete": "File removal",
}
STONEWALL_SPREAD = re.compile(r"stonewalling pairs accessed min:\s*(\d+)\s+max:\s*(\d+)")
FIND_HEADER = re.compile(r"runtime:\s*(\S+)\s+rate:\s*(\S+)")


@dataclass
class RankSample:
    """One rank's share of a phase: its runtime (s) and its throughput (bytes/s) or rate (ops/s)."""

    rank: int
    runtime: float
    throughput: float


@dataclass
class RankTable:
    """The per-rank rows of one phase, and where they were read."""

    phase: str
    tool: str  # "ior" or "mdtest"
    samples: list[RankSample]
    source_file: str
    stonewall_pairs: dict[str, int] = field(default_factory=dict)  # IOR writes: {"min": .., "max": ..}


@dataclass
class FindRanks:
    """``find.csv``: the overall runtime and rate, and each rank's work counters."""

    runtime: float
    rate: float
    ranks: list[dict[str, float | int]]
    source_file: str


def _number(text: str, rel: str, line: int) -> float:
    try:
        return float(text.strip().rstrip("s"))
    except ValueError:
        raise ParseError(rel, line, f"not a number: {text!r}") from None


def _rank(text: str, rel: str, line: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ParseError(rel, line, f"not a rank number: {text!r}") from None


def _rows(text: str, rel: str, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """The rows after the header, numbered from 2; a line over the cap, or one csv cannot read (an unclosed
    quote, a field over csv's own limit), is refused."""
    reader = csv.DictReader(capped(io.StringIO(text).readlines(), rel, strict=True))
    try:
        missing = [column for column in required if column not in (reader.fieldnames or [])]
        if missing:
            raise ParseError(rel, 1, f"per-rank CSV without column(s) {', '.join(missing)}")
        return [(number, row) for number, row in enumerate(reader, start=2)]
    except csv.Error as error:
        # The csv reader's own count: DictReader's line_num is only updated after a row is read whole.
        raise ParseError(rel, reader.reader.line_num, f"not a CSV row: {error}") from None


def parse_ior_rank_csv(text: str, rel: str, phase: str) -> RankTable:
    """IOR's per-rank CSV: ``runtime`` (without open/close) and ``throughput`` of every rank."""
    samples = [
        RankSample(
            rank=_rank(row["rank"], rel, line),
            runtime=_number(row["runtime"], rel, line),
            throughput=_number(row["throughput"], rel, line),
        )
        for line, row in _rows(text, rel, ("access", "rank", "runtime", "throughput"))
    ]
    if not samples:
        raise ParseError(rel, None, "per-rank CSV without a rank row")
    return RankTable(phase=phase, tool="ior", samples=samples, source_file=rel)


def parse_mdtest_rank_csv(text: str, rel: str, phase: str, operation: str) -> RankTable:
    """mdtest's per-rank CSV: ``time-<operation>`` and ``rate-<operation>`` of every rank (``all`` skipped)."""
    time_column, rate_column = f"time-{operation}", f"rate-{operation}"
    samples = []
    for line, row in _rows(text, rel, ("rank", time_column, rate_column)):
        if row["rank"].strip() == "all" or not (row[time_column] or "").strip():
            continue
        samples.append(
            RankSample(
                rank=_rank(row["rank"], rel, line),
                runtime=_number(row[time_column], rel, line),
                throughput=_number(row[rate_column], rel, line),
            )
        )
    if not samples:
        raise ParseError(rel, None, f"per-rank CSV without a rank row for {operation}")
    return RankTable(phase=phase, tool="mdtest", samples=samples, source_file=rel)


def parse_find_csv(text: str, rel: str) -> FindRanks:
    lines = capped(text.splitlines(), rel, strict=True)
    header = FIND_HEADER.match(lines[0]) if lines else None
    if header is None:
        raise ParseError(rel, 1, "find.csv does not start with 'runtime: <s> rate: <ops/s>'")
    if len(lines) < 2:
        raise ParseError(rel, 2, "find.csv without a column header")
    columns = [name.strip() for name in lines[1].split(",")]
    ranks = []
    for number, line in enumerate(lines[2:], start=3):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in line.split(",")]
        if len(cells) != len(columns):
            raise ParseError(rel, number, f"{len(cells)} cells where the header has {len(columns)}")
        ranks.append({name: _number(cell, rel, number) for name, cell in zip(columns, cells, strict=True)})
    return FindRanks(
        runtime=_number(header.group(1), rel, 1), rate=_number(header.group(2), rel, 1), ranks=ranks, source_file=rel
    )


def stonewall_spread(text: str) -> dict[str, int]:
    """IOR's "stonewalling pairs accessed min: .. max: .." line: how unevenly ranks got through."""
    match = STONEWALL_SPREAD.search(text)
    return {"min": int(match.group(1)), "max": int(match.group(2))} if match else {}


def phase_of_csv(file_name: str) -> str | None:
    """``ior-rnd4K-easy-read.csv`` -> ``ior_rnd4k_easy_read``; None for files that are not per-rank CSVs."""
    stem = file_name.removesuffix(".csv")
    if stem == file_name or not stem.startswith(("ior-", "mdtest-")):
        return None
    return stem.lower().replace("-", "_")


def rank_tables(files: Mapping[str, Path], rel_of: Callable[[Path], str]) -> dict[str, RankTable]:
    """Every per-rank CSV of a C-app result directory (``files``: name -> path), by phase name.

    ``rel_of(path)`` gives the path to report (relative to the ingested root). The IOR stonewall
    spread is read from the phase's text output next to the CSV when it is there.
    """
    tables: dict[str, RankTable] = {}
    for _, path in sorted(files.items()):
        phase = phase_of_csv(path.name)
        if phase is None:
            continue
        rel = rel_of(path)
        text = path.read_text(encoding="utf-8", errors="replace")
        if phase.startswith("ior_"):
            table = parse_ior_rank_csv(text, rel, phase)
            output = files.get(path.with_suffix(".txt").name)
            if output is not None:
                table.stonewall_pairs = stonewall_spread(output.read_text(encoding="utf-8", errors="replace"))
        else:
            operation = MDTEST_CSV_OPERATION.get(phase.rsplit("_", 1)[-1])
            if operation is None:
                continue
            table = parse_mdtest_rank_csv(text, rel, phase, operation)
        tables[phase] = table
    return tables
