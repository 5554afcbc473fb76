"""Parser for mdtest output, from LLNL mdtest 1.7/1.8 to the mdtest bundled with IOR 4.x.

One grammar covers every version because the versions differ only in details the parser can
afford to be liberal about (see ``shared/docs/io500-formats.md`` section 5):

* the launch line says ``nodes`` (1.x) or ``node(s)``; the command line is printed plain, with
  each argument in double quotes (IOR-bundled 1.9.3) or in single quotes (3.3+);
* ``Path``/``FS`` are ``Key: value`` or padded ``Key      : value`` lines, and ``Path`` may be empty;
* the SUMMARY header is ``SUMMARY:``, ``SUMMARY rate:``/``SUMMARY time:`` or carries a unit label
  such as ``(in ops/sec)`` or ``(in ms/op)``; the label lies, so the table *kind* (rate or time)
  comes from the header word and a time table always holds seconds;
* rows are ``Label : a b c d`` with or without the colon, with ``NA`` cells in the stonewall row,
  and seven numbers when ``--showRankStatistics`` adds per-rank Max/Min/Mean in front.

A file may hold several launches (each opened by ``-- started at`` and the launch line, closed by
``-- finished at``), and a launch with ``-f/-l/-s`` holds several ``<n> tasks, <m> files`` blocks,
each with its own SUMMARY table(s) and, with ``-v``, its own per-iteration lines. Lines between
launches (IO500 driver output, IOR runs, ssh warnings) are ignored.

Everything is kept as printed: each number is a ``Decimal`` built from the printed token and the
token itself is kept next to it, so a value stored from here round-trips to the same digits.

Truncated or garbled logs raise ``ParseError`` naming the file and line, never a partial result:
a launch must reach its ``-- finished at`` line, every task block must have a SUMMARY table, and a
line inside a table that starts like a row must be a well-formed row.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from apps.ingest.parsers.records import ParseError

RATE = "rate"
TIME = "time"

# Operations are named from their labels ("Directory creation" -> directory_creation); stonewall
# rows ("File create (stonewall)") after the operation they belong to, with this suffix.
STONEWALL_SUFFIX = "_stonewall"
# Task, node and iteration counts fit a 32-bit column and item counts a 64-bit one; a larger count
# is corruption.
MAX_COUNT = 2**31 - 1
MAX_ITEMS = 10**18

_LABEL = r"(?:Directory|File|Tree)\s+(?:creation|create|stat|read|removal|remove|rename)(?:\s*\(stonewall\))?"
_STARTED = re.compile(r"^\s*-- started at (?P<when>.*?)\s*--\s*$")
_FINISHED = re.compile(r"^\s*-- finished at (?P<when>.*?)\s*--\s*$")
_LAUNCH = re.compile(
    r"^\s*mdtest-(?P<version>\S+) was launched with (?P<tasks>\d+) total task\(s\) "
    r"on (?P<nodes>\d+) (?:node\(s\)|nodes|node)\s*$"
)
_COMMAND = re.compile(r"^\s*Command line used:\s?(?P<command>.*?)\s*$")
_KEY_VALUE = re.compile(r"^(?P<key>Path|FS)\s*:\s?(?P<value>.*?)\s*$")
_RANDOM_SEED = re.compile(r"^\s*random seed:\s*(?P<seed>-?\d+)\s*$")
_STONEWALL_HIT = re.compile(
    r"^\s*Continue stonewall hit min:\s*(?P<min>\S+)\s+max:\s*(?P<max>\S+)\s+avg:\s*(?P<avg>\S+)\s*$"
)
_BLOCK = re.compile(
    r"^\s*(?P<tasks>\d+) tasks?, (?P<items>\d+) (?P<kind>files/directories|files|directories|file|directory)\s*$"
)
_SUMMARY = re.compile(
    r"^\s*SUMMARY(?: (?P<kind>rate|time))?(?: \((?P<unit>[^)]*)\))?\s*: \(of (?P<iterations>\d+) iterations?\)\s*$"
)
_TABLE_HEADER = re.compile(r"^\s*Operation\b.*\bMax\b.*\bMin\b.*\bMean\b.*\bStd\s*Dev\b")
_TABLE_RULE = re.compile(r"^\s*-{3,}(?:\s+-{3,})*\s*$")
_ROW = re.compile(rf"^\s*(?P<label>{_LABEL})\s*:?\s+(?P<values>\S.*?)\s*$")
_ROW_LIKE = re.compile(r"^\s*(?:Directory|File|Tree)\b")
_ITERATION_MARK = re.compile(r"\*\s*iteration\s+(?P<number>\d+)\b[^*]*\*\s*$")
_ITERATION_LINE = re.compile(
    rf"(?:^|\s)(?P<label>{_LABEL})\s*:\s*(?P<seconds>\S+)\s+sec,\s*(?P<rate>\S+)\s+ops/sec\s*$"
)
_NUMBER = re.compile(r"^[-+]?(?:(?P<int>\d+)(?:\.\d*)?|\.\d+)$")
_NOT_A_NUMBER = {"na", "nan", "-nan", "+nan", "inf", "-inf", "+inf"}
# mdtest prints %f, so a rate or a time never has more integer digits than this; a longer token
# is corruption, and refusing it here keeps it out of fixed-precision database columns.
_MAX_INTEGER_DIGITS = 18
# Short options of mdtest (all versions) that take a value; every other letter is a flag.
_OPTIONS_WITH_VALUE = frozenset("abdefGiIlnNOpsVwWxz")


@dataclass(frozen=True)
class PrintedNumber:
    """A number as mdtest printed it; ``value`` is None for NA, nan and inf cells."""

    printed: str
    value: Decimal | None


@dataclass
class SummaryRow:
    """One row of a SUMMARY table: the aggregate over iterations, as printed."""

    operation: str
    label: str
    max: PrintedNumber
    min: PrintedNumber
    mean: PrintedNumber
    stddev: PrintedNumber
    line: int
    per_rank: tuple[PrintedNumber, PrintedNumber, PrintedNumber] | None = None

    def printed(self) -> dict[str, str]:
        return {"max": self.max.printed, "min": self.min.printed, "mean": self.mean.printed,
                "stddev": self.stddev.printed}


@dataclass
class SummaryTable:
    """A ``SUMMARY [rate|time]`` table. ``kind`` comes from the header word, never its unit label."""

    kind: str
    header: str
    unit_label: str
    iterations: int
    line: int
    per_rank_columns: bool = False
    rows: list[SummaryRow] = field(default_factory=list)

    def row(self, operation: str) -> SummaryRow | None:
        return next((row for row in self.rows if row.operation == operation), None)


@dataclass
class IterationValue:
    """A per-iteration line (mdtest -v): rank 0's duration and rate for one iteration."""

    iteration: int
    seconds: PrintedNumber
    rate: PrintedNumber
    line: int


