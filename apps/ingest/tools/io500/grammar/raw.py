"""Raw IOR, mdtest and pfind outputs of one phase: the tool's own view of the run.

These files give what the summaries do not: the exact command line, tool version, task and node
counts, stonewall figures and mdtest item counts. They are streamed line by line (mdtest
``Nodemap:`` lines run to tens of thousands of characters and are skipped without being kept).
Both readers are lenient: a file that is not the expected tool output gives ``None``, a damaged
one gives whatever could be read. Only the first run in a file is used (several launches may be
concatenated); ``launches`` counts them.

mdtest output is read by ``apps.ingest.tools.mdtest.grammar`` (its lenient mode), the one mdtest grammar,
and IOR output by ``apps.ingest.tools.ior.grammar`` (its lenient mode), the one IOR grammar; this module
only picks what an IO500 record needs from the first launch or run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.common import NUMBER, to_float
from apps.ingest.tools.io500.grammar.files import iter_lines, text_lines
from apps.ingest.tools.ior.grammar import IorRun, parse_ior_file
from apps.ingest.tools.mdtest.grammar import RATE, TIME, MdtestLaunch, read_mdtest_lenient

FIND_CSV_HEADER = re.compile(rf"runtime:\s*({NUMBER})\s+rate:\s*({NUMBER})")


@dataclass
class MdtestOutput:
    """What the first mdtest launch in a file printed."""

    version: str = ""
    ntasks: int | None = None
    nnodes: int | None = None
    nodemap_nodes: int | None = None  # MdtestLaunch.nodemap_nodes
    launch_line: int | None = None
    command: str = ""
    command_line: int | None = None
    launches: int = 0
    items_tasks: int | None = None
    items: int | None = None
    item_kind: str = ""
    stonewall_hit: dict[str, float | None] = field(default_factory=dict)  # min/max/avg items per rank
    stonewall_rank_lines: int = 0
    stonewall_rank_done_max: int | None = None
    stonewall_rank_done_sum: int = 0
    stonewall_rank_planned: int | None = None
    rank_shift: int | None = None
    iterations: int | None = None
    rate_label: str = ""
    time_label: str = ""
    rates: dict[str, list[str]] = field(default_factory=dict)  # "File creation" -> printed [max, min, mean, std]
    times: dict[str, list[str]] = field(default_factory=dict)
    rate_lines: dict[str, int] = field(default_factory=dict)
    started: str = ""
    finished: str = ""

    def rate(self, operation: str) -> float | None:
        """Max column of the SUMMARY rate row ``File <operation>`` (ops/s)."""
        row = self.rates.get(f"File {operation}")
        return to_float(row[0]) if row else None

    def seconds(self, operation: str) -> float | None:
        """Max column of the SUMMARY time row (seconds, whatever the table label says)."""
        row = self.times.get(f"File {operation}")
        return to_float(row[0]) if row else None


def parse_ior_output(path: Path, rel: str) -> IorRun | None:
    """The first IOR run in a file, read by the one IOR grammar in lenient mode (IO500 raw files
    are often cut short), or None when the file holds no IOR output."""
    try:
        log = parse_ior_file(path, rel, strict=False)
    except ParseError:
        return None
    return log.runs[0] if log.runs else None


def parse_mdtest_output(path: Path, rel: str) -> MdtestOutput | None:
    """The first mdtest launch in a file, or None when the file holds no mdtest output."""
    log = read_mdtest_lenient(text_lines(path, rel), rel)
    if not log.launches:
        return None
    launch = log.launches[0]
    out = MdtestOutput(
        version=f"mdtest-{launch.version}",
        ntasks=launch.tasks,
        nnodes=launch.nodes,
        nodemap_nodes=launch.nodemap_nodes,
        launch_line=launch.line,
        command=launch.command_line.strip(),
        command_line=launch.command_line_number,
        launches=len(log.launches),
        rank_shift=launch.shifting_ranks_by,
        started=launch.started_at,
        finished=launch.finished_at,
    )
    _first_launch_tables(out, launch)
    return out


def _first_launch_tables(out: MdtestOutput, launch: MdtestLaunch) -> None:
    """Items, stonewall figures and SUMMARY rows; with several task blocks (-f/-l/-s) the first
    block that printed a figure gives it."""
    for block in launch.blocks:
        if out.items is None and block.items is not None:
            out.items_tasks, out.items, out.item_kind = block.tasks, block.items, block.item_kind
        if block.stonewall_hit and not out.stonewall_hit:
            out.stonewall_hit = {key: to_float(value) for key, value in block.stonewall_hit.items()}
        for rank in block.stonewall_ranks:
            out.stonewall_rank_lines += 1
            out.stonewall_rank_done_sum += rank.done
            out.stonewall_rank_done_max = max(out.stonewall_rank_done_max or 0, rank.done)
            out.stonewall_rank_planned = rank.planned
        for table in block.tables:
            out.iterations = table.iterations
            label = table.header.split(":", 1)[0]
            rows = out.times if table.kind == TIME else out.rates
            if table.kind == TIME:
                out.time_label = out.time_label or label
            elif table.kind == RATE:
                out.rate_label = out.rate_label or label
            for row in table.rows:
                if row.label not in rows:
                    rows[row.label] = list(row.printed().values())
                    if table.kind == RATE:
                        out.rate_lines[row.label] = row.line


def parse_find_csv(path: Path, rel: str) -> dict[str, float] | None:
    """``runtime: <s> rate: <files/s>`` from the first line of the C app's ``find.csv``."""
    for _, line in iter_lines(path, rel):
        match = FIND_CSV_HEADER.search(line)
        return {"runtime": float(match.group(1)), "rate": float(match.group(2))} if match else None
    return None
