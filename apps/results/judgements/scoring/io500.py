"""IO500 score formulas for every era, as pure functions.

The IO500 score has always been built from geometric means: a bandwidth group (IOR phases, GiB/s)
and a metadata group (mdtest phases and find, kIOPS). What changed between benchmark generations is

* how the two group means were combined: the Oct 2017 - May 2018 ``io500_fixed.sh`` printed
  ``TOTAL = BW x MD`` ("product"), everything since prints ``sqrt(BW x MD)``;
* which phases form the metadata group: the SC17 job scripts had no mdtest-hard-read (7 phases);
* what a zero or missing phase does: the bash scripts and the C application up to isc21 multiply
  every group member in (so one zero phase makes the whole score 0), while io500-sc21 and later
  leave phases with a score <= 0 out of the mean (commit c402d45, "Calculate score even for skipped
  phases and 0 values");
* extended mode (``[SCOREX]``, isc21 on) adds the random-IOR phases to the bandwidth group and
  find-easy/find-hard/mdworkbench-bench to the metadata group.

Phase names are the normalised ones used by the parsers (``ior_easy_write``, ``mdtest_hard_stat``,
``find``, ``ior_rnd4k_write`` ...). Values are GiB/s for IOR phases and kIOPS for the others.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from apps.results.judgements.scoring.generations import GENERATION_CAPP_G1, GENERATION_CAPP_G2, GENERATION_CAPP_G3

BW_PHASES = ("ior_easy_write", "ior_easy_read", "ior_hard_write", "ior_hard_read")
MD_PHASES = (
    "mdtest_easy_write",
    "mdtest_easy_stat",
    "mdtest_easy_delete",
    "mdtest_hard_write",
    "mdtest_hard_stat",
    "mdtest_hard_read",
    "mdtest_hard_delete",
    "find",
)
SC17_MD_PHASES = tuple(name for name in MD_PHASES if name != "mdtest_hard_read")

EXTENDED_BW_ONLY = ("ior_rnd4k_write", "ior_rnd4k_read", "ior_rnd1mb_write", "ior_rnd1mb_read")
# io500-isc21 builds called the random phases ior-rnd-write / ior-rnd-read; sc21 renamed them.
EXTENDED_BW_ONLY_ISC21 = ("ior_rnd_write", "ior_rnd_read")
EXTENDED_MD_ONLY = ("find_easy", "find_hard", "mdworkbench_bench")
# The phases that create data or files: the IO500 rules set their minimum run time (300 s).
WRITE_PHASES = (
    "ior_easy_write",
    "ior_hard_write",
    "mdtest_easy_write",
    "mdtest_hard_write",
    "ior_rnd4k_write",
    "ior_rnd1mb_write",
    "ior_rnd_write",
)

# Score formula names. Each says how the printed score of one benchmark generation was computed.
FORMULA_SCRIPT = "script"  # io500.sh from 2018-05-09: sqrt over 4 + 8, a zero phase zeroes its group
FORMULA_SCRIPT_PRODUCT = "script-product"  # io500_fixed.sh Oct 2017 - May 2018: TOTAL = BW x MD
FORMULA_SC17 = "sc17"  # SC17 job scripts: MD over 7 phases (no mdtest_hard_read)
FORMULA_CAPP_ZERO_ENTERS = "capp-zero-enters"  # C app isc20, sc20, isc21: every member enters the product
FORMULA_CAPP_SKIP_NONPOSITIVE = "capp-skip-nonpositive"  # C app io500-sc21 onwards: phases <= 0 left out
FORMULAS = (
    FORMULA_SCRIPT,
    FORMULA_SCRIPT_PRODUCT,
    FORMULA_SC17,
    FORMULA_CAPP_ZERO_ENTERS,
    FORMULA_CAPP_SKIP_NONPOSITIVE,
)

_ZERO_ENTERS_TAG_PREFIXES = ("io500-isc20", "io500-sc20", "io500-isc21")


@dataclass
class Score:
    """A bandwidth / metadata / total triple. bw in GiB/s, md in kIOPS.

    Defined here, with the formulas that compute it, so that the scoring layer needs nothing from
    ingest; parsers fill the same type with the figures a run printed.
    """

    bw: float | None = None
    md: float | None = None
    total: float | None = None


def geometric_mean(values: Sequence[float | None], *, skip_nonpositive: bool = False) -> float:
    """Geometric mean the way the benchmark computed it.

    With ``skip_nonpositive`` (C app from sc21) missing and non-positive values are left out and an
    empty group gives 0. Without it (all older generations) any missing or non-positive member
    makes the product, and so the mean, 0. Non-finite values propagate (inf stays inf, nan stays
    nan) instead of raising, because parsers accept them defensively.
    """
    present = [v for v in values if v is not None]
    if skip_nonpositive:
        members = [v for v in present if not v <= 0]
    elif len(present) < len(values) or any(v <= 0 for v in present):
        return 0.0
    else:
        members = present
    if not members:
        return 0.0
    return math.exp(math.fsum(math.log(v) for v in members) / len(members))


def _group(phases: Mapping[str, float | None], names: Iterable[str]) -> list[float | None]:
    return [phases.get(name) for name in names]


def combine(bw: float, md: float, *, formula: str) -> float:
    """The printed TOTAL from the two group means: a product for the early scripts, else sqrt."""
    if formula == FORMULA_SCRIPT_PRODUCT:
        return bw * md
    return math.sqrt(bw * md)


def compute_io500_score(phases: Mapping[str, float | None], *, formula: str) -> Score:
    """The standard (``[SCORE]``) bandwidth, metadata and total of one run under ``formula``."""
    _check_formula(formula)
    md_names = SC17_MD_PHASES if formula == FORMULA_SC17 else MD_PHASES
    skip = formula == FORMULA_CAPP_SKIP_NONPOSITIVE
    bw = geometric_mean(_group(phases, BW_PHASES), skip_nonpositive=skip)
    md = geometric_mean(_group(phases, md_names), skip_nonpositive=skip)
    return Score(bw=bw, md=md, total=combine(bw, md, formula=formula))


def extended_phase_names(phases: Mapping[str, float | None]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``[SCOREX]`` groups: 8 bandwidth and 11 metadata phases.

    isc21 builds named the random IOR phases ``ior-rnd-write``/``ior-rnd-read``; which naming a run
    uses is read from the phases it has.
    """
    isc21 = any(name in phases for name in EXTENDED_BW_ONLY_ISC21)
    bw_extra = EXTENDED_BW_ONLY_ISC21 if isc21 else EXTENDED_BW_ONLY
    return BW_PHASES + bw_extra, MD_PHASES + EXTENDED_MD_ONLY


