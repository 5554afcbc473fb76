"""The one reader of IOR output: IOR 2.10.x, 3.0-3.3 and 4.x text, and the JSON summary format.

Every caller reads IOR through this module: the standalone IOR pipeline (parameter studies) in
strict mode, the IO500 raw-output reader in lenient mode. The versions differ in details the
grammar can afford to be liberal about:

* the header is always ``IOR-<version>: MPI Coordinated Test of Parallel I/O``; 2.10 and 3.1 print
  ``Run began:``/``Began:``, ``Command line used:`` and a ``Summary:`` block of tab-indented
  ``key = value`` lines (``clients = 1200 (12 per node)``); 3.2+ print padded ``key : value`` lines,
  a ``TestID`` line per test and an ``Options:`` block (``nodes :`` from 3.3);
* the per-iteration table is ``access bw(MiB/s) block(KiB) ...`` (<= 3.2) or
  ``access bw(MiB/s) IOPS Latency(s) ...`` (3.3+), one ``write``/``read`` row per repetition;
* ``-H`` prints ``hints passed to MPI_File_open() {`` ... ``}`` blocks (each repetition);
* ``Max Write:``/``Max Read:`` lines and the ``Summary of all tests:`` table, whose header names
  vary (``Max (MiB)`` in 2.10, ``Max(MiB)`` later; ``Stonewall(s) Stonewall(MiB)`` from 3.3) and
  whose cells may be ``NA``; IOR >= 3.4 inside the IO500 C app prints neither;
* ``-f`` scripts run several tests in one launch, and files may hold several launches;
* ``-O summaryFormat=JSON`` (3.3+) prints one JSON document with ``tests``/``summary`` arrays.

Values are kept exactly as printed: every cell is the printed token, and numbers are
``PrintedNumber`` (token + ``Decimal``), so a stored value round-trips to the same digits.

Strict mode (the default) raises ``ParseError`` naming the file and line for a garbled or
truncated log: a launch that never reaches its ``Finished`` line, a result or summary row that is
not well formed, a hints block that is never closed, a test without results. Lenient mode (IO500
raw files, which the C app cuts short and surrounds with noise) keeps whatever could be read.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.command_line import parse_letter_options, split_command_line
from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lines import capped, numbered_lines
from apps.ingest.parsers.values import PrintedNumber, printed_number
from apps.results.judgements.anomalies.facts import TaskReordering

OPERATIONS = ("write", "read")
_HEADER = re.compile(r"^\s*IOR-(?P<version>\S+?):?\s+MPI Coordinated Test of Parallel I/O\s*$")
# A trimmed value or key is written "(?:.*\S)?\s*": a lazy ".*?\s*" retries the spaces after it from
# every position, quadratic on a long run of them (tests/ingest/parsers/test_linear_grammars.py).
_COLON_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z][\w/()#-]*(?: [\w/()#-]+)*)\s*:\s?(?P<value>(?:.*\S)?)\s*$")
_EQUALS_KEY_VALUE = re.compile(r"^\s+(?P<key>[A-Za-z](?:[\w ]*\w)?)\s*=\s?(?P<value>(?:.*\S)?)\s*$")
_CLIENTS = re.compile(r"^(?P<tasks>\d+)\s*\((?P<per_node>\d+) per node\)$")
_TEST_STARTED = re.compile(r"^Test (?P<id>\d+) started:\s?(?P<when>(?:.*\S)?)\s*$")
_RESULTS_HEADER = re.compile(r"^\s*access\s+bw\(MiB/s\)")
_RULE = re.compile(r"^\s*-{3,}(?:\s+-{2,})*\s*$")
_HINTS_OPEN = re.compile(r"^\s*(?P<title>hints (?:[^{]*[^{\s])?)\s*\{\s*$")
_HINT = re.compile(r"^\s*(?P<key>\S+)\s*=\s?(?P<value>(?:.*\S)?)\s*$")
_MAX = re.compile(r"^Max (?P<op>Write|Read):\s+(?P<mib>\S+) MiB/sec \((?P<mb>\S+) MB/sec\)\s*$")
_STONEWALL = re.compile(
    r"stonewalling pairs accessed min:\s*(?P<pairs_min>\d+)\s+max:\s*(?P<pairs_max>\d+)\s*--\s*"
    r"min data:\s*(?P<min_data_gib>\S+)\s*GiB\s+mean data:\s*(?P<mean_data_gib>\S+)\s*GiB\s+"
    r"time:\s*(?P<seconds>[\d.]+)s"
)
_SUMMARY_HEADER = re.compile(r"^Operation\s+Max ?\(MiB\)")
# Where IOR's JSON document starts: its top-level object opens with "Version" (3.3+) or "Began" (3.2).
_JSON_DOCUMENT_START = re.compile(r'^[ \t]*\{[ \t]*\r?\n[ \t]*"(?:Version|Began)"', re.MULTILINE)
_JSON_LINE = re.compile(r"^\s*(?:$|[{}\[\]\",]|-?\d|(?:true|false|null)\s*,?\s*$)")
_TEXT_RUN_BEGAN = re.compile(r"^(?:Run )?[Bb]egan\s*:", re.MULTILINE)
# IOR prints doubles with "%.4f": a zero-length phase gives nan or inf, which JSON has no literal for.
_JSON_NON_FINITE = re.compile(r"(:\s*)(-?(?:nan|inf))(?=\s*,?\s*$)", re.IGNORECASE)
# Header names of the summary table that 2.10 prints with a space inside.
_SPACED_COLUMNS = {
    "Max (MiB)": "Max(MiB)",
    "Min (MiB)": "Min(MiB)",
    "Mean (MiB)": "Mean(MiB)",
    "Std Dev": "StdDev",
    "Max (OPs)": "Max(OPs)",
    "Min (OPs)": "Min(OPs)",
    "Mean (OPs)": "Mean(OPs)",
    "Mean (s)": "Mean(s)",
    "Op grep": "Op-grep",
}
# Printed option names (lower case, single spaces) -> field names.
OPTION_KEYS = {
    "api": "api",
    "apiversion": "api_version",
    "test filename": "test_filename",
    "access": "access",
    "type": "type",
    "segments": "segments",
    "ordering in a file": "ordering",
    "ordering inter file": "ordering_inter_file",
    "task offset": "task_offset",
    "nodes": "nodes",
    "tasks": "tasks",
    "clients per node": "clients_per_node",
    "repetitions": "repetitions",
    "xfersize": "xfersize",
    "blocksize": "blocksize",
    "aggregate filesize": "aggregate_filesize",
    "stonewallingtime": "stonewalling_time",
    "stonewallingwearout": "stonewall_wearout",
    "memorybuffer": "memory_buffer",
    "dataaccess": "data_access",
    "gpudirect": "gpu_direct",
}
_LAUNCH_KEYS = {
    "began": "began",
    "run began": "began",
    "command line": "command",
    "command line used": "command",
    "machine": "machine",
    "finished": "finished",
    "run finished": "finished",
}
_TEST_KEYS = {"starttime": "started", "path": "path", "fs": "filesystem"}
# IOR's backend names that differ from the library's usual name: the PnetCDF backend is "NCMPI".
API_ALIASES = {"NCMPI": "PNETCDF"}
# Short options of IOR that take a value; every other letter is a flag (IOR 2.10 getopt, 3.x option table).
_OPTIONS_WITH_VALUE = frozenset("aAbdDfGiIjJlLMNoOpQstTUX")


@dataclass
class IterationResult:
    """One per-iteration row: ``write``/``read`` and every printed column."""

    operation: str
    cells: dict[str, str]
    line: int

    @property
    def bandwidth_mib(self) -> PrintedNumber:
        return printed_number(self.cells.get("bw(MiB/s)", "NA"))

    @property
    def iteration(self) -> int | None:
        text = self.cells.get("iter", "")
        return int(text) if text.isdigit() else None


@dataclass
class IorSummaryRow:
    """One row of ``Summary of all tests``: every column as printed (``NA`` cells included)."""

    operation: str
    cells: dict[str, str]
    line: int
    extra: list[str] = field(default_factory=list)  # cells beyond the printed header (2.10)

    def number(self, column: str) -> PrintedNumber:
        return printed_number(self.cells.get(column, "NA"))

    @property
    def max(self) -> PrintedNumber:
        return self.number("Max(MiB)")

    @property
    def min(self) -> PrintedNumber:
        return self.number("Min(MiB)")

    @property
    def mean(self) -> PrintedNumber:
        return self.number("Mean(MiB)")

    @property
    def stddev(self) -> PrintedNumber:
        return self.number("StdDev")

    @property
    def test_id(self) -> int | None:
        text = self.cells.get("Test#", "")
        return int(text) if text.isdigit() else None


@dataclass
class IorTest:
    """One test of a launch: its options, hints, per-iteration rows and summary rows."""

    index: int
    line: int
    test_id: int | None = None
    started: str = ""
    path: str = ""
    filesystem: str = ""
    options: dict[str, str] = field(default_factory=dict)
    option_lines: dict[str, int] = field(default_factory=dict)
    hints: dict[str, dict[str, str]] = field(default_factory=dict)
    results: list[IterationResult] = field(default_factory=list)
    max: dict[str, PrintedNumber] = field(default_factory=dict)  # "write"/"read" -> Max Write/Read MiB/s
    max_mb: dict[str, PrintedNumber] = field(default_factory=dict)
    summary: list[IorSummaryRow] = field(default_factory=list)
    stonewall: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def reordering(self) -> TaskReordering | None:
        """Task reordering as IOR recorded it for this test (summary columns ``reord reordoff
        reordrand``), or None when the test printed no summary with them."""
        row = next((row for row in self.summary if "reord" in row.cells and "reordrand" in row.cells), None)
        if row is None:
            return None
        constant, random = _integer(row.cells.get("reord")), _integer(row.cells.get("reordrand"))
        if constant is None or random is None:
            return None
        return TaskReordering(
            constant=bool(constant),
            random=bool(random),
            offset=_integer(row.cells.get("reordoff")) if constant else None,
        )

    def iterations(self, operation: str) -> list[IterationResult]:
        return [row for row in self.results if row.operation == operation]

    def summary_row(self, operation: str) -> IorSummaryRow | None:
        return next((row for row in self.summary if row.operation == operation), None)

    def operations(self) -> list[str]:
        """``write``/``read`` in the order the test printed them (summary rows, else result rows)."""
        names = [row.operation for row in self.summary] or [row.operation for row in self.results]
        return list(dict.fromkeys(names))

    @property
    def tasks(self) -> int | None:
        return _integer(self.options.get("tasks"))

    @property
    def api(self) -> str:
        """The I/O library by its usual name (first word of the printed ``api``; NCMPI is PnetCDF)."""
        words = self.options.get("api", "").split()
        name = words[0] if words else ""
        return API_ALIASES.get(name, name)

    @property
    def nodes(self) -> int | None:
        """``nodes :`` (IOR >= 3.3), else tasks / clients per node (2.10-3.2)."""
        nodes = _integer(self.options.get("nodes"))
        if nodes:
            return nodes
        tasks, per_node = self.tasks, _integer(self.options.get("clients_per_node"))
        if tasks and per_node and tasks % per_node == 0:
            return tasks // per_node
        return None


@dataclass
class IorRun:
    """One launch of IOR (one header line): the command, the machine and its tests."""

    index: int
    line: int
    version: str
    began: str = ""
    command: str = ""
    command_line_number: int | None = None
    machine: str = ""
    finished: str = ""
    finished_line: int | None = None
    tests: list[IorTest] = field(default_factory=list)

    @property
    def argv(self) -> list[str]:
        return split_command_line(self.command)

    @property
    def reordering(self) -> TaskReordering | None:
        """Task reordering from the command line (``-C``, ``-Z``, ``-Q``); None when no command was printed."""
        return task_reordering(self.argv) if self.command else None

    def reordering_of(self, test: IorTest) -> TaskReordering | None:
        """A test's reordering: IOR's own summary columns when printed (they hold what a ``-f``
        script set), else the command line."""
        return test.reordering or self.reordering


@dataclass
class IorLog:
    path: str
    content_hash: str
    format: str  # "text" or "json"
    runs: list[IorRun]

    @property
    def tests(self) -> list[IorTest]:
        return [test for run in self.runs for test in run.tests]


def summary_column_names(printed: list[str]) -> list[str]:
    """Header names of the summary table, unique: the second ``StdDev`` (of the OPs columns) becomes
    ``StdDev(OPs)``, the name the JSON reader gives ``OPsSD``."""
    names: list[str] = []
    for name in printed:
        if name in names:
            name = f"{name}(OPs)" if any(n.endswith("(OPs)") for n in names) else f"{name}#{names.count(name) + 1}"
        names.append(name)
    return names


def parse_options(argv: list[str]) -> dict[str, str | bool]:
    """IOR's options by letter (or long name): ``-Q 1``, ``-Q=1``, ``-Q1`` and ``-wr`` (two flags)."""
    return parse_letter_options(argv, _OPTIONS_WITH_VALUE, equals_before_value=True)


