"""Parser for mdtest output, from LLNL mdtest 1.7/1.8 to the mdtest bundled with IOR 4.x.

One grammar covers every version because the versions differ only in details the parser can
afford to be liberal about (see ``docs/io500-formats.md`` section 5):

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

Two modes, one grammar:

* **strict** (``parse_mdtest_file``/``parse_mdtest_bytes``, standalone mdtest uploads): truncated
  or garbled logs raise ``ParseError`` naming the file and line, never a partial result: a launch
  must reach its ``-- finished at`` line, every task block must have a SUMMARY table, and a line
  inside a table that starts like a row must be a well-formed row.
* **lenient** (``read_mdtest_lenient``, the raw outputs inside IO500 result folders): the same
  lines are recognised, but whatever could be read is kept. An IO500 run is judged on its summary;
  its raw mdtest files only add evidence (command line, counts, the tool's own rate), and those
  files are often cut short (a killed job) or hold a second launch. Each problem the strict mode
  would have raised is kept in ``MdtestLog.problems`` instead.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from apps.ingest.parsers.command_line import parse_letter_options, split_command_line
from apps.ingest.parsers.errors import ParseError, ProblemList
from apps.ingest.parsers.lines import capped, capped_lines
from apps.ingest.parsers.values import NOT_A_NUMBER, PrintedNumber

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
# A trimmed value is written "(?:.*\S)?\s*": a lazy ".*?\s*$" retries the trailing spaces from every
# position, quadratic on a long run of them (tests/ingest/parsers/test_linear_grammars.py).
_STARTED = re.compile(r"^\s*-- started at (?P<when>(?:.*\S)?)\s*--\s*$")
_FINISHED = re.compile(r"^\s*-- finished at (?P<when>(?:.*\S)?)\s*--\s*$")
_LAUNCH = re.compile(
    r"^\s*mdtest-(?P<version>\S+) was launched with (?P<tasks>\d+) total task\(s\) "
    r"on (?P<nodes>\d+) (?:node\(s\)|nodes|node)\s*$"
)
_COMMAND = re.compile(r"^\s*Command line used:\s?(?P<command>(?:.*\S)?)\s*$")
_KEY_VALUE = re.compile(r"^(?P<key>Path|FS)\s*:\s?(?P<value>(?:.*\S)?)\s*$")
_RANDOM_SEED = re.compile(r"^\s*random seed:\s*(?P<seed>-?\d+)\s*$")
_STONEWALL_HIT = re.compile(
    r"^\s*Continue stonewall hit min:\s*(?P<min>\S+)\s+max:\s*(?P<max>\S+)\s+avg:\s*(?P<avg>\S+)\s*$"
)
# Verbose (-v) lines carry a "V-1: Rank   0 Line  2537 " prefix, hence search() for these two.
_STONEWALL_RANK = re.compile(r"stonewall rank (?P<rank>\d{1,12}):\s*(?P<done>\d{1,19}) of (?P<planned>\d{1,19})")
_SHIFTING_RANKS = re.compile(r"Shifting ranks by (?P<shift>\d{1,12})")
_BLOCK = re.compile(
    r"^\s*(?P<tasks>\d+) tasks?, (?P<items>\d+) (?P<kind>files/directories|files|directories|file|directory)\s*$"
)
_SUMMARY = re.compile(
    r"^\s*SUMMARY(?: (?P<kind>rate|time))?(?: \((?P<unit>[^)]*)\))?\s*: \(of (?P<iterations>\d+) iterations?\)\s*$"
)
# The summary table's header words, in order (found one after another: ".*" between them backtracks
# through every combination of their places).
_TABLE_HEADER_WORDS = [
    re.compile(word) for word in (r"^\s*Operation\b", r"\bMax\b", r"\bMin\b", r"\bMean\b", r"\bStd\s*Dev\b")
]
_TABLE_RULE = re.compile(r"^\s*-{3,}(?:\s+-{3,})*\s*$")
_ROW = re.compile(rf"^\s*(?P<label>{_LABEL})(?:\s*:)?\s+(?P<values>\S(?:.*\S)?)\s*$")
_ROW_LIKE = re.compile(r"^\s*(?:Directory|File|Tree)\b")
_ITERATION_MARK = re.compile(r"\*\s*iteration\s+(?P<number>\d+)\b[^*]*\*\s*$")
_ITERATION_LINE = re.compile(
    rf"(?:^|\s)(?P<label>{_LABEL})\s*:\s*(?P<seconds>\S+)\s+sec,\s*(?P<rate>\S+)\s+ops/sec\s*$"
)
_NUMBER = re.compile(r"^[-+]?(?:(?P<int>\d+)(?:\.\d*)?|\.\d+)$")
# mdtest prints %f, so a rate or a time never has more integer digits than this; a longer token
# is corruption, and refusing it here keeps it out of fixed-precision database columns.
_MAX_INTEGER_DIGITS = 18
# Short options of mdtest (all versions) that take a value; every other letter is a flag.
_OPTIONS_WITH_VALUE = frozenset("abdefGiIlnNOpsVwWxz")


@dataclass
class MdtestSummaryRow:
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
        return {
            "max": self.max.printed,
            "min": self.min.printed,
            "mean": self.mean.printed,
            "stddev": self.stddev.printed,
        }


@dataclass
class SummaryTable:
    """A ``SUMMARY [rate|time]`` table. ``kind`` comes from the header word, never its unit label."""

    kind: str
    header: str
    unit_label: str
    iterations: int
    line: int
    per_rank_columns: bool = False
    rows: list[MdtestSummaryRow] = field(default_factory=list)

    def row(self, operation: str) -> MdtestSummaryRow | None:
        return next((row for row in self.rows if row.operation == operation), None)


@dataclass
class IterationValue:
    """A per-iteration line (mdtest -v): rank 0's duration and rate for one iteration."""

    iteration: int
    seconds: PrintedNumber
    rate: PrintedNumber
    line: int


