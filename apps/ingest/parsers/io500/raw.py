"""Raw IOR, mdtest and pfind outputs of one phase: the tool's own view of the run.

These files give what the summaries do not: the exact command line, tool version, task and node
counts, stonewall figures and mdtest item counts. They are streamed line by line (mdtest
``Nodemap:`` lines run to tens of thousands of characters and are skipped without being kept).
Both parsers are lenient: a file that is not the expected tool output gives ``None``, a damaged
one gives whatever could be read. Only the first run in a file is read (several launches may be
concatenated); ``launches`` counts them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.io500.common import NUMBER, to_float, to_int
from apps.ingest.parsers.io500.files import iter_lines

IOR_HEADER = re.compile(r"^IOR-(\S+?):?\s+MPI Coordinated Test")
IOR_KEY_VALUE = re.compile(r"^([A-Za-z][A-Za-z/()-]*(?: [A-Za-z/()-]+)*)\s*:\s?(.*)$")
IOR_KEYS = {
    "began": "began",
    "command line": "command",
    "machine": "machine",
    "nodes": "nodes",
    "tasks": "tasks",
    "clients per node": "clients_per_node",
    "repetitions": "repetitions",
    "api": "api",
    "access": "access",
    "xfersize": "xfersize",
    "blocksize": "blocksize",
    "aggregate filesize": "aggregate_filesize",
    "stonewallingtime": "stonewalling_time",
    "stonewallingwearout": "stonewall_wearout",
    "finished": "finished",
    "segments": "segments",
    "ordering in a file": "ordering",
}
IOR_MAX = re.compile(rf"^Max (Write|Read):\s+({NUMBER})\s+MiB/sec")
IOR_STONEWALL = re.compile(
    rf"stonewalling pairs accessed min:\s*(\d+)\s+max:\s*(\d+)\s*--\s*min data:\s*({NUMBER})\s*GiB\s+"
    rf"mean data:\s*({NUMBER})\s*GiB\s+time:\s*({NUMBER})s"
)

MDTEST_LAUNCH = re.compile(r"(mdtest-\S+) was launched with (\d{1,12}) total task\(s\) on (\d{1,12}) node")
MDTEST_COMMAND = re.compile(r"^Command line used:\s*(.*)$")
MDTEST_ITEMS = re.compile(
    r"^(\d{1,12}) tasks?, (\d{1,24}) (files/directories|files|directories|file|directory)"
)
MDTEST_STONEWALL_HIT = re.compile(
    rf"Continue stonewall hit min:\s*({NUMBER})\s+max:\s*({NUMBER})\s+avg:\s*({NUMBER})"
)
MDTEST_STONEWALL_RANK = re.compile(r"stonewall rank (\d{1,12}):\s*(\d{1,24}) of (\d{1,24})")
MDTEST_SHIFT = re.compile(r"Shifting ranks by (\d{1,12})")
MDTEST_SUMMARY = re.compile(r"^SUMMARY( rate| time)?( \(in [^)]*\))?: \(of (\d{1,9}) iterations?\)")
MDTEST_ROW = re.compile(
    r"^\s+((?:Directory|File|Tree) (?:creation|stat|read|rename|removal|create \(stonewall\)))(?:\s*:)?\s+"
    r"(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*$"
)
MDTEST_STARTED = re.compile(r"^-- started at (.*?) --")
MDTEST_FINISHED = re.compile(r"^-- finished at (.*?) --")

FIND_CSV_HEADER = re.compile(rf"runtime:\s*({NUMBER})\s+rate:\s*({NUMBER})")


@dataclass
class IorOutput:
    """What one IOR run printed."""

    version: str = ""
    fields: dict[str, str] = field(default_factory=dict)  # normalised option keys -> printed value
    field_lines: dict[str, int] = field(default_factory=dict)
    results: dict[str, dict[str, str]] = field(default_factory=dict)  # "write"/"read" -> column -> value
    result_lines: dict[str, int] = field(default_factory=dict)
    max_mib: dict[str, float] = field(default_factory=dict)  # "write"/"read" -> Max Write/Read MiB/s
    stonewall: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def command(self) -> str:
        return self.fields.get("command", "")

    @property
    def tasks(self) -> int | None:
        return to_int(self.fields.get("tasks"))

    @property
    def nodes(self) -> int | None:
        """``nodes :`` (IOR >= 3.3), else tasks / clients per node (IOR 3.1, 3.2)."""
        nodes = to_int(self.fields.get("nodes"))
        if nodes:
            return nodes
        tasks, per_node = self.tasks, to_int(self.fields.get("clients_per_node"))
        if tasks and per_node and tasks % per_node == 0:
            return tasks // per_node
        return None

    def bandwidth_mib(self, access: str) -> float | None:
        """MiB/s of the first ``write``/``read`` result line, else of ``Max Write``/``Max Read``."""
        value = to_float(self.results.get(access, {}).get("bw(MiB/s)"))
        return value if value is not None else self.max_mib.get(access)

    def total_seconds(self, access: str) -> float | None:
        return to_float(self.results.get(access, {}).get("total(s)"))


@dataclass
class MdtestOutput:
    """What the first mdtest launch in a file printed."""

    version: str = ""
    ntasks: int | None = None
    nnodes: int | None = None
    launch_line: int | None = None
    command: str = ""
    command_line: int | None = None
    launches: int = 0
    items_tasks: int | None = None
    items: int | None = None
    item_kind: str = ""
    stonewall_hit: dict[str, float] = field(default_factory=dict)  # min/max/avg items per rank
    stonewall_rank_lines: int = 0
    stonewall_rank_done_max: int | None = None
    stonewall_rank_done_sum: int = 0
    stonewall_rank_planned: int | None = None
    rank_shift: int | None = None
    iterations: int | None = None
    rate_label: str = ""
    time_label: str = ""
    rates: dict[str, list[str]] = field(default_factory=dict)  # "File creation" -> [max, min, mean, std]
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


def parse_ior_output(path: Path, rel: str) -> IorOutput | None:
    """The first IOR run in a file, or None when the file holds no IOR output."""
    out = IorOutput()
    seen_header = False
    columns: list[str] = []
    in_summary = False
    summary_columns: list[str] = []
    for number, line in iter_lines(path, rel):
        if not seen_header:
            match = IOR_HEADER.match(line)
            if match:
                out.version, seen_header = match.group(1), True
            continue
        if line.startswith("IOR-") and IOR_HEADER.match(line):
            break
        if line.startswith("access") and "bw(MiB/s)" in line:
            columns = line.split()
            continue
        if line.startswith(("write", "read")) and columns and not in_summary:
            cells = line.split()
            if cells[0] in ("write", "read") and cells[0] not in out.results and len(cells) >= 2:
                out.results[cells[0]] = dict(zip(columns, cells, strict=False))
                out.result_lines[cells[0]] = number
            continue
        if line.startswith("Summary of all tests"):
            in_summary = True
            continue
        if in_summary and line.startswith("Operation"):
            summary_columns = line.split()
            continue
        if in_summary and line.startswith(("write", "read")):
            _ior_summary_row(out, summary_columns, line.split())
            continue
        in_summary = False
        if "stonewalling pairs accessed" in line:
            match = IOR_STONEWALL.search(line)
            if match and "pairs_min" not in out.stonewall:
                out.stonewall.update(
                    {
                        "pairs_min": float(match.group(1)),
                        "pairs_max": float(match.group(2)),
                        "min_data_gib": float(match.group(3)),
                        "mean_data_gib": float(match.group(4)),
                        "seconds": float(match.group(5)),
                    }
                )
            continue
        if line.startswith("Max "):
            match = IOR_MAX.match(line)
            if match:
                out.max_mib.setdefault(match.group(1).lower(), float(match.group(2)))
            continue
        if line.startswith(("WARNING", "ior WARNING")):
            if len(out.warnings) < 20:
                out.warnings.append(line.strip()[:300])
            continue
        match = IOR_KEY_VALUE.match(line) if ":" in line[:40] else None
        if match:
            key = IOR_KEYS.get(match.group(1).strip().lower())
            if key and key not in out.fields:
                out.fields[key] = match.group(2).strip()
                out.field_lines[key] = number
    return out if seen_header else None


def _ior_summary_row(out: IorOutput, columns: list[str], cells: list[str]) -> None:
    """Stonewall columns of a ``Summary of all tests`` row (IOR >= 3.3)."""
    for name in ("Stonewall(s)", "Stonewall(MiB)"):
        if name in columns and columns.index(name) < len(cells):
            value = to_float(cells[columns.index(name)])
            if value is not None:
                out.stonewall.setdefault(f"{cells[0]}_{name.lower()}", value)


def parse_mdtest_output(path: Path, rel: str) -> MdtestOutput | None:
    """The first mdtest launch in a file, or None when the file holds no mdtest output."""
    out = MdtestOutput()
    table: dict[str, list[str]] | None = None
    for number, line in iter_lines(path, rel):
        if line.startswith("Nodemap"):
            continue
        match = MDTEST_LAUNCH.search(line) if "was launched" in line else None
        if match:
            out.launches += 1
            if out.launches == 1:
                out.version, out.launch_line = match.group(1), number
                out.ntasks, out.nnodes = int(match.group(2)), int(match.group(3))
            continue
        if out.launches > 1:
            continue
        if line.startswith("-- "):
            started = MDTEST_STARTED.match(line)
            finished = MDTEST_FINISHED.match(line)
            if started and not out.started:
                out.started = started.group(1)
            if finished and not out.finished:
                out.finished = finished.group(1)
            table = None
            continue
        if line.startswith("Command line used") and not out.command:
            match = MDTEST_COMMAND.match(line)
            if match:
                out.command, out.command_line = match.group(1).strip(), number
            continue
        if line.startswith("SUMMARY"):
            match = MDTEST_SUMMARY.match(line)
            if match:
                out.iterations = int(match.group(3))
                is_time = (match.group(1) or "").strip() == "time"
                label = line.split(":", 1)[0]
                table = out.times if is_time else out.rates
                if is_time:
                    out.time_label = out.time_label or label
                else:
                    out.rate_label = out.rate_label or label
            continue
        if table is not None:
            match = MDTEST_ROW.match(line)
            if match:
                table.setdefault(match.group(1), [match.group(i) for i in range(2, 6)])
                if table is out.rates:
                    out.rate_lines.setdefault(match.group(1), number)
                continue
            if not line.strip() and any(table.values()):
                table = None
            continue
        _mdtest_misc_line(out, line)
    return out if out.launches else None


def _mdtest_misc_line(out: MdtestOutput, line: str) -> None:
    if "stonewall" in line:
        match = MDTEST_STONEWALL_HIT.search(line)
        if match and not out.stonewall_hit:
            out.stonewall_hit = {
                "min": float(match.group(1)),
                "max": float(match.group(2)),
                "avg": float(match.group(3)),
            }
            return
        match = MDTEST_STONEWALL_RANK.search(line)
        if match:
            done, planned = int(match.group(2)), int(match.group(3))
            out.stonewall_rank_lines += 1
            out.stonewall_rank_done_sum += done
            out.stonewall_rank_done_max = max(out.stonewall_rank_done_max or 0, done)
            out.stonewall_rank_planned = planned
        return
    if "Shifting ranks" in line:
        match = MDTEST_SHIFT.search(line)
        if match and out.rank_shift is None:
            out.rank_shift = int(match.group(1))
        return
    match = MDTEST_ITEMS.match(line)
    if match and out.items is None:
        out.items_tasks, out.items, out.item_kind = int(match.group(1)), int(match.group(2)), match.group(3)


def parse_find_csv(path: Path, rel: str) -> dict[str, float] | None:
    """``runtime: <s> rate: <files/s>`` from the first line of the C app's ``find.csv``."""
    for _, line in iter_lines(path, rel):
        match = FIND_CSV_HEADER.search(line)
        return {"runtime": float(match.group(1)), "rate": float(match.group(2))} if match else None
    return None