@dataclass
class TaskBlock:
    """The ``<n> tasks, <m> items`` section of a launch; -f/-l/-s launches hold several."""

    index: int
    tasks: int
    items: int | None
    item_kind: str
    line: int
    tables: list[SummaryTable] = field(default_factory=list)
    iteration_values: dict[str, list[IterationValue]] = field(default_factory=dict)
    stonewall_hit: dict[str, str] = field(default_factory=dict)

    def table(self, kind: str) -> SummaryTable | None:
        return next((table for table in self.tables if table.kind == kind), None)

    @property
    def iterations(self) -> int | None:
        return self.tables[0].iterations if self.tables else None

    def operations(self) -> list[str]:
        """Operation names with a SUMMARY row in this block, in printed order, stonewall rows included."""
        names: list[str] = []
        for table in self.tables:
            names.extend(row.operation for row in table.rows if row.operation not in names)
        return names


@dataclass
class MdtestLaunch:
    """One execution of mdtest: its header lines and its task blocks."""

    index: int
    line: int
    version: str
    tasks: int
    nodes: int
    launch_line: str
    started_at: str = ""
    finished_at: str = ""
    command_line: str = ""
    path: str = ""
    filesystem: str = ""
    random_seed: int | None = None
    blocks: list[TaskBlock] = field(default_factory=list)

    @property
    def argv(self) -> list[str]:
        return split_command_line(self.command_line)

    @property
    def options(self) -> dict[str, str | bool]:
        return parse_options(self.argv)

    @property
    def unique_dir(self) -> bool:
        """mdtest -u: every task works in its own directory."""
        return self.options.get("u") is True