def task_reordering(argv: list[str]) -> TaskReordering:
    """The ``-C``/``-Z``/``-Q`` facts of an IOR command line (long option names too).

    ``-Q`` (``taskPerNodeOffset``) counts nodes: with ``-C`` each task reads back what the task
    ``Q`` x tasks-per-node ranks away wrote, the data of the node ``Q`` nodes away (hpc/ior#162)."""
    options = parse_options(argv)
    constant = options.get("C") is True or options.get("reorderTasks") is True
    random = options.get("Z") is True or options.get("reorderTasksRandom") is True
    offset = _integer(str(options.get("Q", options.get("taskPerNodeOffset", ""))))
    if constant and offset is None:
        offset = 1  # IOR's default taskPerNodeOffset
    return TaskReordering(constant=constant, random=random, offset=offset if constant else None)


def looks_like_ior_output(text: str) -> bool:
    """Whether a file is meant to be IOR output (so a failure to parse it is an error to report)."""
    head = text.lstrip()[:4096]
    return bool(re.search(r"IOR-\S+:?\s+MPI Coordinated Test", head)) or (
        head.startswith("{") and '"tests"' in text[:65536]
    )


def parse_ior_file(path: str | Path, display_name: str | None = None, *, strict: bool = True) -> IorLog:
    """Parse one file; errors name ``display_name`` (e.g. the path relative to an ingested folder)."""
    name = display_name or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ParseError(name, None, f"cannot read: {exc.strerror or exc}") from exc
    return parse_ior_bytes(data, name, strict=strict)


