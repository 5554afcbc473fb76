"""The audit of io500.org's published record against the files: for one published entry and the run ingested
from its submission folder, every difference (score, bw, md, each phase the record holds, the node count, a
10-node list entry not on 10 nodes), with both numbers and a recognisable cause, else "unexplained".

Plain Python: the callers (apps.results.services.published_audit) pass plain values.

Within the published rounding is not a difference: the site stored scores and phases to 2 decimals and find to
an integer (docs: io500-formats.md, 3.5), and the bash scripts' own values carry 6 significant digits.
"""

import math
from dataclasses import dataclass, field

from apps.results.judgements.scoring import SC17_MD_PHASES, geometric_mean

#: The phase columns of the record -> the run's phase names.
RECORD_PHASES = {
    "ior_easy_write": "ior_easy_write",
    "ior_easy_read": "ior_easy_read",
    "ior_hard_write": "ior_hard_write",
    "ior_hard_read": "ior_hard_read",
    "mdtest_easy_write": "mdtest_easy_write",
    "mdtest_easy_stat": "mdtest_easy_stat",
    "mdtest_easy_delete": "mdtest_easy_delete",
    "mdtest_hard_write": "mdtest_hard_write",
    "mdtest_hard_read": "mdtest_hard_read",
    "mdtest_hard_stat": "mdtest_hard_stat",
    "mdtest_hard_delete": "mdtest_hard_delete",
}
FIND_COLUMNS = ("find_mixed", "find_easy", "find_hard")
MDTEST_WRITES = ("mdtest_easy_write", "mdtest_hard_write")
GIB_PER_GB = 2**30 / 10**9

SC18_CORRECTION = "SC18 mdtest rate correction"
IO500_SH_TOTAL = "io500.sh total"
GB_VS_GIB = "GB vs GiB"
FIND_MIX = "find mix"
EDITED = "edited after publication"
UNEXPLAINED = "unexplained"
NOT_TEN_NODES = "10-node list entry not on 10 nodes"
LISTED_TWICE = "listed twice"


@dataclass(frozen=True)
class Difference:
    field: str  # score, bw, md, a phase, nodes, ten-node list, duplicate
    published: float | None
    recomputed: float | None
    cause: str


@dataclass
class PublishedValues:
    """An entry as the record holds it."""

    score: float | None
    bw: float | None
    md: float | None
    nodes: int | None
    phases: dict[str, float | None] = field(default_factory=dict)  # the record's columns
    submission_score: float | None = None  # the submission row's own score (the list may carry another)
    list_kind: str = ""
    release: str = ""
    listed_times: int = 1
    edited_fields: frozenset[str] = frozenset()  # columns a migration changed after publication


@dataclass
class RunValues:
    """The run ingested from the entry's folder, as ioboard recomputed it."""

    score: float | None
    bw: float | None
    md: float | None
    nodes: int | None
    phases: dict[str, float] = field(default_factory=dict)  # the run's phase names
    score_formula: str = "sqrt"


def tolerance(published: float, digits: int) -> float:
    """Half a unit of the published precision, plus the files' own 6 significant digits."""
    return 0.5 * 10**-digits + 5e-6 * abs(published) + 1e-9


def agrees(published: float | None, recomputed: float | None, digits: int = 2) -> bool:
    if published is None or recomputed is None:
        return True  # nothing to compare
    return abs(published - recomputed) <= tolerance(published, digits)


def close(a: float | None, b: float | None, relative: float = 5e-3) -> bool:
    return a is not None and b is not None and abs(a - b) <= relative * max(abs(a), abs(b), 1e-9)