@dataclass
class MdtestLog:
    path: str
    content_hash: str
    launches: list[MdtestLaunch]


def split_command_line(command_line: str) -> list[str]:
    """argv from a printed command line; falls back to white space when quotes do not balance
    (mdtest cuts the printed command at 4096 characters)."""
    try:
        return shlex.split(command_line)
    except ValueError:
        return command_line.split()


def parse_options(argv: list[str]) -> dict[str, str | bool]:
    """mdtest's options by letter (or long name), getopt style: ``-uL`` is two flags, ``-n100`` a value."""
    options: dict[str, str | bool] = {}
    arguments = iter(argv[1:])
    for token in arguments:
        if token.startswith("--") and len(token) > 2:
            name, equals, value = token[2:].partition("=")
            options[name] = value if equals else True
        elif token.startswith("-") and len(token) > 1:
            letters = token[1:]
            for position, letter in enumerate(letters):
                if letter in _OPTIONS_WITH_VALUE:
                    rest = letters[position + 1:]
                    options[letter] = rest if rest else next(arguments, "")
                    break
                options[letter] = True
    return options


def looks_like_mdtest_output(text: str) -> bool:
    """Whether a file is meant to be mdtest output (so a failure to parse it is an error to report)
    rather than some other file that sits in a results folder (a manifest, notes, JSON)."""
    return any(
        _LAUNCH.match(line) or _STARTED.match(line) or _SUMMARY.match(line) for line in text.split("\n")
    )


def parse_mdtest_file(path: str | Path, display_name: str | None = None) -> MdtestLog:
    """Parse one file; errors name ``display_name`` (e.g. the path relative to an ingested folder)."""
    name = display_name or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ParseError(name, None, f"cannot read: {exc.strerror or exc}") from exc
    return parse_mdtest_bytes(data, name)


def parse_mdtest_bytes(data: bytes, path: str) -> MdtestLog:
    text = data.decode("utf-8", errors="replace")
    launches = _LogReader(path, text).read()
    return MdtestLog(path=path, content_hash=hashlib.sha256(data).hexdigest(), launches=launches)


def operation_name(label: str) -> str:
    """``File create (stonewall)`` -> ``file_creation_stonewall``; ``Directory stat`` -> ``directory_stat``."""
    stonewall = "(stonewall)" in label
    words = label.replace("(stonewall)", "").lower().split()
    words = [{"create": "creation", "remove": "removal"}.get(word, word) for word in words]
    return "_".join(words) + (STONEWALL_SUFFIX if stonewall else "")