def parse_ior_bytes(data: bytes, path: str, *, strict: bool = True) -> IorLog:
    text = data.decode("utf-8", errors="replace").replace("\x00", "\ufffd")
    digest = hashlib.sha256(data).hexdigest()
    # Strict: a line over the cap fails the log, text or JSON, before any pattern reads it; lenient: it is cut.
    lines = capped(text.split("\n"), path, strict=strict)
    json_start = _json_start(text)
    if json_start is not None:
        runs = _JsonReader(path, text[json_start:], strict, first_line=text.count("\n", 0, json_start) + 1).read()
        return IorLog(path=path, content_hash=digest, format="json", runs=runs)
    return IorLog(path=path, content_hash=digest, format="text", runs=_TextReader(path, lines, strict).read())


class _TextReader:
    """A line-by-line state machine over IOR's text output; one instance reads one file."""

    def __init__(self, path: str, lines: list[str], strict: bool):
        self.path = path
        self.strict = strict
        self.lines = lines
        self.runs: list[IorRun] = []
        self.run: IorRun | None = None
        self.test: IorTest | None = None
        self.block = ""  # "", "options" (3.2+), "summary-options" (2.10/3.1), "results"
        self.result_columns: list[str] = []
        self.summary_columns: list[str] | None = None
        self.in_summary = False
        self.hints: tuple[dict[str, str], int] | None = None

    def error(self, line: int | None, message: str) -> ParseError:
        return ParseError(self.path, line, message)

    def read(self) -> list[IorRun]:
        for number, raw in enumerate(self.lines, start=1):
            self._line(raw.rstrip("\r"), number)
        last = len(self.lines) - (1 if self.lines[-1] == "" else 0)
        if not self.runs:
            raise self.error(None, "no IOR header ('IOR-<version>: MPI Coordinated Test of Parallel I/O') in this file")
        if self.strict:
            if self.hints is not None:
                raise self.error(self.hints[1], "hints block is never closed with '}' (truncated?)")
            self._check_run(self.runs[-1], last)
        return self.runs

    def _check_run(self, run: IorRun, last: int) -> None:
        if run.finished_line is None:
            raise self.error(
                last, f"the file ends inside the IOR run of line {run.line}: no 'Finished' line (truncated?)"
            )
        if not run.tests:
            raise self.error(run.line, "this IOR run printed no test")
        for test in run.tests:
            if not test.results and not test.summary:
                raise self.error(test.line, "this IOR test printed no result row and no summary row")

    def _current_test(self, number: int) -> IorTest:
        if self.test is None:
            assert self.run is not None
            self.test = IorTest(index=len(self.run.tests), line=number)
            self.run.tests.append(self.test)
        return self.test

    def _new_test(self, number: int, test_id: int | None) -> IorTest:
        """A new test, or the current one when nothing of it was read yet (a warning may come first)."""
        assert self.run is not None
        test = self.test
        if test is not None and test.test_id is None and not (test.options or test.results or test.hints):
            test.test_id, test.line = test_id, number
        else:
            test = self.test = IorTest(index=len(self.run.tests), line=number, test_id=test_id)
            self.run.tests.append(test)
        self.block, self.result_columns, self.in_summary = "", [], False
        return test

    def _line(self, line: str, number: int) -> None:
        header = _HEADER.match(line)
        if header:
            if self.run is not None and self.strict:
                self._check_run(self.run, number - 1)
            self.run = IorRun(index=len(self.runs), line=number, version=header.group("version"))
            self.runs.append(self.run)
            self.test, self.block, self.result_columns = None, "", []
            self.in_summary, self.summary_columns, self.hints = False, None, None
            return
        if self.run is None:
            return
        if self.hints is not None:
            self._hint_line(line, number)
            return
        stripped = line.strip()
        if self.in_summary and self._summary_line(line, stripped, number):
            return
        if self._marker_line(line, stripped, number):
            return
        if self.block == "results" and self.result_columns and stripped.split(" ", 1)[0] in OPERATIONS:
            self._result_row(stripped, number)
            return
        if self.block == "summary-options":
            match = _EQUALS_KEY_VALUE.match(line)
            if match:
                self._option(match.group("key"), match.group("value"), number)
                return
        match = _COLON_KEY_VALUE.match(line) if ":" in line else None
        if match:
            self._key_value(match.group("key"), match.group("value"), number)

    def _marker_line(self, line: str, stripped: str, number: int) -> bool:
        """Lines that open a section or carry one fact on their own."""
        if stripped.startswith("Summary of all tests"):
            self.in_summary, self.summary_columns = True, None
            return True
        if _SUMMARY_HEADER.match(stripped):  # IOR 2.10 prints the table without the title line
            self.in_summary = True
            return self._summary_line(line, stripped, number)
        if stripped == "Summary:":
            self._current_test(number)
            self.block = "summary-options"
            return True
        if stripped == "Options:":
            self._current_test(number)
            self.block = "options"
            return True
        if stripped == "Results:":
            self._current_test(number)
            self.block = "results"
            return True
        if _RESULTS_HEADER.match(line):
            self._current_test(number)
            self.block, self.result_columns = "results", stripped.split()
            return True
        if _RULE.match(line) or not stripped:
            return True
        opened = _HINTS_OPEN.match(line)
        if opened:
            test = self._current_test(number)
            self.hints = (test.hints.setdefault(opened.group("title"), {}), number)
            return True
        if stripped.startswith("Max "):
            match = _MAX.match(stripped)
            if match:
                test = self._current_test(number)
                operation = match.group("op").lower()
                test.max.setdefault(operation, printed_number(match.group("mib")))
                test.max_mb.setdefault(operation, printed_number(match.group("mb")))
                return True
            if self.strict and stripped.startswith(("Max Write", "Max Read")):
                raise self.error(number, f"malformed '{stripped[:9]}' line")
            return False
        if "stonewalling pairs accessed" in line:
            match = _STONEWALL.search(line)
            if match:
                test = self._current_test(number)
                for key, value in match.groupdict().items():
                    test.stonewall.setdefault(key, value)
            return True
        if stripped.startswith(("WARNING", "ior WARNING")):
            test = self._current_test(number)
            if len(test.warnings) < 20:
                test.warnings.append(stripped[:300])
            return True
        started = _TEST_STARTED.match(stripped)
        if started:
            test = self._new_test(number, int(started.group("id")))
            test.started = started.group("when")
            return True
        return False

    def _key_value(self, key: str, value: str, number: int) -> None:
        assert self.run is not None
        name = " ".join(key.lower().split())
        launch_key = _LAUNCH_KEYS.get(name)
        if launch_key:
            if launch_key == "finished":
                self.run.finished, self.run.finished_line = value, number
                self.block = ""
            elif not getattr(self.run, launch_key):
                setattr(self.run, launch_key, value)
                if launch_key == "command":
                    self.run.command_line_number = number
            return
        if name == "testid":
            self._new_test(number, _integer(value))
            return
        test_key = _TEST_KEYS.get(name)
        if test_key:
            test = self._current_test(number)
            if not getattr(test, test_key):
                setattr(test, test_key, value)
            return
        if self.block == "options" or name in OPTION_KEYS:
            self._option(key, value, number)

    def _option(self, key: str, value: str, number: int) -> None:
        test = self._current_test(number)
        name = " ".join(key.lower().split())
        field_name = OPTION_KEYS.get(name, name.replace(" ", "_"))
        clients = _CLIENTS.match(value) if field_name == "clients" else None
        if clients:  # 2.10/3.1: "clients = 1200 (12 per node)"
            self._set_option(test, "tasks", clients.group("tasks"), number)
            self._set_option(test, "clients_per_node", clients.group("per_node"), number)
            return
        if field_name == "ordering_inter_file" and "=" in value:  # 3.1: "constant task offsets = 1"
            value, _, offset = value.partition("=")
            value = value.strip()
            self._set_option(test, "task_offset", offset.strip(), number)
        self._set_option(test, field_name, value, number)

    @staticmethod
    def _set_option(test: IorTest, name: str, value: str, number: int) -> None:
        if name not in test.options:
            test.options[name] = value
            test.option_lines[name] = number

    def _hint_line(self, line: str, number: int) -> None:
        assert self.hints is not None
        stripped = line.strip()
        if stripped == "}":
            self.hints = None
            return
        match = _HINT.match(line)
        if match:
            self.hints[0].setdefault(match.group("key"), match.group("value"))
        elif self.strict:
            raise self.error(number, f"not a 'key = value' hint inside the hints block of line {self.hints[1]}")

    def _result_row(self, stripped: str, number: int) -> None:
        cells = stripped.split()
        if self.strict:
            if len(cells) != len(self.result_columns):
                raise self.error(
                    number,
                    f"malformed {cells[0]} result row: expected {len(self.result_columns)} "
                    f"columns ({' '.join(self.result_columns)}), read {len(cells)}",
                )
            for cell in cells[1:]:
                if printed_number(cell).value is None and cell.upper() != "NA":
                    raise self.error(number, f"malformed {cells[0]} result row: {cell!r} is not a number")
        elif len(cells) < 2:
            return
        test = self._current_test(number)
        test.results.append(IterationResult(cells[0], dict(zip(self.result_columns, cells, strict=False)), number))

    def _summary_line(self, line: str, stripped: str, number: int) -> bool:
        if stripped.startswith("Operation"):
            header = stripped
            for spaced, joined in _SPACED_COLUMNS.items():
                header = header.replace(spaced, joined)
            self.summary_columns = summary_column_names(header.split())
            return True
        if _RULE.match(line) or (not stripped and self.summary_columns is None):
            return True
        first = stripped.split(" ", 1)[0]
        if self.summary_columns is not None and first in OPERATIONS:
            self._summary_row(stripped.split(), number)
            return True
        if self.summary_columns is not None and first in ("remove",):
            return True
        self.in_summary = False
        return False

    def _summary_row(self, cells: list[str], number: int) -> None:
        assert self.summary_columns is not None
        columns = self.summary_columns
        # Only 2.10 prints cells past its header (#Tasks ... without names); later headers name every cell.
        unheaded_allowed = "#Tasks" not in columns
        if self.strict and (len(cells) < len(columns) or (len(cells) > len(columns) and not unheaded_allowed)):
            raise self.error(
                number, f"malformed {cells[0]} summary row: expected {len(columns)} columns, read {len(cells)}"
            )
        row = IorSummaryRow(cells[0], dict(zip(columns, cells, strict=False)), number, extra=cells[len(columns) :])
        if self.strict:
            for column in ("Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev"):
                cell = row.cells.get(column, "NA")
                if printed_number(cell).value is None and cell.upper() not in ("NA", "NAN", "-NAN"):
                    raise self.error(number, f"malformed {cells[0]} summary row: {column} {cell!r} is not a number")
        self._test_of_summary(row, number).summary.append(row)

    def _test_of_summary(self, row: IorSummaryRow, number: int) -> IorTest:
        assert self.run is not None
        if row.test_id is not None:
            for test in self.run.tests:
                if test.test_id == row.test_id:
                    return test
            same_index = [test for test in self.run.tests if test.test_id is None and test.index == row.test_id]
            if same_index:
                return same_index[0]
        return self._current_test(number)


