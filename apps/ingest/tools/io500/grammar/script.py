"""The 2017-2020 ``io500.sh`` era: ``result_summary.txt``, ``io-500-summary.<TS>.txt`` and SC17 stdout.

Bash summary lines (docs/io500-formats.md section 2.2)::

    [RESULT<inv>] BW   phase 1            ior_easy_write              298.134 GB/s : time 820.62 seconds
    [RESULT<inv>] IOPS phase 3                      find            32781.350 kiops : time  35.22 seconds
    [SCORE<inv>] Bandwidth 174.741 GB/s : IOPS 5045.33 kiops : TOTAL 938.949          <inv> = "" | "-invalid"

``result_summary.txt`` is the ``tee -a`` copy of those lines (authoritative). The ``io-500-summary``
file is the whole stdout: the ``io500_*`` variable dump, ``[Exec]`` command lines, ``[FIND] MATCHED
x/y in s seconds`` and the same result lines, sometimes twice (printed live and ``cat`` of the
accumulated summary), sometimes with ``set -x`` traces (``++``) and several attempts. A run is the
block of result lines that ends with a ``[SCORE]`` line; within a block the last line of a phase
wins; the last block of a file is its run.

SC17 job scripts printed ``N/<phase> BW:<MB/s> MB/s time: <s>s`` / ``N/<phase> IOPs:<ops/s> time:<s>s``
and ``IO-500 bw score: x MB/s``, ``IO-500 md score: y IOPS``, ``IO-500 score: x*y``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.common import NUMBER
from apps.ingest.tools.io500.grammar.files import MAX_SNIFF_BYTES, file_size, iter_lines
from apps.ingest.tools.io500.grammar.phases import normalise_phase_name
from apps.ingest.tools.io500.grammar.sysinfo import iter_assignments

RESULT_LINE = re.compile(
    rf"^\[RESULT(-invalid)?\]\s+(BW|IOPS)\s+phase\s+(\d{{1,9}})\s+(\S+)\s+({NUMBER})\s+(GB/s|GiB/s|kiops)\s*:"
    rf"\s*time\s+({NUMBER})\s+seconds\s*$",
    re.IGNORECASE,
)
SCORE_LINE = re.compile(
    rf"^\[SCORE(-invalid)?\]\s+Bandwidth\s+({NUMBER})\s+(GB/s|GiB/s)\s*:\s*IOPS\s+({NUMBER})\s+kiops\s*:"
    rf"\s*TOTAL\s+({NUMBER})\s*$",
    re.IGNORECASE,
)
FIND_LINE = re.compile(rf"^\[FIND\]\s+MATCHED\s+(\d{{1,30}})/(\d{{1,30}})\s+in\s+({NUMBER})\s+seconds")
EXEC_LINE = re.compile(r"^\[(?:Exec|EXEC)\]\s*(.*)$")
STARTING_LINE = re.compile(r"^\[Starting\]\s+(\S+)")
DATE_LINE = re.compile(r"^date=(\S+)")
INVALID_NOTE = re.compile(r"(skipped\. Aggregate score is not valid|not valid for IO-500|cannot be an official)", re.I)

SC17_PHASE = re.compile(
    rf"^(\d+)/(\S+)\s+(BW|IOPs):\s*({NUMBER})\s*(MB/s)?\s+time:\s*({NUMBER})\s*s\s*$", re.IGNORECASE
)
SC17_BW_SCORE = re.compile(rf"^IO-500 bw score:\s*({NUMBER})\s*MB/s", re.IGNORECASE)
SC17_MD_SCORE = re.compile(rf"^IO-500 md score:\s*({NUMBER})\s*IOPS", re.IGNORECASE)
SC17_SCORE = re.compile(rf"^IO-500 score:\s*({NUMBER})\s*$", re.IGNORECASE)
SC17_RESULTS_FILE = re.compile(r"^(?:ior|mdt|md)-(?:easy|hard)-results\.txt$|^find-results\.txt$")
SC17_STDOUT_NAME = re.compile(r"(\.out|\.log|\.stdout|\.o\d+)$", re.IGNORECASE)


@dataclass
class ScriptPhase:
    name: str  # normalised
    kind: str  # BW or IOPS
    number: int
    value: str
    unit: str
    seconds: str
    invalid: bool
    line: int


@dataclass
class ScriptScore:
    bw: str
    bw_unit: str
    md: str
    total: str
    invalid: bool
    line: int
    text: str


@dataclass
class ScriptBlock:
    """One run inside a summary file: its result lines and the ``[SCORE]`` line that closed them."""

    phases: dict[str, ScriptPhase]
    score: ScriptScore
    find: dict | None = None  # the [FIND] MATCHED line that preceded the find result
    commands: dict[str, tuple[str, int]] = field(default_factory=dict)  # phase -> ([Exec] line, line no)


@dataclass
class ScriptSummary:
    """A parsed bash-era summary (``result_summary.txt`` or ``io-500-summary*.txt``)."""

    blocks: list[ScriptBlock] = field(default_factory=list)
    open_phases: dict[str, ScriptPhase] = field(default_factory=dict)  # results after the last [SCORE]
    assignments: list[tuple[int, str, str]] = field(default_factory=list)
    date: str = ""
    notes: list[tuple[int, str]] = field(default_factory=list)  # skip/invalid messages
    bad_lines: list[tuple[int, str]] = field(default_factory=list)

    @property
    def run(self) -> ScriptBlock | None:
        return self.blocks[-1] if self.blocks else None


def parse_script_summary(path: Path, rel: str, *, strict: bool) -> ScriptSummary:
    """Parse a bash-era summary.

    ``strict`` (for ``result_summary.txt``): every non-blank line must be a result or score line.
    Otherwise (``io-500-summary``) other lines are read for variables, commands and find counts, and
    a malformed result line is only recorded in ``bad_lines``.
    """
    summary = ScriptSummary()
    phases: dict[str, ScriptPhase] = {}
    commands: dict[str, tuple[str, int]] = {}
    finds: list[dict] = []
    current_phase = ""
    for number, line in iter_lines(path, rel):
        if line.startswith("[RESULT") or line.startswith("[SCORE"):
            parsed = _result_or_score(line, number)
            if parsed is None:
                if strict:
                    raise ParseError(rel, number, f"garbled result line: {line[:120]!r}")
                summary.bad_lines.append((number, line[:200]))
            elif isinstance(parsed, ScriptPhase):
                phases[parsed.name] = parsed
            else:
                find = (
                    next((f for f in reversed(finds) if f["line"] < phases["find"].line), None)
                    if "find" in phases
                    else None
                )
                summary.blocks.append(ScriptBlock(phases, parsed, find, commands))
                phases, commands = {}, {}
            continue
        if not line.strip():
            continue
        if strict:
            raise ParseError(rel, number, f"unrecognised line in bash result summary: {line[:120]!r}")
        current_phase = _read_stdout_line(summary, line, number, current_phase, commands, finds)
    summary.open_phases = phases
    return summary


def _result_or_score(line: str, number: int) -> ScriptPhase | ScriptScore | None:
    match = RESULT_LINE.match(line)
    if match:
        name = normalise_phase_name(match.group(4))
        return ScriptPhase(
            name,
            match.group(2).upper(),
            int(match.group(3)),
            match.group(5),
            match.group(6),
            match.group(7),
            bool(match.group(1)),
            number,
        )
    match = SCORE_LINE.match(line)
    if match:
        return ScriptScore(
            match.group(2),
            match.group(3),
            match.group(4),
            match.group(5),
            bool(match.group(1)),
            number,
            line.strip(),
        )
    return None


def _read_stdout_line(
    summary: ScriptSummary,
    line: str,
    number: int,
    current_phase: str,
    commands: dict[str, tuple[str, int]],
    finds: list[dict],
) -> str:
    """Variables, commands, find counts and notes from the stdout copy; returns the current phase."""
    if line.startswith("[Starting]"):
        match = STARTING_LINE.match(line)
        return normalise_phase_name(match.group(1)) if match else current_phase
    if line.startswith(("[Exec]", "[EXEC]")):
        match = EXEC_LINE.match(line)
        if match and current_phase:
            commands[current_phase] = (match.group(1).strip(), number)
        return current_phase
    if line.startswith("[FIND]"):
        match = FIND_LINE.match(line)
        if match:
            finds.append(
                {
                    "found": int(match.group(1)),
                    "scanned": int(match.group(2)),
                    "seconds": float(match.group(3)),
                    "line": number,
                }
            )
        return current_phase
    if line.startswith("date=") and not summary.date:
        match = DATE_LINE.match(line)
        summary.date = match.group(1) if match else ""
        return current_phase
    if INVALID_NOTE.search(line):
        summary.notes.append((number, line.strip()[:300]))
        return current_phase
    if "io500_" in line:
        summary.assignments.extend(iter_assignments([(number, line)]))
    return current_phase


@dataclass
class Sc17Phase:
    name: str  # normalised
    raw_name: str
    kind: str  # BW or IOPs
    value: str  # MB/s or ops/s as printed
    seconds: str
    line: int
    file: str


@dataclass
class Sc17Output:
    phases: dict[str, Sc17Phase] = field(default_factory=dict)
    bw_score: tuple[str, int] | None = None  # MB/s
    md_score: tuple[str, int] | None = None  # IOPS
    score: tuple[str, int] | None = None  # bw x md
    variables: dict[str, str] = field(default_factory=dict)  # nodes=, ppn=, date=, ior_easy_params= ...


def is_sc17_stdout(path: Path, rel: str) -> bool:
    """A job stdout of the SC17 scripts: a ``*.out``-like name and an ``IO-500 score:`` line."""
    if not SC17_STDOUT_NAME.search(path.name) or not 0 < file_size(path) <= MAX_SNIFF_BYTES:
        return False
    try:
        return any(SC17_SCORE.match(line) for _, line in iter_lines(path, rel))
    except ParseError:
        return False


def parse_sc17(files: list[tuple[Path, str]]) -> Sc17Output:
    """SC17 phase and score lines from a job stdout and/or the ``*-results.txt`` family files.

    Files are read in the order given; the first line seen for a phase wins.
    """
    out = Sc17Output()
    for path, rel in files:
        for number, line in iter_lines(path, rel):
            match = SC17_PHASE.match(line.strip())
            if match:
                name = normalise_phase_name(match.group(2))
                out.phases.setdefault(
                    name,
                    Sc17Phase(name, match.group(2), match.group(3), match.group(4), match.group(6), number, rel),
                )
                continue
            for pattern, attribute in (
                (SC17_BW_SCORE, "bw_score"),
                (SC17_MD_SCORE, "md_score"),
                (SC17_SCORE, "score"),
            ):
                found = pattern.match(line.strip())
                if found and getattr(out, attribute) is None:
                    setattr(out, attribute, (found.group(1), number))
            variable = re.match(r"^([a-z_]+)=(.*)$", line)
            if variable and variable.group(1) not in out.variables:
                out.variables[variable.group(1)] = variable.group(2).strip()
    return out