@dataclass(frozen=True)
class StonewallRank:
    """A ``stonewall rank r: done of planned`` line: the items one rank created before the stonewall."""

    rank: int
    done: int
    planned: int


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
    stonewall_ranks: list[StonewallRank] = field(default_factory=list)

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
    command_line_number: int | None = None
    path: str = ""
    filesystem: str = ""
    random_seed: int | None = None
    shifting_ranks_by: int | None = None  # mdtest's own "Shifting ranks by k" line (3.3+, -v)
    #: From the "Nodemap:" line (one character per rank, 1 where the rank shares rank 0's node): its ranks and the
    #: ranks on rank 0's node. mdtest measured the placement itself, so with ranks spread evenly the node count is
    #: their quotient, whatever the launch line's "on N node(s)" says.
    nodemap_ranks: int | None = None
    nodemap_first_node_ranks: int | None = None
    blocks: list[TaskBlock] = field(default_factory=list)

    @property
    def nodemap_nodes(self) -> int | None:
        """The node count the Nodemap shows, when its ranks divide evenly over the nodes."""
        ranks, first = self.nodemap_ranks, self.nodemap_first_node_ranks
        if not ranks or not first or ranks % first:
            return None
        return ranks // first

    @property
    def argv(self) -> list[str]:
        return split_command_line(self.command_line)

    @property
    def rank_shift(self) -> int | None:
        """The ``-N`` rank shift this launch ran with: mdtest's own "Shifting ranks by" line, else
        the option on its command line (0 without one); None when neither was printed."""
        if self.shifting_ranks_by is not None:
            return self.shifting_ranks_by
        return rank_shift_option(self.command_line)

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
    problems: list[ParseError] = field(default_factory=list)  # lenient mode: what strict mode would raise


def parse_options(argv: list[str]) -> dict[str, str | bool]:
    """mdtest's options by letter (or long name), getopt style: ``-uL`` is two flags, ``-n100`` a value."""
    return parse_letter_options(argv, _OPTIONS_WITH_VALUE)