def _json_start(text: str) -> int | None:
    """Where the JSON document starts, alone (``-O summaryFile=``) or in a captured stdout before any
    text-format header; None for text output.

    Captured stdout holds more than the document: IOR 3.2 prints its banner line first, and launcher
    warnings can come before it (hpc/ior#102).
    """
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return len(text) - len(stripped)
    start = _JSON_DOCUMENT_START.search(text)
    if start is None or _TEXT_RUN_BEGAN.search(text, 0, start.start()) is not None:
        return None
    return start.start()


def _json_document(text: str, first_line: int) -> tuple[str, list[int]]:
    """The JSON document that starts ``text`` (line ``first_line`` of its file), and each of its lines' numbers
    in the file (for error messages).

    When the document goes to stdout it shares it with IOR's log lines: ``-v`` progress ("Commencing write
    performance test: ..."), the stonewall pair count, warnings (hpc/ior#102, #503). A line of the
    document starts with a bracket, a brace, a quote or a comma, or (re-indented by a JSON tool) is a bare
    number or literal; other lines are dropped. Bare ``nan``/``inf`` values are quoted, as IOR's other
    unavailable values are text.
    """
    kept, numbers = [], []
    for number, line in numbered_lines(text.splitlines(), strict=False, first=first_line):
        if not _JSON_LINE.match(line):
            continue
        kept.append(_JSON_NON_FINITE.sub(r'\1"\2"', line))
        numbers.append(number)
    return "\n".join(kept), numbers