class _LogReader:
    """A line-by-line state machine; one instance reads one file."""

    def __init__(self, path: str, text: str):
        self.path = path
        self.lines = text.split("\n")
        self.launches: list[MdtestLaunch] = []
        self.launch: MdtestLaunch | None = None
        self.block: TaskBlock | None = None
        self.table: SummaryTable | None = None
        self.iteration: int | None = None
        self.pending_start: tuple[str, int] | None = None

    def error(self, line: int | None, message: str) -> ParseError:
        return ParseError(self.path, line, message)

    def read(self) -> list[MdtestLaunch]:
        for number, raw in enumerate(self.lines, start=1):
            line = raw.rstrip("\r")
            if self.table is not None and self._table_line(line, number):
                continue
            self._line(line, number)
        last = len(self.lines)
        if self.table is not None:
            self._close_table(last)
        if self.launch is not None:
            raise self.error(last, f"the file ends inside the launch of line {self.launch.line}: "
                                   "no '-- finished at' line (truncated?)")
        if self.pending_start is not None:
            raise self.error(self.pending_start[1], "'-- started at' is not followed by an mdtest launch line "
                                                    "(truncated?)")
        if not self.launches:
            raise self.error(None, "no mdtest launch ('mdtest-<version> was launched with ...') in this file")
        return self.launches

    def _line(self, line: str, number: int) -> None:
        if match := _STARTED.match(line):
            self._refuse_open_launch(number, "a new '-- started at'")
            if self.pending_start is not None:
                raise self.error(number, f"the launch started at line {self.pending_start[1]} never printed "
                                         "its launch line (truncated?)")
            self.pending_start = (match["when"], number)
            return
        if match := _LAUNCH.match(line):
            self._refuse_open_launch(number, "a new launch line")
            self._open_launch(match, line, number)
            return
        if self.launch is None:
            if _SUMMARY.match(line) or _BLOCK.match(line):
                raise self.error(number, "mdtest results without a launch line before them "
                                         "('mdtest-<version> was launched with ...' missing or garbled)")
            return
        if match := _FINISHED.match(line):
            self._close_launch(match["when"], number)
        elif match := _SUMMARY.match(line):
            self._open_table(match, line, number)
        elif match := _BLOCK.match(line):
            self._open_block(match, number)
        elif match := _COMMAND.match(line):
            self.launch.command_line = self.launch.command_line or match["command"]
        elif match := _KEY_VALUE.match(line):
            self._header_value(match["key"], match["value"])
        elif match := _RANDOM_SEED.match(line):
            self.launch.random_seed = int(match["seed"])
        elif match := _STONEWALL_HIT.match(line):
            self._current_block(number).stonewall_hit = {key: match[key] for key in ("min", "max", "avg")}
        elif match := _ITERATION_MARK.search(line):
            self.iteration = int(match["number"])
        elif match := _ITERATION_LINE.search(line):
            self._iteration_value(match, number)

    def _refuse_open_launch(self, number: int, what: str) -> None:
        if self.launch is not None:
            raise self.error(number, f"{what} before the launch of line {self.launch.line} finished "
                                     "(that launch is truncated)")

    def _open_launch(self, match: re.Match, line: str, number: int) -> None:
        started_at = self.pending_start[0] if self.pending_start else ""
        self.pending_start = None
        self.launch = MdtestLaunch(
            index=len(self.launches), line=number, version=match["version"],
            tasks=self._count(match["tasks"], "task count", number),
            nodes=self._count(match["nodes"], "node count", number),
            launch_line=line.strip(), started_at=started_at,
        )
        self.block = None
        self.iteration = None

    def _header_value(self, key: str, value: str) -> None:
        if key == "Path" and not self.launch.path:
            self.launch.path = value
        elif key == "FS" and not self.launch.filesystem:
            self.launch.filesystem = value

    def _open_block(self, match: re.Match, number: int) -> None:
        self.block = TaskBlock(
            index=len(self.launch.blocks), tasks=self._count(match["tasks"], "task count", number),
            items=self._count(match["items"], "item count", number, MAX_ITEMS), item_kind=match["kind"], line=number,
        )
        self.launch.blocks.append(self.block)
        self.iteration = None

    def _current_block(self, number: int) -> TaskBlock:
        """The block lines belong to; a launch whose ``<n> tasks`` line is missing gets one from its
        launch line, since mdtest without -f/-l/-s runs exactly the launched task count."""
        if self.block is None:
            self.block = TaskBlock(index=len(self.launch.blocks), tasks=self.launch.tasks, items=None,
                                   item_kind="", line=number)
            self.launch.blocks.append(self.block)
        return self.block

    def _open_table(self, match: re.Match, line: str, number: int) -> None:
        block = self._current_block(number)
        kind = match["kind"] or RATE
        if block.table(kind) is not None:
            raise self.error(number, f"a second SUMMARY {kind} table in the task block of line {block.line} "
                                     "(a '<n> tasks, <m> files' line is missing or garbled)")
        self.table = SummaryTable(kind=kind, header=line.strip(), unit_label=match["unit"] or "",
                                  iterations=self._count(match["iterations"], "iteration count", number), line=number)
        block.tables.append(self.table)

    def _table_line(self, line: str, number: int) -> bool:
        """Consume a line while a SUMMARY table is open; False hands it back once the table has ended."""
        table = self.table
        if not line.strip():
            if table.rows:
                self._close_table(number)
            return True
        if _TABLE_HEADER.match(line):
            table.per_rank_columns = "per Rank" in line
            return True
        if _TABLE_RULE.match(line):
            return True
        if match := _ROW.match(line):
            self._add_row(match, number)
            return True
        if _ROW_LIKE.match(line):
            raise self.error(number, f"malformed SUMMARY row: {line.strip()[:120]!r}")
        self._close_table(number)
        return False

    def _add_row(self, match: re.Match, number: int) -> None:
        label = " ".join(match["label"].split())
        operation = operation_name(label)
        if self.table.row(operation) is not None:
            raise self.error(number, f"{label!r} appears twice in the SUMMARY table of line {self.table.line}")
        tokens = match["values"].split()
        expected = 7 if self.table.per_rank_columns else 4
        if len(tokens) != expected:
            raise self.error(number, f"SUMMARY row {label!r} has {len(tokens)} values, expected {expected}")
        numbers = [self._number(token, number) for token in tokens]
        per_rank = tuple(numbers[:3]) if expected == 7 else None
        maximum, minimum, mean, stddev = numbers[-4:]
        self.table.rows.append(SummaryRow(operation=operation, label=label, max=maximum, min=minimum, mean=mean,
                                          stddev=stddev, line=number, per_rank=per_rank))

    def _close_table(self, number: int) -> None:
        table = self.table
        self.table = None
        if not table.rows:
            raise self.error(table.line, "SUMMARY table without rows (truncated or garbled)")
        rate_table = self.block.table(RATE)
        if table.kind == TIME and rate_table is not None:
            rate_operations = [row.operation for row in rate_table.rows]
            time_operations = [row.operation for row in table.rows]
            if rate_operations != time_operations:
                raise self.error(number, f"the SUMMARY time table of line {table.line} has rows "
                                         f"{time_operations}, the rate table of line {rate_table.line} has "
                                         f"{rate_operations} (truncated or garbled)")

    def _iteration_value(self, match: re.Match, number: int) -> None:
        block = self._current_block(number)
        operation = operation_name(" ".join(match["label"].split()))
        values = block.iteration_values.setdefault(operation, [])
        iteration = self.iteration if self.iteration is not None else len(values) + 1
        values.append(IterationValue(iteration=iteration, seconds=self._number(match["seconds"], number),
                                     rate=self._number(match["rate"], number), line=number))

    def _close_launch(self, when: str, number: int) -> None:
        launch = self.launch
        if not launch.blocks:
            raise self.error(number, f"the launch of line {launch.line} finished without any SUMMARY table")
        for block in launch.blocks:
            if not block.tables:
                raise self.error(block.line, f"the task block '{block.tasks} tasks' has no SUMMARY table "
                                             "(truncated or garbled)")
        launch.finished_at = when
        self.launches.append(launch)
        self.launch = None
        self.block = None
        self.iteration = None

    def _count(self, digits: str, what: str, number: int, limit: int = MAX_COUNT) -> int:
        value = int(digits[:20])
        if len(digits) > 19 or value > limit:
            raise self.error(number, f"{what} {digits[:40]} is implausibly large (corrupt log?)")
        return value

    def _number(self, token: str, number: int) -> PrintedNumber:
        match = _NUMBER.match(token)
        if match:
            if len(match["int"] or "") > _MAX_INTEGER_DIGITS:
                raise self.error(number, f"{token[:40]!r} is too long to be an mdtest value")
            return PrintedNumber(token, Decimal(token))
        if token.lower() in _NOT_A_NUMBER:
            return PrintedNumber(token, None)
        raise self.error(number, f"{token[:40]!r} is not a number")