def audit_entry(published: PublishedValues, run: RunValues) -> list[Difference]:
    """Every difference between a published entry and its run."""
    differences: list[Difference] = []
    for name, published_value, recomputed in (
        ("score", published.score, run.score),
        ("bw", published.bw, run.bw),
        ("md", published.md, run.md),
    ):
        if not agrees(published_value, recomputed):
            differences.append(
                Difference(name, published_value, recomputed, score_cause(name, published_value, published, run))
            )
    for column, phase in RECORD_PHASES.items():
        value = published.phases.get(column)
        if value and not agrees(value, run.phases.get(phase)):
            differences.append(
                Difference(column, value, run.phases.get(phase), phase_cause(column, value, published, run))
            )
    differences += find_differences(published, run)
    if published.nodes is not None and run.nodes is not None and published.nodes != run.nodes:
        cause = EDITED if "information_client_nodes" in published.edited_fields else UNEXPLAINED
        differences.append(Difference("nodes", published.nodes, run.nodes, cause))
    if published.list_kind.startswith("ten-node") and run.nodes is not None and run.nodes != 10:
        differences.append(Difference("ten-node list", 10, run.nodes, NOT_TEN_NODES))
    if published.listed_times > 1:
        differences.append(Difference("duplicate", published.listed_times, 1, LISTED_TWICE))
    return differences


def score_cause(name: str, value: float | None, published: PublishedValues, run: RunValues) -> str:
    if value is None or run.bw is None or run.md is None:
        return UNEXPLAINED
    if name == "score" and published.submission_score is not None and agrees(published.submission_score, run.score):
        return EDITED  # the list carries another score than its submission's row, which the files give
    if name == "score" and (close(value, run.bw * run.md) or run.score_formula == "product"):
        return IO500_SH_TOTAL
    if name == "score" and close(value, sc17_score(run)):
        return IO500_SH_TOTAL  # the SC17 list's total: the metadata mean without mdtest-hard-read
    if name in {"score", "md"} and sc18_corrected(published, run):
        return SC18_CORRECTION
    if name == "bw" and (close(value, run.bw / GIB_PER_GB) or close(value, run.bw * GIB_PER_GB)):
        return GB_VS_GIB
    if name == "score" and published.bw is not None and close(published.bw, run.bw / GIB_PER_GB):
        return GB_VS_GIB
    if name == "md" and close(value, sc17_md(run)):
        return IO500_SH_TOTAL
    if published.edited_fields & {"io500_score", "io500_bw", "io500_md"}:
        return EDITED
    return UNEXPLAINED


def phase_cause(column: str, value: float, published: PublishedValues, run: RunValues) -> str:
    if column in MDTEST_WRITES and value < (run.phases.get(column) or 0):
        return SC18_CORRECTION
    if column.startswith("ior_") and close(value, (run.phases.get(column) or 0) / GIB_PER_GB):
        return GB_VS_GIB
    if column in published.edited_fields:
        return EDITED
    return UNEXPLAINED


def find_differences(published: PublishedValues, run: RunValues) -> list[Difference]:
    """The record's find columns changed meaning over the years (easy, hard, mixed): the one the site scored
    against the run's find; another column holding the run's value is a find mix."""
    recomputed = run.phases.get("find")
    column = next((name for name in FIND_COLUMNS if published.phases.get(name)), None)
    if column is None or recomputed is None or agrees(published.phases[column], recomputed, digits=0):
        return []
    others = [name for name in FIND_COLUMNS if name != column and published.phases.get(name)]
    mixed = any(agrees(published.phases[name], recomputed, digits=0) for name in others)
    cause = FIND_MIX if mixed else EDITED if column in published.edited_fields else UNEXPLAINED
    return [Difference(column, published.phases[column], recomputed, cause)]


def sc18_corrected(published: PublishedValues, run: RunValues) -> bool:
    """The SC18* correction lowered the mdtest write rates (computed from the planned item count) to the ones
    measured with the external timing: the record's write rates are lower than the files', the rest agree."""
    lowered = [
        column
        for column in MDTEST_WRITES
        if published.phases.get(column) and (published.phases[column] or 0) < (run.phases.get(column) or 0) * 0.99
    ]
    return bool(lowered)


def sc17_md(run: RunValues) -> float | None:
    values = [run.phases.get(name) for name in SC17_MD_PHASES]
    return geometric_mean(values) if all(values) else None


def sc17_score(run: RunValues) -> float | None:
    md = sc17_md(run)
    return math.sqrt(run.bw * md) if md and run.bw else None
