"""The read + regular expression floor of an IO500 ingest: the least work any ingest of the same files must do.

Every file the ingest reads is read and decoded into lines (as the grammars stream them,
``apps.ingest.tools.io500.grammar.files.iter_lines``), and over each line the patterns of the grammar that reads
that kind of file are tried in turn until one matches, as a line-dispatching parser does:

- ``ior*`` outputs: the IOR grammar's patterns (``apps.ingest.tools.ior.grammar``: headers, ``key : value``,
  result rows, ``Max Write/Read``);
- ``mdtest*`` outputs: the mdtest grammar's (``apps.ingest.tools.mdtest.grammar``: rate tables, stonewall lines);
- ``*.csv`` (per-rank tables): ``apps.ingest.tools.io500.grammar.rank_csv``'s;
- ``*.ini`` and the C application's ``result.txt``: ``apps.ingest.tools.io500.grammar.capp``'s (sections, ini keys,
  summary and score lines);
- shell scripts, ``system-information*`` and other configuration: the ``io500_*`` assignments
  (``apps.ingest.tools.io500.grammar.sysinfo``) and the lctl/lfs commands (``apps.ingest.parsers.lustre``);
- everything else (``result_summary.txt``, job output, ``io-500-summary*``): the bash and SC17 summary patterns
  (``apps.ingest.tools.io500.grammar.script``) and the C application's (``capp``).

The patterns are the compiled patterns of those modules, taken from them (never copied), so the floor follows
the grammars when they change. It stores nothing, builds no record and touches no database: it is the cost of
the bytes and the line patterns alone, which is what the issue's floor measured (issue 39: "reading the same files
and running twenty line patterns of the kind the grammars use").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType


@dataclass
class FloorTally:
    files: int = 0
    bytes: int = 0
    lines: int = 0
    matched: int = 0


def module_patterns(*modules: ModuleType) -> tuple[re.Pattern, ...]:
    """The compiled patterns a grammar module defines at its top level."""
    return tuple(value for module in modules for value in vars(module).values() if isinstance(value, re.Pattern))


@cache
def patterns_by_kind() -> dict[str, tuple[re.Pattern, ...]]:
    from apps.ingest.parsers.lustre import striping, tunables
    from apps.ingest.tools.io500.grammar import capp, rank_csv, script, sysinfo
    from apps.ingest.tools.ior import grammar as ior_grammar
    from apps.ingest.tools.mdtest import grammar as mdtest_grammar

    return {
        "ior": module_patterns(ior_grammar),
        "mdtest": module_patterns(mdtest_grammar),
        "csv": module_patterns(rank_csv),
        "ini": module_patterns(capp),
        "config": module_patterns(sysinfo, tunables, striping),
        "summary": module_patterns(script, capp),
    }


def kind_of(path: Path) -> str:
    """Which grammar reads a file, by its name (the way the IO500 grammar picks its readers)."""
    name = path.name.lower()
    if name.endswith(".csv"):
        return "csv"
    if name.startswith("ior"):
        return "ior"
    if name.startswith("mdtest"):
        return "mdtest"
    if name.endswith(".ini") or name == "result.txt":
        return "ini"
    if name.endswith((".sh", ".bash", ".cfg", ".conf", ".json", ".yaml", ".yml")) or name.startswith("system-info"):
        return "config"
    return "summary"


def run_floor(paths: list[Path]) -> FloorTally:
    """Read every file and try its grammar's patterns over each of its lines (module docstring)."""
    tally = FloorTally()
    kinds = patterns_by_kind()
    for path in paths:
        patterns = [
            pattern.match if pattern.pattern.startswith("^") else pattern.search for pattern in kinds[kind_of(path)]
        ]
        with path.open("rb") as handle:
            for raw in handle:
                tally.bytes += len(raw)
                tally.lines += 1
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                for attempt in patterns:
                    if attempt(line):
                        tally.matched += 1
                        break
        tally.files += 1
    return tally