def rank_shift_option(command_line: str) -> int | None:
    """The ``-N <k>`` rank shift of an mdtest command line, quoted or not: 0 when the command line
    has no ``-N``, None when there is no command line or its value is not a number.

    Options are read after the ``mdtest`` program word when there is one, so a launcher's own
    ``-N`` (``srun -N 10 ./mdtest ...``: ten nodes) is not taken for mdtest's.
    """
    argv = split_command_line(command_line or "")
    if not argv:
        return None
    program = next((index for index, word in enumerate(argv) if "mdtest" in word.rsplit("/", 1)[-1]), 0)
    value = parse_options(argv[program:]).get("N")
    if value is None:
        return 0
    digits = str(value).lstrip("=")
    return int(digits) if digits.isdigit() and len(digits) <= 9 else None


def _is_table_header(line: str) -> bool:
    """Whether ``line`` holds the summary table's header words, in order."""
    position = 0
    for word in _TABLE_HEADER_WORDS:
        found = word.search(line, position)
        if found is None:
            return False
        position = found.end()
    return True


def looks_like_mdtest_output(text: str) -> bool:
    """Whether a file is meant to be mdtest output (so a failure to parse it is an error to report)
    rather than some other file that sits in a results folder (a manifest, notes, JSON)."""
    return any(
        _LAUNCH.match(line) or _STARTED.match(line) or _SUMMARY.match(line)
        for line in capped_lines(text.split("\n"), strict=False)
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
    """Strict: every launch in full, or a ``ParseError`` naming the file and line."""
    text = data.decode("utf-8", errors="replace")
    reader = _LogReader(path, lenient=False)
    launches = reader.read(capped(text.split("\n"), path, strict=True))
    return MdtestLog(path=path, content_hash=hashlib.sha256(data).hexdigest(), launches=launches)


def read_mdtest_lenient(lines: Iterable[str], path: str) -> MdtestLog:
    """Lenient: whatever the lines hold (maybe no launch at all), never an exception for their content.

    ``lines`` are streamed (an IO500 raw file can be large); a launch cut short is kept with an
    empty ``finished_at``, malformed rows and numbers are left out, and each such problem is
    listed in ``problems``. ``content_hash`` stays empty: the caller hashes its own files.
    """
    reader = _LogReader(path, lenient=True)
    launches = reader.read(capped_lines(lines, path, strict=False))
    return MdtestLog(path=path, content_hash="", launches=launches, problems=reader.problems)


@functools.lru_cache(maxsize=256)
def operation_name(label: str) -> str:
    """``File create (stonewall)`` -> ``file_creation_stonewall``; ``Directory stat`` -> ``directory_stat``.

    Kept for the labels met again: the grammar's labels are a few dozen, printed in every table of every file."""
    stonewall = "(stonewall)" in label
    words = label.replace("(stonewall)", "").lower().split()
    words = [{"create": "creation", "remove": "removal"}.get(word, word) for word in words]
    return "_".join(words) + (STONEWALL_SUFFIX if stonewall else "")


@functools.lru_cache(maxsize=1024)
def _printed_decimal(token: str) -> PrintedNumber:
    """A number token as its ``PrintedNumber`` (immutable, so one serves every cell that printed it). Kept for the
    tokens met again: an IO500 phase's mdtest table prints 0.000 for every operation the phase did not run, three
    cells in four of the corpus's tables."""
    return PrintedNumber(token, Decimal(token))


def _stonewall_rank(match: re.Match) -> StonewallRank:
    return StonewallRank(rank=int(match["rank"]), done=int(match["done"]), planned=int(match["planned"]))


class _LogReader:
    """A line-by-line state machine; one instance reads one file.

    Every departure from the grammar goes through ``_problem``: strict mode raises it, lenient
    mode records it and carries on as described at each call.
    """

    def __init__(self, path: str, *, lenient: bool):
        self.path = path
        self.lenient = lenient
        self.problems = ProblemList()
        self.launches: list[MdtestLaunch] = []
        self.launch: MdtestLaunch | None = None
        self.block: TaskBlock | None = None
        self.table: SummaryTable | None = None
        self.iteration: int | None = None
        self.pending_start: tuple[str, int] | None = None

    def _problem(self, line: int | None, message: str) -> None:
        problem = ParseError(self.path, line, message)
        if not self.lenient:
            raise problem
        self.problems.add(problem)

    def read(self, lines: Iterable[str]) -> list[MdtestLaunch]:
        last = 0
        for number, raw in enumerate(lines, start=1):
            last = number
            if raw.startswith("Nodemap"):  # one character per rank: tens of thousands, counted and never kept
                self._nodemap(raw)
                continue
            line = raw.rstrip("\r")
            if self.table is not None and self._table_line(line, number):
                continue
            self._line(line, number)
        if self.table is not None:
            self._close_table(last)
        if self.launch is not None:
            self._problem(
                last,
                f"the file ends inside the launch of line {self.launch.line}: no '-- finished at' line (truncated?)",
            )
            self._keep_unfinished_launch()
        if self.pending_start is not None:
            self._problem(
                self.pending_start[1], "'-- started at' is not followed by an mdtest launch line (truncated?)"
            )
        if not self.launches:
            self._problem(None, "no mdtest launch ('mdtest-<version> was launched with ...') in this file")
        return self.launches

    def _nodemap(self, raw: str) -> None:
        launch = self.launch or (self.launches[-1] if self.launches else None)
        if launch is None or launch.nodemap_ranks is not None:
            return
        ranks = raw.split(":", 1)[-1].strip()
        if ranks and set(ranks) <= {"0", "1"}:
            launch.nodemap_ranks, launch.nodemap_first_node_ranks = len(ranks), ranks.count("1")

    def _line(self, line: str, number: int) -> None:
        if match := _STARTED.match(line):
            self._refuse_open_launch(number, "a new '-- started at'")
            if self.pending_start is not None:
                self._problem(
                    number,
                    f"the launch started at line {self.pending_start[1]} never printed its launch line (truncated?)",
                )
            self.pending_start = (match["when"], number)
            return
        if match := _LAUNCH.match(line):
            self._refuse_open_launch(number, "a new launch line")
            self._open_launch(match, line, number)
            return
        if self.launch is None:
            if self.launches and self.pending_start is None and (match := _STONEWALL_RANK.search(line)):
                self._late_stonewall_rank(match)
                return
            if _SUMMARY.match(line) or _BLOCK.match(line):
                self._problem(
                    number,
                    "mdtest results without a launch line before them "
                    "('mdtest-<version> was launched with ...' missing or garbled)",
                )
            return
        if match := _FINISHED.match(line):
            self._close_launch(match["when"], number)
        elif match := _SUMMARY.match(line):
            self._open_table(match, line, number)
        elif match := _BLOCK.match(line):
            self._open_block(match, number)
        elif match := _COMMAND.match(line):
            if not self.launch.command_line:
                self.launch.command_line, self.launch.command_line_number = match["command"], number
        elif match := _KEY_VALUE.match(line):
            self._header_value(match["key"], match["value"])
        elif match := _RANDOM_SEED.match(line):
            self.launch.random_seed = int(match["seed"])
        elif match := _STONEWALL_HIT.match(line):
            block = self._current_block(number)
            block.stonewall_hit = block.stonewall_hit or {key: match[key] for key in ("min", "max", "avg")}
        elif match := _STONEWALL_RANK.search(line):
            self._current_block(number).stonewall_ranks.append(_stonewall_rank(match))
        elif match := _SHIFTING_RANKS.search(line):
            if self.launch.shifting_ranks_by is None:
                self.launch.shifting_ranks_by = int(match["shift"])
        elif match := _ITERATION_MARK.search(line):
            self.iteration = int(match["number"])
        elif match := _ITERATION_LINE.search(line):
            self._iteration_value(match, number)

    def _late_stonewall_rank(self, match: re.Match) -> None:
        """Ranks other than 0 print their "stonewall rank" lines when their output is flushed, which
        can be after rank 0's ``-- finished at``: they belong to the launch that just finished."""
        blocks = self.launches[-1].blocks
        if blocks:
            blocks[-1].stonewall_ranks.append(_stonewall_rank(match))

    def _refuse_open_launch(self, number: int, what: str) -> None:
        """Lenient: the open launch is kept as it stands, unfinished."""
        if self.launch is not None:
            self._problem(
                number, f"{what} before the launch of line {self.launch.line} finished (that launch is truncated)"
            )
            self._keep_unfinished_launch()

    def _keep_unfinished_launch(self) -> None:
        launch = self.launch
        assert launch is not None  # called only while a launch is open
        if self.table is not None:
            self._close_table(self.table.line)
        self.launches.append(launch)
        self.launch = None
        self.block = None
        self.iteration = None

    def _open_launch(self, match: re.Match, line: str, number: int) -> None:
        tasks = self._count(match["tasks"], "task count", number)
        nodes = self._count(match["nodes"], "node count", number)
        if tasks is None or nodes is None:
            return
        started_at = self.pending_start[0] if self.pending_start else ""
        self.pending_start = None
        self.launch = MdtestLaunch(
            index=len(self.launches),
            line=number,
            version=match["version"],
            tasks=tasks,
            nodes=nodes,
            launch_line=line.strip(),
            started_at=started_at,
        )
        self.block = None
        self.iteration = None

    def _header_value(self, key: str, value: str) -> None:
        assert self.launch is not None  # header lines are read only inside a launch
        if key == "Path" and not self.launch.path:
            self.launch.path = value
        elif key == "FS" and not self.launch.filesystem:
            self.launch.filesystem = value

    def _open_block(self, match: re.Match, number: int) -> None:
        tasks = self._count(match["tasks"], "task count", number)
        items = self._count(match["items"], "item count", number, MAX_ITEMS)
        if tasks is None or items is None:
            return
        assert self.launch is not None  # block lines are read only inside a launch
        self.block = TaskBlock(
            index=len(self.launch.blocks), tasks=tasks, items=items, item_kind=match["kind"], line=number
        )
        self.launch.blocks.append(self.block)
        self.iteration = None

    def _current_block(self, number: int) -> TaskBlock:
        """The block lines belong to; a launch whose ``<n> tasks`` line is missing gets one from its
        launch line, since mdtest without -f/-l/-s runs exactly the launched task count."""
        return self.block if self.block is not None else self._open_implicit_block(number)

    def _open_implicit_block(self, number: int) -> TaskBlock:
        assert self.launch is not None  # block lines are read only inside a launch
        self.block = TaskBlock(
            index=len(self.launch.blocks), tasks=self.launch.tasks, items=None, item_kind="", line=number
        )
        self.launch.blocks.append(self.block)
        return self.block

    def _open_table(self, match: re.Match, line: str, number: int) -> None:
        block = self._current_block(number)
        kind = match["kind"] or RATE
        if block.table(kind) is not None:
            self._problem(
                number,
                f"a second SUMMARY {kind} table in the task block of line {block.line} "
                "(a '<n> tasks, <m> files' line is missing or garbled)",
            )
            block = self._open_implicit_block(number)  # lenient: the table starts a block of its own
        iterations = self._count(match["iterations"], "iteration count", number)
        if iterations is None:
            return
        self.table = SummaryTable(
            kind=kind, header=line.strip(), unit_label=match["unit"] or "", iterations=iterations, line=number
        )
        block.tables.append(self.table)

    def _table_line(self, line: str, number: int) -> bool:
        """Consume a line while a SUMMARY table is open; False hands it back once the table has ended."""
        table = self.table
        assert table is not None  # called only while a table is open
        # Rows first, the most frequent lines: a row never reads as a blank line, a header or a rule.
        if match := _ROW.match(line):
            self._add_row(table, match, number)
            return True
        if not line.strip():
            if table.rows:
                self._close_table(number)
            return True
        if _is_table_header(line):
            table.per_rank_columns = "per Rank" in line
            return True
        if _TABLE_RULE.match(line):
            return True
        if _ROW_LIKE.match(line):
            self._problem(number, f"malformed SUMMARY row: {line.strip()[:120]!r}")
            return True  # lenient: the row is left out
        self._close_table(number)
        return False

    def _add_row(self, table: SummaryTable, match: re.Match, number: int) -> None:
        """Lenient: a repeated, short or unreadable row is left out (the first one printed counts)."""
        label = " ".join(match["label"].split())
        operation = operation_name(label)
        if table.row(operation) is not None:
            self._problem(number, f"{label!r} appears twice in the SUMMARY table of line {table.line}")
            return
        tokens = match["values"].split()
        expected = 7 if table.per_rank_columns else 4
        if len(tokens) != expected:
            self._problem(number, f"SUMMARY row {label!r} has {len(tokens)} values, expected {expected}")
            return
        numbers = [value for token in tokens if (value := self._number(token, number)) is not None]
        if len(numbers) != expected:
            return
        per_rank = (numbers[0], numbers[1], numbers[2]) if expected == 7 else None
        maximum, minimum, mean, stddev = numbers[-4:]
        table.rows.append(
            MdtestSummaryRow(
                operation=operation,
                label=label,
                max=maximum,
                min=minimum,
                mean=mean,
                stddev=stddev,
                line=number,
                per_rank=per_rank,
            )
        )

    def _close_table(self, number: int) -> None:
        """Lenient: a table without rows is dropped; rate and time tables may disagree."""
        table, block = self.table, self.block
        assert table is not None  # called only while a table is open,
        assert block is not None  # and a table is always inside a block
        self.table = None
        if not table.rows:
            self._problem(table.line, "SUMMARY table without rows (truncated or garbled)")
            block.tables.remove(table)
            return
        rate_table = block.table(RATE)
        if table.kind == TIME and rate_table is not None:
            rate_operations = [row.operation for row in rate_table.rows]
            time_operations = [row.operation for row in table.rows]
            if rate_operations != time_operations:
                self._problem(
                    number,
                    f"the SUMMARY time table of line {table.line} has rows "
                    f"{time_operations}, the rate table of line {rate_table.line} has "
                    f"{rate_operations} (truncated or garbled)",
                )

    def _iteration_value(self, match: re.Match, number: int) -> None:
        block = self._current_block(number)
        seconds, rate = self._number(match["seconds"], number), self._number(match["rate"], number)
        if seconds is None or rate is None:
            return
        operation = operation_name(" ".join(match["label"].split()))
        values = block.iteration_values.setdefault(operation, [])
        iteration = self.iteration if self.iteration is not None else len(values) + 1
        values.append(IterationValue(iteration=iteration, seconds=seconds, rate=rate, line=number))

    def _close_launch(self, when: str, number: int) -> None:
        """Lenient: a launch without SUMMARY tables still counts (its header lines are evidence)."""
        launch = self.launch
        assert launch is not None  # '-- finished at' is read only inside a launch
        if not launch.blocks:
            self._problem(number, f"the launch of line {launch.line} finished without any SUMMARY table")
        for block in launch.blocks:
            if not block.tables:
                self._problem(
                    block.line, f"the task block '{block.tasks} tasks' has no SUMMARY table (truncated or garbled)"
                )
        launch.finished_at = when
        self.launches.append(launch)
        self.launch = None
        self.block = None
        self.iteration = None

    def _count(self, digits: str, what: str, number: int, limit: int = MAX_COUNT) -> int | None:
        """Lenient: None for an implausible count, and the line is not read."""
        value = int(digits[:20])
        if len(digits) > 19 or value > limit:
            self._problem(number, f"{what} {digits[:40]} is implausibly large (corrupt log?)")
            return None
        return value

    def _number(self, token: str, number: int) -> PrintedNumber | None:
        """Lenient: None for a token that is not a number."""
        match = _NUMBER.match(token)
        if match:
            if len(match["int"] or "") > _MAX_INTEGER_DIGITS:
                self._problem(number, f"{token[:40]!r} is too long to be an mdtest value")
                return None
            return _printed_decimal(token)
        if token.lower() in NOT_A_NUMBER:
            return PrintedNumber(token, None)
        self._problem(number, f"{token[:40]!r} is not a number")
        return None
