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


def _present(cell: str | None, rel: str, line: int) -> str:
    """A cell of the row; one a short row lacks (None, ``_rows``) fails as an internal parser error
    (``result_set.GRAMMAR_BUGS``), as reading ``csv.DictReader``'s None for it did."""
    if cell is None:
        raise LookupError(f"{rel}:{line}: the row is shorter than its header")
    return cell


def _number(text: str | None, rel: str, line: int) -> float:
    text = _present(text, rel, line)
    try:
        return float(text.strip().rstrip("s"))
    except ValueError:
        raise ParseError(rel, line, f"not a number: {text!r}") from None


def _rank(text: str | None, rel: str, line: int) -> int:
    text = _present(text, rel, line)
    try:
        return int(text.strip())
    except ValueError:
        raise ParseError(rel, line, f"not a rank number: {text!r}") from None


def _sample(cells: list[str | None], rel: str, line: int) -> RankSample:
    """A rank's (rank, runtime, throughput or rate) cells, read in that order."""
    rank, runtime, throughput = cells
    return RankSample(
        rank=_rank(rank, rel, line), runtime=_number(runtime, rel, line), throughput=_number(throughput, rel, line)
    )


def _rows(text: str, rel: str, required: tuple[str, ...]) -> list[tuple[int, list[str | None]]]:
    """The cells of the ``required`` columns in each row after the header, numbered from 2 (empty rows skipped, as
    ``csv.DictReader`` does); a cell a short row lacks is None. A line over the cap, or one csv cannot read (an
    unclosed quote, a field over csv's own limit), is refused.

    Only the columns asked for are picked out: a row of an mdtest CSV has 24 cells, and a dict of them all for
    every rank cost more than reading the file. A column named twice is read from its last place, as a dict of
    the row would hold it.
    """
    reader = csv.reader(capped(io.StringIO(text).readlines(), rel, strict=True))
    try:
        header = next(reader, None) or []
        missing = [column for column in required if column not in header]
        if missing:
            raise ParseError(rel, 1, f"per-rank CSV without column(s) {', '.join(missing)}")
        place = {name: index for index, name in enumerate(header)}
        columns = [place[column] for column in required]
        return [
            (number, [row[index] if index < len(row) else None for index in columns])
            for number, row in enumerate(filter(None, reader), start=2)
        ]
    except csv.Error as error:
        raise ParseError(rel, reader.line_num, f"not a CSV row: {error}") from None


def parse_ior_rank_csv(text: str, rel: str, phase: str) -> RankTable:
    """IOR's per-rank CSV: ``runtime`` (without open/close) and ``throughput`` of every rank."""
    samples = [
        _sample(cells, rel, line) for line, (_, *cells) in _rows(text, rel, ("access", "rank", "runtime", "throughput"))
    ]
    if not samples:
        raise ParseError(rel, None, "per-rank CSV without a rank row")
    return RankTable(phase=phase, tool="ior", samples=samples, source_file=rel)


def parse_mdtest_rank_csv(text: str, rel: str, phase: str, operation: str) -> RankTable:
    """mdtest's per-rank CSV: ``time-<operation>`` and ``rate-<operation>`` of every rank (``all`` skipped)."""
    time_column, rate_column = f"time-{operation}", f"rate-{operation}"
    samples = []
    for line, cells in _rows(text, rel, ("rank", time_column, rate_column)):
        rank, runtime, _ = cells
        if _present(rank, rel, line).strip() == "all" or not (runtime or "").strip():
            continue
        samples.append(_sample(cells, rel, line))
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
