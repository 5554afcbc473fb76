"""Where an mdtest log sits in a DNE scaling series: MDT count, clients, directory load, striping.

mdtest never prints how many MDTs served the namespace or whether the directory striping was
inherited (``lfs setdirstripe -D``), so that has to come from the person who ran the campaign:

1. a manifest CSV (``log, mdt_count, client_nodes, tasks, files_per_dir, striping, label``; ``log``
   relative to the manifest's folder; any other cell may be empty), when there is one;
2. otherwise, or for the cells left empty, what the log and its location say: tasks and nodes
   from the launch line, -u from the command line, the directory load from mdtest's
   ``<n> tasks, <m> files`` line (or the path's ``100k`` when it agrees), and the MDT count and
   striping from names in the log's path or in the command line (``dne2_8_mds``, ``8mdt``,
   ``mdt8``, ``non-inherited``).

An MDT count is never guessed: when no source names one, or the sources disagree, the log is
reported by name (``LogPlacement.mdt_count`` is None and ``mdt_problem`` says why).

Plain Python: no Django, so the rules can be tested on their own.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.values import csv_rows, read_manifest_text
from apps.ingest.tools.mdtest.grammar import (
    MAX_COUNT,
    MAX_ITEMS,
    RATE,
    STONEWALL_SUFFIX,
    TIME,
    MdtestLaunch,
    MdtestLog,
    MdtestSummaryRow,
    TaskBlock,
)

MANIFEST_COLUMNS = ("log", "mdt_count", "client_nodes", "tasks", "files_per_dir", "striping", "label")
MANIFEST_NAME = "manifest.csv"
MAX_LABEL_LENGTH = 255

INHERITED = "inherited"
NON_INHERITED = "non-inherited"
UNKNOWN = "unknown"
STRIPING_CHOICES = (INHERITED, NON_INHERITED, UNKNOWN)
# How campaigns write the striping; "-D" is the ``lfs setdirstripe`` flag that makes it inherited.
_STRIPING_SPELLINGS = {
    "inherited": INHERITED,
    "inherit": INHERITED,
    "-d": INHERITED,
    "non-inherited": NON_INHERITED,
    "noninherited": NON_INHERITED,
    "non_inherited": NON_INHERITED,
    "non inherited": NON_INHERITED,
    "not-inherited": NON_INHERITED,
    "not inherited": NON_INHERITED,
    "unknown": UNKNOWN,
    "": UNKNOWN,
}

# "dne2_8_mds", "8mdt", "16-MDTs", "4mds"  /  "mdt8", "mds_16", "MDTs=4".
_COUNT_BEFORE_WORD = re.compile(r"(?<![a-z0-9.])(\d{1,4})[-_ ]?(?:mdts|mdt|mdss|mds)(?![a-z])")
_COUNT_AFTER_WORD = re.compile(r"(?<![a-z])(?:mdts|mdt|mdss|mds)[-_= ]?(\d{1,4})(?![0-9])")
# "unique_100k_240", "shared_10000_20", "1m_files": counts a campaign names its directory load by.
_NAMED_COUNT = re.compile(r"(?<![a-z0-9.])(\d+)([km]?)(?![a-z0-9])")
_NON_INHERITED_WORD = re.compile(r"(?:non|not|no|un)[-_ ]?inherit")
_INHERITED_WORD = re.compile(r"inherit")


@dataclass(frozen=True)
class ManifestEntry:
    """One manifest row; None (or "" for the label) means "infer it from the log"."""

    log: str
    line: int
    mdt_count: int | None = None
    client_nodes: int | None = None
    tasks: int | None = None
    files_per_dir: int | None = None
    striping: str | None = None
    label: str = ""


@dataclass
class Manifest:
    path: Path
    entries: dict[Path, ManifestEntry]

    def entry_for(self, log_path: Path) -> ManifestEntry | None:
        return self.entries.get(Path(log_path).resolve())

    def __len__(self) -> int:
        return len(self.entries)


def read_manifest(path: str | Path) -> Manifest:
    """Read a manifest file; errors name the file and the CSV line."""
    path = Path(path)
    return parse_manifest(read_manifest_text(path, str(path)), name=str(path), folder=path.resolve().parent)


def parse_manifest(text: str, *, name: str, folder: Path) -> Manifest:
    """Manifest rows keyed by the resolved path of their log (``log`` is relative to ``folder``)."""
    rows = csv_rows(text, name)
    header = [column.strip().lower() for column in next(rows, (1, []))[1]]
    if "log" not in header:
        raise ParseError(name, 1, f"a manifest needs a 'log' column; columns are {', '.join(MANIFEST_COLUMNS)}")
    unknown = [column for column in header if column and column not in MANIFEST_COLUMNS]
    if unknown:
        raise ParseError(name, 1, f"unknown manifest column(s) {unknown}; expected {', '.join(MANIFEST_COLUMNS)}")
    entries: dict[Path, ManifestEntry] = {}
    for line, row in rows:
        if len(row) > len(header):
            raise ParseError(name, line, "more cells than columns")
        cells = {key: value.strip() for key, value in zip(header, row, strict=False)}
        if not any(cells.values()):
            continue
        log = cells.get("log", "")
        if not log:
            raise ParseError(name, line, "the 'log' cell is empty")
        if "\x00" in log:
            raise ParseError(name, line, "the 'log' cell holds a NUL byte")
        entry = ManifestEntry(
            log=log,
            line=line,
            mdt_count=_positive_int(cells.get("mdt_count", ""), "mdt_count", name, line),
            client_nodes=_positive_int(cells.get("client_nodes", ""), "client_nodes", name, line),
            tasks=_positive_int(cells.get("tasks", ""), "tasks", name, line),
            files_per_dir=_positive_int(cells.get("files_per_dir", ""), "files_per_dir", name, line),
            striping=_manifest_striping(cells.get("striping", ""), name, line),
            label=cells.get("label", ""),
        )
        if len(cells.get("label", "")) > MAX_LABEL_LENGTH:
            raise ParseError(name, line, f"the label is longer than {MAX_LABEL_LENGTH} characters")
        resolved = (folder / log).resolve()
        if resolved in entries:
            raise ParseError(name, line, f"{log!r} is listed twice (first on line {entries[resolved].line})")
        entries[resolved] = entry
    return Manifest(path=Path(name), entries=entries)


def _positive_int(cell: str, column: str, name: str, line: int) -> int | None:
    if cell == "":
        return None
    try:
        value = int(cell) if len(cell) <= 20 else None
    except ValueError:
        value = None
    if value is None:
        raise ParseError(name, line, f"{column} must be a whole number, not {cell[:40]!r}")
    limit = MAX_ITEMS if column == "files_per_dir" else MAX_COUNT
    if not 1 <= value <= limit:
        raise ParseError(name, line, f"{column} must be between 1 and {limit}, not {value}")
    return value


def _manifest_striping(cell: str, name: str, line: int) -> str | None:
    if cell == "":
        return None
    striping = _STRIPING_SPELLINGS.get(" ".join(cell.lower().split()))
    if striping is None:
        raise ParseError(name, line, f"striping must be one of {', '.join(STRIPING_CHOICES)}, not {cell!r}")
    return striping


@dataclass(frozen=True)
class MdtCountEvidence:
    """What one text says about the MDT count: the counts it names (several = ambiguous)."""

    source: str
    counts: frozenset[int]


def mdt_counts_named_in(text: str) -> frozenset[int]:
    """Every MDT count a path or command line names. A 0 (``mdt0``) is an MDT index, not a count,
    and is kept so the caller can see the text is about indices and refuse to read a count from it."""
    lowered = text.lower()
    found = {int(match) for match in _COUNT_BEFORE_WORD.findall(lowered)}
    found |= {int(match) for match in _COUNT_AFTER_WORD.findall(lowered)}
    return frozenset(found)


def infer_mdt_count(evidence: list[MdtCountEvidence]) -> tuple[int | None, str]:
    """One MDT count from the evidence, or None and the reason. Sources that name nothing are
    ignored; a source naming several counts (or an index 0), or two sources disagreeing, is a
    conflict, and a conflict is reported rather than resolved by preference."""
    named = [item for item in evidence if item.counts]
    if not named:
        return None, "no MDT count in the manifest, the log's path or its command line"
    for item in named:
        if len(item.counts) > 1 or 0 in item.counts:
            return None, f"the {item.source} names several MDT counts or an MDT index: {sorted(item.counts)}"
    counts = {next(iter(item.counts)) for item in named}
    if len(counts) > 1:
        listing = "; ".join(f"{item.source}: {next(iter(item.counts))}" for item in named)
        return None, f"the MDT count is ambiguous ({listing})"
    return counts.pop(), named[0].source


def infer_files_per_dir(block: TaskBlock, source_file: str) -> int | None:
    """The directory load of a block: what the campaign calls it in the log's path when that name
    agrees with mdtest's count, else mdtest's own ``<m> files`` count.

    A campaign holds the load constant while it scales clients by passing ``-I load/tasks``, and
    mdtest prints ``tasks * (load // tasks)``: 100k files on 240 tasks print as 99840. Taking the
    printed count would split one load into as many groups as there are client counts, so a number
    in the path (``100k``) that rounds down to the printed count is preferred."""
    if block.items is None:
        return None
    consistent = set()
    for digits, multiplier in _NAMED_COUNT.findall(source_file.lower()):
        value = int(digits) * {"": 1, "k": 1000, "m": 1_000_000}[multiplier]
        if value >= block.items and value // block.tasks * block.tasks == block.items:
            consistent.add(value)
    return consistent.pop() if len(consistent) == 1 else block.items


def infer_striping(*texts: str) -> str:
    """``inherited``/``non-inherited`` when the names say so unambiguously, else ``unknown``."""
    verdicts = set()
    for text in texts:
        lowered = text.lower()
        if _NON_INHERITED_WORD.search(lowered):
            verdicts.add(NON_INHERITED)
            lowered = _NON_INHERITED_WORD.sub(" ", lowered)
        if _INHERITED_WORD.search(lowered):
            verdicts.add(INHERITED)
    return verdicts.pop() if len(verdicts) == 1 else UNKNOWN


@dataclass
class LaunchPlacement:
    """Campaign coordinates of one launch; ``mdt_count`` None means it cannot be known."""

    launch_index: int
    mdt_count: int | None
    mdt_source: str
    mdt_problem: str = ""


@dataclass
class LogPlacement:
    """Campaign coordinates of every launch of a log, plus the manifest row that applied."""

    source_file: str
    entry: ManifestEntry | None
    striping: str
    launches: list[LaunchPlacement]
    warnings: list[str] = field(default_factory=list)

    @property
    def unknown_mdt_launches(self) -> list[LaunchPlacement]:
        return [launch for launch in self.launches if launch.mdt_count is None]


def place_log(log: MdtestLog, *, source_file: str, entry: ManifestEntry | None = None) -> LogPlacement:
    """Decide MDT count and striping for each launch of ``log``, found at ``source_file``
    (the path as the user knows it: relative to the ingested folder, or as given)."""
    striping = (
        entry.striping
        if entry and entry.striping
        else infer_striping(source_file, *(launch.command_line for launch in log.launches))
    )
    placements = []
    for launch in log.launches:
        if entry and entry.mdt_count:
            placements.append(LaunchPlacement(launch.index, entry.mdt_count, "manifest"))
            continue
        evidence = [
            MdtCountEvidence("log path", mdt_counts_named_in(source_file)),
            MdtCountEvidence("command line", mdt_counts_named_in(f"{launch.command_line} {launch.path}")),
        ]
        count, explanation = infer_mdt_count(evidence)
        placements.append(
            LaunchPlacement(launch.index, count, explanation if count else "", "" if count else explanation)
        )
    placement = LogPlacement(source_file=source_file, entry=entry, striping=striping, launches=placements)
    if entry and entry.tasks and log.launches and entry.tasks != log.launches[0].tasks:
        placement.warnings.append(
            f"{source_file}: the manifest says {entry.tasks} tasks, the launch line "
            f"says {log.launches[0].tasks}; the manifest wins"
        )
    return placement


@dataclass
class ScalingPointRecord:
    """One operation of one task block, placed in the campaign: what becomes a ScalingPoint row.

    ``max``/``min``/``mean``/``stddev`` are the rate table's ops/s and ``time_*`` the time table's
    seconds, both exactly as printed (Decimal); ``printed`` keeps the strings of every row that
    belongs to the point (rate, time and the stonewall variants)."""

    mdt_count: int
    client_nodes: int | None
    tasks: int
    files_per_dir: int | None
    striping: str
    unique_dir: bool
    operation: str
    max: Decimal | None
    min: Decimal | None
    mean: Decimal | None
    stddev: Decimal | None
    time_max: Decimal | None
    time_min: Decimal | None
    time_mean: Decimal | None
    time_stddev: Decimal | None
    iterations: int | None
    iteration_values: list[dict[str, str | int]]
    printed: dict[str, dict[str, str]]
    label: str
    source_file: str
    launch_index: int
    block_index: int
    log_hash: str


def scaling_point_records(log: MdtestLog, placement: LogPlacement) -> list[ScalingPointRecord]:
    """Every SUMMARY row of ``log`` as point records; the log must have a known MDT count."""
    entry = placement.entry
    single_block = sum(len(launch.blocks) for launch in log.launches) == 1
    records: list[ScalingPointRecord] = []
    for launch, launch_placement in zip(log.launches, placement.launches, strict=True):
        if launch_placement.mdt_count is None:
            raise ValueError(f"{placement.source_file}: MDT count unknown ({launch_placement.mdt_problem})")
        for block in launch.blocks:
            tasks = entry.tasks if entry and entry.tasks and single_block else block.tasks
            block_point = functools.partial(
                ScalingPointRecord,
                mdt_count=launch_placement.mdt_count,
                client_nodes=entry.client_nodes if entry and entry.client_nodes else _block_nodes(launch, block),
                tasks=tasks,
                files_per_dir=(
                    entry.files_per_dir
                    if entry and entry.files_per_dir
                    else infer_files_per_dir(block, placement.source_file)
                ),
                striping=placement.striping,
                unique_dir=launch.unique_dir,
                iterations=block.iterations,
                label=entry.label if entry else "",
                source_file=placement.source_file,
                launch_index=launch.index,
                block_index=block.index,
                log_hash=log.content_hash,
            )
            records.extend(
                block_point(operation=operation, **_measurements(block, operation))
                for operation in _point_operations(block)
            )
    return records


def _block_nodes(launch: MdtestLaunch, block: TaskBlock) -> int | None:
    """Nodes are printed for the whole launch; a -f/-l/-s block on fewer tasks may use fewer nodes,
    and which ones depends on the MPI rank mapping, so it is only known for the full block."""
    if block.tasks == launch.tasks or launch.nodes == 1:
        return launch.nodes
    return None


def _point_operations(block: TaskBlock) -> list[str]:
    """Operations that become points: every row but the stonewall ones, which belong to theirs."""
    operations = block.operations()
    return [
        name
        for name in operations
        if not (name.endswith(STONEWALL_SUFFIX) and name.removesuffix(STONEWALL_SUFFIX) in operations)
    ]


def _measurements(block: TaskBlock, operation: str) -> dict:
    rate_table, time_table = block.table(RATE), block.table(TIME)
    rate = rate_table.row(operation) if rate_table else None
    time = time_table.row(operation) if time_table else None
    printed: dict[str, dict[str, str]] = {}
    _add_printed(printed, "rate", rate, rate_table.header if rate_table else "")
    _add_printed(printed, "time", time, time_table.header if time_table else "")
    stonewall = operation + STONEWALL_SUFFIX
    _add_printed(printed, "stonewall_rate", rate_table.row(stonewall) if rate_table else None, "")
    _add_printed(printed, "stonewall_time", time_table.row(stonewall) if time_table else None, "")
    iteration_values = [
        {"iteration": value.iteration, "seconds": value.seconds.printed, "rate": value.rate.printed}
        for value in block.iteration_values.get(operation, [])
    ]
    return {
        "max": rate.max.value if rate else None,
        "min": rate.min.value if rate else None,
        "mean": rate.mean.value if rate else None,
        "stddev": rate.stddev.value if rate else None,
        "time_max": time.max.value if time else None,
        "time_min": time.min.value if time else None,
        "time_mean": time.mean.value if time else None,
        "time_stddev": time.stddev.value if time else None,
        "printed": printed,
        "iteration_values": iteration_values,
    }


def _add_printed(printed: dict, key: str, row: MdtestSummaryRow | None, header: str) -> None:
    if row is None:
        return
    printed[key] = {"label": row.label, **row.printed()}
    if header:
        printed[key]["header"] = header
    if row.per_rank:
        printed[key]["per_rank"] = [number.printed for number in row.per_rank]
