"""The IO500 era registry: every family of result files ioboard reads, one entry each.

An :class:`Era` entry says, for one family:

* how its folders are recognised (``folder_kinds``: file names alone, what discovery uses to find
  result sets) and, for a kind several eras share (a ``result_summary.txt`` is written by the bash
  scripts and by the C app), whether a folder is its own (``claims``: a look at the contents);
* how its record is built (``build``: :class:`ResultSetFiles` -> ``IO500RunRecord``);
* which score formula of ``apps.results.judgements.scoring`` reproduces its printed score (``score_formula``), and
  the era-specific evidence about a printed product score (``product_score_evidence``);
* whether its raw IOR/mdtest outputs are read, and whether they, rather than the summary, carry
  the command lines.

The score formulas stay in ``apps.results.judgements.scoring`` (results is the ground layer and imports no
ingest); the entries here name them. Generation and era names are the constants of
``apps.results.judgements.scoring.generations``.

Adding an era: a builder module beside ``capp_run.py`` / ``script_run.py``, its generation name(s)
in ``generations.py`` (and a formula in ``scoring/io500.py`` if it scored differently), then one
entry in ``ERAS`` with its folder kinds, and tests with a sample under ``tests/data/io500``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.capp import is_capp_summary
from apps.ingest.tools.io500.grammar.capp_run import build_capp_record
from apps.ingest.tools.io500.grammar.common import ResultSetFiles
from apps.ingest.tools.io500.grammar.files import is_junk_name
from apps.ingest.tools.io500.grammar.script import SC17_RESULTS_FILE, is_sc17_stdout
from apps.ingest.tools.io500.grammar.script_run import MIB_PER_MB, build_sc17_record, build_script_record
from apps.ingest.tools.io500.records import IO500RunRecord
from apps.results.judgements.scoring import (
    FORMULA_SC17,
    FORMULA_SCRIPT,
    FORMULA_SCRIPT_PRODUCT,
    capp_formula_for_version,
    compute_io500_score,
)
from apps.results.judgements.scoring.generations import (
    ERA_CAPP,
    ERA_SCRIPT,
    GENERATION_BASH_PRODUCT,
    GENERATION_BASH_SQRT,
    GENERATION_CAPP_G1,
    GENERATION_CAPP_G2,
    GENERATION_CAPP_G3,
    GENERATION_SC17,
)

SUMMARY_PREFIX = "io-500-summary"
RAW_OUTPUT = re.compile(r"^(ior|mdtest)[-_](easy|hard|rnd\w*)[-_]\w+\.txt$", re.IGNORECASE)


@dataclass(frozen=True)
class FolderKind:
    """A kind of result folder, recognised from its (non-junk) file names.

    ``precedence`` orders the tests across eras: a folder is of the first kind that matches.
    """

    name: str
    precedence: int
    matches: Callable[[Path, list[str]], bool]


def _has_result_txt(folder: Path, names: list[str]) -> bool:
    return "result.txt" in names


def _has_io500_summary(folder: Path, names: list[str]) -> bool:
    return any(name.startswith(SUMMARY_PREFIX) and name.endswith(".txt") for name in names)


def _has_summary_and_raw_outputs(folder: Path, names: list[str]) -> bool:
    return "result_summary.txt" in names and any(RAW_OUTPUT.match(name) for name in names)


def _has_summary_only(folder: Path, names: list[str]) -> bool:
    return "result_summary.txt" in names and not any(RAW_OUTPUT.match(name) for name in names)


def _has_sc17_stdout(folder: Path, names: list[str]) -> bool:
    return any(is_sc17_stdout(folder / name, name) for name in names)


def _has_sc17_results(folder: Path, names: list[str]) -> bool:
    return any(SC17_RESULTS_FILE.match(name) for name in names)


RESULT_TXT = FolderKind("capp", 10, _has_result_txt)
IO500_SUMMARY = FolderKind("script", 20, _has_io500_summary)
# A result_summary.txt: bash or C app, told apart by ``claims``. "summary-only" (no raw outputs)
# is the kind discovery drops when it is a submission-root copy of a run below it.
SUMMARY = FolderKind("summary", 30, _has_summary_and_raw_outputs)
SUMMARY_ONLY = FolderKind("summary-only", 31, _has_summary_only)
SC17_STDOUT = FolderKind("sc17", 40, _has_sc17_stdout)
# The SC17 per-family ``*-results.txt`` files: a run of their own only without a job stdout above.
SC17_RESULTS = FolderKind("sc17-results", 50, _has_sc17_results)


@dataclass(frozen=True)
class Era:
    """One family of IO500 result files (see the module docstring)."""

    name: str  # the entry's name: capp, script, sc17
    era: str  # Run.era of its records (ERA_SCRIPT or ERA_CAPP)
    generations: tuple[str, ...]  # the Run.generation values its builder gives
    folder_kinds: tuple[FolderKind, ...]
    build: Callable[[ResultSetFiles], IO500RunRecord]
    score_formula: Callable[[IO500RunRecord], str]
    claims: Callable[[ResultSetFiles], bool] | None = None  # for shared folder kinds; None: any folder
    product_score_evidence: Callable[[IO500RunRecord, Mapping[str, float | None]], None] | None = None
    reads_raw_outputs: bool = True
    commands_from_raw_outputs: bool = False


def _capp_score_formula(record: IO500RunRecord) -> str:
    return capp_formula_for_version(
        record.benchmark_version,
        generation=record.generation,
        has_run_section=record.evidence.result_txt_run_section is not False,
    )


def _claims_capp_summary(files: ResultSetFiles) -> bool:
    path = files.get("result_summary.txt")
    return path is not None and is_capp_summary(path, files.rel_of(path))


def _bash_product_evidence(record: IO500RunRecord, phases: Mapping[str, float | None]) -> None:
    """io500_fixed.sh printed BW x MD as TOTAL: the product recomputed from the phases."""
    if record.score_formula == "product":
        recomputed = compute_io500_score(phases, formula=FORMULA_SCRIPT_PRODUCT).total
        record.evidence.product_score = {**(record.evidence.product_score or {}), "recomputed_product": recomputed}


def _sc17_product_evidence(record: IO500RunRecord, phases: Mapping[str, float | None]) -> None:
    """SC17 printed BW in MB/s and MD in ops/s; its product is recomputed in those units."""
    bw, md = record.computed_score.bw, record.computed_score.md
    record.evidence.product_score = {
        "printed_total": record.reported_score.total,
        "units": "MB/s x IOPS",
        "recomputed_product": None if bw is None or md is None else bw / MIB_PER_MB * md * 1000,
    }


CAPP = Era(
    name="capp",
    era=ERA_CAPP,
    generations=(GENERATION_CAPP_G1, GENERATION_CAPP_G2, GENERATION_CAPP_G3),
    folder_kinds=(RESULT_TXT, SUMMARY, SUMMARY_ONLY),
    claims=_claims_capp_summary,
    build=build_capp_record,
    score_formula=_capp_score_formula,
)
SCRIPT = Era(
    name="script",
    era=ERA_SCRIPT,
    generations=(GENERATION_BASH_PRODUCT, GENERATION_BASH_SQRT),
    folder_kinds=(IO500_SUMMARY, SUMMARY, SUMMARY_ONLY),
    build=build_script_record,
    # Product-era runs are scored with the sqrt formula: the lists re-expressed them that way, and
    # ``record.score_formula`` keeps what the script itself printed.
    score_formula=lambda record: FORMULA_SCRIPT,
    product_score_evidence=_bash_product_evidence,
    commands_from_raw_outputs=True,
)
SC17 = Era(
    name="sc17",
    era=ERA_SCRIPT,
    generations=(GENERATION_SC17,),
    folder_kinds=(SC17_STDOUT, SC17_RESULTS),
    build=build_sc17_record,
    score_formula=lambda record: FORMULA_SC17,
    product_score_evidence=_sc17_product_evidence,
    reads_raw_outputs=False,
)
# Order matters only between eras sharing a folder kind: the first that claims the folder builds it.
ERAS: tuple[Era, ...] = (CAPP, SCRIPT, SC17)
FOLDER_KINDS: tuple[FolderKind, ...] = tuple(
    sorted({kind for era in ERAS for kind in era.folder_kinds}, key=lambda kind: kind.precedence)
)


def classify_folder(folder: Path, names: list[str]) -> str | None:
    """The name of the first folder kind (by precedence) whose files ``names`` holds, or None."""
    usable = [name for name in names if not is_junk_name(name)]
    return next((kind.name for kind in FOLDER_KINDS if kind.matches(folder, usable)), None)


def era_for_folder(kind: str, files: ResultSetFiles) -> Era:
    """The era that builds a result set of folder kind ``kind``."""
    candidates = [era for era in ERAS if any(k.name == kind for k in era.folder_kinds)]
    for era in candidates:
        if len(candidates) == 1 or era.claims is None or era.claims(files):
            return era
    raise ParseError(files.rel, None, f"no IO500 era reads a folder of kind {kind!r}")


def era_of_record(record: IO500RunRecord) -> Era:
    """The era entry a record belongs to: by its generation, else by its era."""
    by_generation = next((era for era in ERAS if record.generation in era.generations), None)
    return by_generation or next(era for era in ERAS if era.era == record.era)


def score_formula_for(record: IO500RunRecord) -> str:
    """The formula of ``apps.results.judgements.scoring`` that gives the comparable (sqrt) score of a record."""
    return era_of_record(record).score_formula(record)