class _JsonReader:
    """IOR 3.3+ ``-O summaryFormat=JSON``: one document; numbers are kept as their printed text."""

    RESULT_COLUMNS = {
        "bwMiB": "bw(MiB/s)",
        "iops": "IOPS",
        "latency": "Latency(s)",
        "blockKiB": "block(KiB)",
        "xferKiB": "xfer(KiB)",
        "openTime": "open(s)",
        "wrRdTime": "wr/rd(s)",
        "closeTime": "close(s)",
        "totalTime": "total(s)",
    }
    SUMMARY_COLUMNS = {
        "bwMaxMIB": "Max(MiB)",
        "bwMinMIB": "Min(MiB)",
        "bwMeanMIB": "Mean(MiB)",
        "bwStdMIB": "StdDev",
        "OPsMax": "Max(OPs)",
        "OPsMin": "Min(OPs)",
        "OPsMean": "Mean(OPs)",
        "OPsSD": "StdDev(OPs)",
        "MeanTime": "Mean(s)",
        "TestID": "Test#",
        "numTasks": "#Tasks",
        "tasksPerNode": "tPN",
        "repetitions": "reps",
        "filePerProc": "fPP",
        "reorderTasks": "reord",
        "taskPerNodeOffset": "reordoff",
        "reorderTasksRandom": "reordrand",
        "reorderTasksRandomSeed": "seed",
        "segmentCount": "segcnt",
        "blockSize": "blksiz",
        "transferSize": "xsize",
        "xsizeMiB": "aggs(MiB)",
        "API": "API",
        "ReferenceNumber": "RefNum",
    }

    def __init__(self, path: str, text: str, strict: bool, *, first_line: int = 1):
        self.path, self.text, self.strict, self.first_line = path, text, strict, first_line

    def read(self) -> list[IorRun]:
        document_text, line_numbers = _json_document(self.text, self.first_line)
        try:
            document = json.loads(document_text, parse_float=str, parse_int=str)
        except json.JSONDecodeError as exc:
            if not self.strict:
                return []
            line = line_numbers[min(exc.lineno, len(line_numbers)) - 1] if line_numbers else exc.lineno
            message = f"not a complete IOR JSON document: {exc.msg} (truncated?)"
            raise ParseError(self.path, line, message) from exc
        if not isinstance(document, dict) or not isinstance(document.get("tests"), list):
            raise ParseError(self.path, 1, "an IOR JSON document has a 'tests' array")
        run = IorRun(index=0, line=1, version=str(document.get("Version", "")))
        run.began = str(document.get("Began", ""))
        run.command = str(document.get("Command line", ""))
        run.machine = str(document.get("Machine", ""))
        run.finished = str(document.get("Finished", ""))
        for index, entry in enumerate(document["tests"]):
            run.tests.append(self._test(index, entry))
        summary = document.get("summary") or []
        if not isinstance(summary, list) or not all(isinstance(entry, dict) for entry in summary):
            raise ParseError(self.path, None, "the JSON 'summary' is not a list of objects")
        for entry in summary:
            row = self._summary_row(entry)
            matching = [test for test in run.tests if test.test_id == row.test_id] or run.tests[-1:]
            if not matching:
                raise ParseError(self.path, None, "JSON summary row without a test")
            matching[0].summary.append(row)
        if self.strict:
            for test in run.tests:
                if not test.results and not test.summary:
                    raise ParseError(self.path, None, f"JSON test {test.index} has no results and no summary")
        return [run]

    def _test(self, index: int, entry: dict) -> IorTest:
        if not isinstance(entry, dict):
            raise ParseError(self.path, None, f"JSON test {index} is not an object")
        test = IorTest(index=index, line=1, test_id=_integer(str(entry.get("TestID", ""))))
        test.started, test.path = str(entry.get("StartTime", "")), str(entry.get("Path", ""))
        options = entry.get("Options") or {}
        results = entry.get("Results") or []
        if not isinstance(options, dict) or not isinstance(results, list):
            raise ParseError(self.path, None, f"JSON test {index}: 'Options' is not an object or 'Results' not a list")
        for key, value in options.items():
            name = " ".join(str(key).lower().split())
            test.options.setdefault(OPTION_KEYS.get(name, name.replace(" ", "_")), str(value))
        for number, iteration in enumerate(results):
            for result in iteration if isinstance(iteration, list) else [iteration]:
                if not isinstance(result, dict):
                    message = f"JSON test {index}: a result of iteration {number} is not an object"
                    raise ParseError(self.path, None, message)
                cells = {self.RESULT_COLUMNS.get(str(key), str(key)): str(value) for key, value in result.items()}
                cells.setdefault("iter", str(number))
                operation = cells.get("access", "")
                if operation in OPERATIONS:
                    test.results.append(IterationResult(operation, cells, 1))
        return test

    def _summary_row(self, entry: dict) -> IorSummaryRow:
        cells = {self.SUMMARY_COLUMNS.get(key, key): str(value) for key, value in entry.items()}
        return IorSummaryRow(str(entry.get("operation", "")), cells, 1)


def _integer(text: str | None) -> int | None:
    if text is None:
        return None
    token = text.strip()
    return int(token) if re.fullmatch(r"[-+]?\d{1,18}", token) else None