def compute_extended_score(phases: Mapping[str, float | None], *, formula: str) -> Score:
    """The extended-mode (``[SCOREX]``) score: standard plus optional phases, sqrt combination."""
    _check_formula(formula)
    bw_names, md_names = extended_phase_names(phases)
    skip = formula == FORMULA_CAPP_SKIP_NONPOSITIVE
    bw = geometric_mean(_group(phases, bw_names), skip_nonpositive=skip)
    md = geometric_mean(_group(phases, md_names), skip_nonpositive=skip)
    return Score(bw=bw, md=md, total=combine(bw, md, formula=FORMULA_CAPP_SKIP_NONPOSITIVE))


def capp_formula_for_version(version: str, *, generation: str = "", has_run_section: bool = True) -> str:
    """The score formula of a C-app build (what a zero phase does), from its version string.

    Tags io500-isc20*, io500-sc20* and io500-isc21* multiplied every phase in; io500-sc21 and later
    skip phases <= 0. Empty, ``dev-*`` (2020 and 2024 dev builds exist) and custom version strings
    are judged by the file grammar: the G1/G2 summaries (isc20/sc20) and G3 result files without a
    ``[run]`` header (isc21) used the old formula.
    """
    tag = (version or "").strip().lower()
    if tag.startswith(_ZERO_ENTERS_TAG_PREFIXES):
        return FORMULA_CAPP_ZERO_ENTERS
    if tag.startswith("io500-"):
        return FORMULA_CAPP_SKIP_NONPOSITIVE
    if generation in (GENERATION_CAPP_G1, GENERATION_CAPP_G2) or (
        generation == GENERATION_CAPP_G3 and not has_run_section
    ):
        return FORMULA_CAPP_ZERO_ENTERS
    return FORMULA_CAPP_SKIP_NONPOSITIVE


def _check_formula(formula: str) -> None:
    if formula not in FORMULAS:
        raise ValueError(f"unknown IO500 score formula {formula!r}; expected one of {', '.join(FORMULAS)}")
