"""The C application's files: ``result.txt``, ``result_summary.txt`` and ``config*.ini``.

``result.txt`` (INI-like, written by rank 0 as the run goes) is authoritative: per-phase
``score`` strings, ``t_delta`` seconds, ``exe`` command lines, the ``[SCORE]`` section and its hash.
Keys before the first section (isc20 - isc21) and keys of ``[run]`` (sc21 on) are the run header;
``; START``/``; END``/``; ERROR``/``; WARNING`` lines are comments the app writes.

``result_summary.txt`` comes in three generations (see docs/io500-formats.md, section 2.1):

* G1 (isc20, early sc20): ``[SCORE] Bandwidth x GB/s`` (the value is GiB/s), ``GiB/s `` with a blank
* G2 (sc20 after the unit fix): ``[SCORE] Bandwidth x GiB/s``
* G3 (isc21 on): ``IO500 version v (standard|extended)``, ``[SCORE ]``, ``[SCOREX]``, ``[      ]`` for
  unscored phases and `` [INVALID]`` suffixes. Its ``[      ] timestamp`` line (and result.txt's
  ``[timestamp]`` section) is a step that measures nothing: kept apart from the phases.

Parsers here are strict about lines that claim to be results (a garbled ``[RESULT]`` or ``[SCORE``
line is a ``ParseError`` naming file and line) and about truncation (no ``[SCORE]`` section).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.common import NUMBER
from apps.ingest.tools.io500.grammar.files import iter_lines
from apps.ingest.tools.io500.grammar.phases import TIMESTAMP_STEP

SECTION = re.compile(r"^\s*\[([^\]]*)\]\s*(?:[#;].*)?$")
KEY_VALUE = re.compile(r"^\s*([0-9A-Za-z_.-]+)\s*=\s?(.*)$")
INI_KEY_VALUE = re.compile(r"^\s*([0-9A-Za-z_.-]+)\s*=\s*([^#;]*)")

SUMMARY_HEADER = re.compile(r"^IO500 version\s*(.*?)\s*(?:\((standard|extended)\))?\s*$")
SUMMARY_PHASE = re.compile(
    rf"^\[(RESULT|RESULT-invalid| {{6}})\]\s+(\S+)\s+({NUMBER})\s+(GiB/s|GB/s|kIOPS)\s*:"
    rf"\s*time\s+({NUMBER})\s+seconds(\s+\[INVALID\])?\s*$",
    re.IGNORECASE,
)
SCORE_LINE = re.compile(
    r"^\[(SCORE ?|SCOREX|SCORE-invalid|SCOREX-invalid|SCORE INVALID)\]"
    rf"\s+Bandwidth\s+({NUMBER})\s+(GiB/s|GB/s)\s*:\s*IOPS\s+({NUMBER})\s+kiops\s*:\s*TOTAL\s+({NUMBER})"
    r"(\s+\[INVALID\])?\s*$",
    re.IGNORECASE,
)


@dataclass
class Entry:
    value: str
    line: int


@dataclass
class ResultTxt:
    """A parsed ``result.txt``."""

    header: dict[str, Entry] = field(default_factory=dict)  # version, config-hash, result-dir, mode, procs
    phases: dict[str, dict[str, Entry]] = field(default_factory=dict)  # raw section name -> keys
    phase_lines: dict[str, int] = field(default_factory=dict)
    timestamp_step: dict[str, Entry] = field(default_factory=dict)  # keys of [timestamp]: not a phase
    timestamp_step_line: int | None = None
    score: dict[str, Entry] = field(default_factory=dict)
    scorex: dict[str, Entry] = field(default_factory=dict)
    comments: list[Entry] = field(default_factory=list)
    has_run_section: bool = False
    repeated_sections: list[str] = field(default_factory=list)

    def header_value(self, key: str) -> str:
        entry = self.header.get(key)
        return entry.value.strip() if entry else ""

    @property
    def start(self) -> str:
        return next((c.value[len("START") :].strip() for c in self.comments if c.value.startswith("START")), "")

    @property
    def has_end(self) -> bool:
        return any(c.value.startswith("END") for c in self.comments)


def parse_result_txt(path: Path, rel: str) -> ResultTxt:
    """Parse ``result.txt``; ParseError for an unrecognisable line or a missing ``[SCORE]`` section."""
    result = ResultTxt()
    current: dict[str, Entry] | None = None
    for number, line in iter_lines(path, rel):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith((";", "#")):
            result.comments.append(Entry(stripped.lstrip(";#").strip(), number))
            continue
        section = SECTION.match(line)
        if section:
            current = _open_section(result, section.group(1).strip(), number, rel)
            continue
        key_value = KEY_VALUE.match(line)
        if not key_value:
            raise ParseError(rel, number, f"unrecognised line in result.txt: {_excerpt(line)!r}")
        target = result.header if current is None else current
        target[key_value.group(1)] = Entry(key_value.group(2).rstrip(), number)
    if not result.score:
        raise ParseError(rel, None, "truncated result.txt: no [SCORE] section with values")
    for key in ("MD", "BW", "SCORE"):
        if key not in result.score:
            raise ParseError(rel, None, f"truncated result.txt: [SCORE] has no {key} value")
    return result


def _open_section(result: ResultTxt, name: str, number: int, rel: str) -> dict[str, Entry]:
    if not re.fullmatch(r"[0-9A-Za-z_-]+", name):
        raise ParseError(rel, number, f"unrecognised section header [{_excerpt(name)}] in result.txt")
    lowered = name.lower()
    if lowered == "run":
        result.has_run_section = True
        return result.header
    if lowered in ("score", "scorex"):
        target = result.score if lowered == "score" else result.scorex
        if target:
            result.repeated_sections.append(name)
            target.clear()
        return target
    if lowered == TIMESTAMP_STEP:
        result.timestamp_step.clear()
        result.timestamp_step_line = number
        return result.timestamp_step
    if name in result.phases:
        result.repeated_sections.append(name)
    result.phases[name] = {}
    result.phase_lines[name] = number
    return result.phases[name]


@dataclass
class SummaryPhase:
    name: str  # as printed, e.g. ior-easy-write
    tag: str  # RESULT, RESULT-invalid or blank
    value: str
    unit: str
    seconds: str
    invalid: bool
    line: int


@dataclass
class SummaryScore:
    tag: str  # SCORE, SCORE , SCOREX, SCORE-invalid ...
    bw: str
    bw_unit: str
    md: str
    total: str
    invalid: bool
    line: int

    @property
    def extended(self) -> bool:
        return self.tag.upper().startswith("SCOREX")


@dataclass
class CappSummary:
    """A parsed C-app ``result_summary.txt``."""

    version: str | None = None
    mode: str = ""
    phases: list[SummaryPhase] = field(default_factory=list)  # the timestamp step is left out
    scores: list[SummaryScore] = field(default_factory=list)

    @property
    def score(self) -> SummaryScore | None:
        return next((s for s in self.scores if not s.extended), None)

    @property
    def scorex(self) -> SummaryScore | None:
        return next((s for s in self.scores if s.extended), None)


def parse_summary_line(line: str) -> SummaryPhase | SummaryScore | None:
    """One ``[RESULT]``/``[      ]`` or ``[SCORE...]`` line of the C-app summary, or None."""
    match = SUMMARY_PHASE.match(line)
    if match:
        tag = match.group(1)
        invalid = tag.lower() == "result-invalid" or bool(match.group(6))
        return SummaryPhase(match.group(2), tag.strip(), match.group(3), match.group(4), match.group(5), invalid, 0)
    match = SCORE_LINE.match(line)
    if match:
        tag = match.group(1)
        invalid = "invalid" in tag.lower() or bool(match.group(6))
        return SummaryScore(tag, match.group(2), match.group(3), match.group(4), match.group(5), invalid, 0)
    return None


def parse_capp_summary(path: Path, rel: str) -> CappSummary:
    """Parse a C-app ``result_summary.txt``; every non-blank line must be known, and a score present."""
    summary = CappSummary()
    for number, line in iter_lines(path, rel):
        if not line.strip():
            continue
        header = SUMMARY_HEADER.match(line)
        if header:
            if summary.version is not None:
                raise ParseError(rel, number, "a second 'IO500 version' header: two runs in one summary")
            summary.version, summary.mode = header.group(1), header.group(2) or ""
            continue
        parsed = parse_summary_line(line)
        if parsed is None:
            raise ParseError(rel, number, f"unrecognised line in result_summary.txt: {_excerpt(line)!r}")
        parsed.line = number
        if isinstance(parsed, SummaryPhase):
            if parsed.name.lower() != TIMESTAMP_STEP:
                summary.phases.append(parsed)
        else:
            summary.scores.append(parsed)
    if summary.score is None:
        raise ParseError(rel, None, "truncated result_summary.txt: no [SCORE] line")
    return summary


def is_capp_summary(path: Path, rel: str) -> bool:
    """Whether a ``result_summary.txt`` is the C app's (``IO500 version`` header or its result lines)
    rather than the bash script's: both eras wrote a file of that name."""
    for _, line in iter_lines(path, rel):
        if line.strip():
            return line.startswith("IO500 version") or bool(
                re.match(r"^\[(RESULT|SCORE ?|      )\]\s+\S+\s+[-\d.]", line)
            )
    return False


def parse_ini(path: Path, rel: str) -> dict[str, dict[str, str]]:
    """An INI file the lenient way: sections -> {option: value}; comments and unknown lines ignored.

    Follows the app's own rules (a ``#`` or ``;`` ends a value, trailing blanks and ``\\r`` dropped);
    options before any section land in the section ``""``.
    """
    sections: dict[str, dict[str, str]] = {}
    current = sections.setdefault("", {})
    for _, line in iter_lines(path, rel):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        section = SECTION.match(line)
        if section:
            current = sections.setdefault(section.group(1).strip(), {})
            continue
        key_value = INI_KEY_VALUE.match(line)
        if key_value:
            current[key_value.group(1)] = key_value.group(2).strip()
    if not sections[""]:
        del sections[""]
    return sections


def _excerpt(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[:limit] + "..."
