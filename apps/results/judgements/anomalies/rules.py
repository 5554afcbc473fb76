"""The anomaly rules. Each class explains in its docstring what it catches and why it has its severity.

Severity policy (see docs/anomalies.md): ``error`` is kept for runs that are not a valid IO500
result by the benchmark's own standard (it said so, its integrity hash fails, a scored phase is
missing, a mandatory option was dropped, the printed score cannot be reproduced). Physical
implausibility (cache effects), list-era artifacts and metadata inconsistencies are ``warn``:
the IO500 lists kept such runs, and the board shows them with a badge instead of hiding them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from apps.results.judgements.anomalies import cache_physics
from apps.results.judgements.anomalies.cache_physics import READ_PAIRS, STAT_PAIRS
from apps.results.judgements.anomalies.facts import PhaseFacts, RunFacts
from apps.results.judgements.anomalies.node_counts import best_supported, disagree, distinct, node_count_evidence
from apps.results.judgements.anomalies.registry import AnomalyFinding, AnomalyRule, RuleContext, register
from apps.results.judgements.scoring import BW_PHASES, MD_PHASES, SC17_MD_PHASES, WRITE_PHASES
from apps.results.judgements.scoring.generations import ERA_CAPP, ERA_SCRIPT, GENERATION_SC17
from apps.results.judgements.stacks.semantics import GIB_PER_S_IN_MB_PER_S

RANK_SHIFT_PHASES = ("mdtest_easy_stat", "mdtest_hard_stat", "mdtest_hard_read")


def _where(phase: PhaseFacts) -> dict[str, Any]:
    return {"source_file": phase.source_file, "source_line": phase.source_line}


def _number(value: float | None) -> str:
    return "missing" if value is None else f"{value:.6g}"


def _ratio_findings(
    rule: AnomalyRule,
    facts: RunFacts,
    thresholds: Mapping[str, Any],
    pairs: tuple[tuple[str, str, str], ...],
    explain: str,
    physics: bool = False,
) -> list[AnomalyFinding]:
    """One finding per (fast, reference) pair whose ratio reaches its threshold.

    With ``physics`` the cache evidence of ``cache_physics`` decides instead of the ratio alone (the
    network, or a ratio that the run's supporting evidence lets through below the threshold): every
    piece is kept in ``evidence["cache_evidence"]``, the ratio needed in ``evidence["required_ratio"]``
    and the decisive piece named in ``evidence["decisive"]``.
    """
    findings = []
    for fast_name, reference_name, key in pairs:
        fast, reference = facts.phases.get(fast_name), facts.phases.get(reference_name)
        if not (fast and reference and fast.value and reference.value and reference.value > 0):
            continue
        ratio = fast.value / reference.value
        threshold = float(thresholds[key])
        decisive = "ratio"
        pieces: list[dict[str, Any]] = []
        if physics:
            judged, pieces, required = cache_physics.judge(facts, fast_name, ratio, threshold, thresholds)
            if judged is None:
                continue
            decisive = judged
        elif ratio < threshold:
            continue
        message = (
            f"{fast_name} ran {ratio:.1f}x faster than {reference_name} "
            f"({_number(fast.value)} vs {_number(reference.value)} {fast.unit or reference.unit}; "
            f"{_because(decisive, threshold, pieces)}): {explain}"
        )
        evidence = {
            "phase": fast_name,
            "value": fast.value,
            "printed_value": fast.printed_value,
            "unit": fast.unit,
            "seconds": fast.seconds,
            "reference_phase": reference_name,
            "reference_value": reference.value,
            "reference_printed_value": reference.printed_value,
            "reference_seconds": reference.seconds,
            "ratio": ratio,
            "threshold": threshold,
            "threshold_key": key,
            "rank_shift": fast.rank_shift if fast_name.startswith("mdtest") else None,
            **_where(fast),
            "reference_source_file": reference.source_file,
            "reference_source_line": reference.source_line,
        }
        if physics:
            evidence["decisive"] = decisive
            evidence["required_ratio"] = required
            evidence["cache_evidence"] = pieces
        findings.append(rule.finding(message, evidence, phase=fast_name))
    return findings


PIECE_WORDS = {
    "locality": "each node read its own data",
    "memory": "the data per node fit in the client memory",
    "sibling_read": "the other IOR read is also beyond its usual ratio",
}


def _because(decisive: str, threshold: float, pieces: list[dict[str, Any]]) -> str:
    """Why the finding stands, in words: the decisive piece, what supported it, and task reordering."""
    if decisive == "ratio":
        because = f"threshold {threshold:g}x"
    elif decisive == "network":
        because = "more per node than the declared client network carries"
    else:
        supporting = [PIECE_WORDS[piece["piece"]] for piece in pieces if piece.get("weight")]
        because = (
            f"below the {threshold:g}x threshold, but {'; '.join(supporting)}: "
            f"{pieces[0]['required']:.1f}x suffices, decided by {decisive}"
        )
    for piece in pieces:
        if piece["piece"] == "locality" and piece["verdict"] == "other_node":
            how = "task reordering" if "task_reordering" in piece else "-N rank shift"
            because += f"; each node read another node's data ({how}), so not from its own client cache"
    return because


@register
class CacheEffectStatRule(AnomalyRule):
    """A stat phase implausibly faster than the create phase of the same files.

    A stat needs a metadata-server round trip unless the client still holds the inode and its
    lock (the Cambridge ISC19 run: DoM, a 4-million-entry LRU and no ``-N 1`` gave 183,233 kIOPS
    against 1,785 kIOPS for the creates). warn: the lists kept such runs, historically valid.
    """

    name = "cache_effect_stat"
    clause = "IO500-NO-CLIENT-CACHE"
    description = "mdtest stat rate implausibly far above the create rate of the same files (client cache)"
    severity = "warn"
    thresholds = ("stat_over_create_easy", "stat_over_create_hard")

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        explain = "the stats were most likely answered from client caches, not by the metadata servers."
        return _ratio_findings(self, facts, thresholds, STAT_PAIRS, explain, physics=True)


@register
class CacheEffectReadRule(AnomalyRule):
    """A read phase implausibly faster than the write phase of the same data.

    Reading back is often faster than writing (no allocation, no parity), but not by an order of
    magnitude beyond what the corpus shows for the pair; beyond that the reads came from page or
    client caches. Less is needed when the run corroborates it (reads of the node's own data, the
    other IOR read also fast: ``cache_physics``). warn, like the stat cache effect.
    """

    name = "cache_effect_read"
    clause = "IO500-NO-CLIENT-CACHE"
    description = "read rate implausibly far above the write rate of the same data (page/client cache)"
    severity = "warn"
    thresholds = (
        "read_over_write_ior_easy",
        "read_over_write_ior_hard",
        "read_over_write_mdtest_hard",
        "cache_weight_ior_own_data",
        "cache_weight_memory_fits",
        "cache_weight_sibling_read",
    )

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        explain = "the data was most likely read back from caches rather than from the storage."
        return _ratio_findings(self, facts, thresholds, READ_PAIRS, explain, physics=True)


@register
class FilesNotKeptRule(AnomalyRule):
    """Configuration files of the run past the site's budget per run (a count and bytes in all) were not kept.

    Every reader of a run page pays for its kept files, so an upload may not choose their number; what was left
    out is said on the run rather than dropped unseen. info: neither the score nor a verdict depends on them.
    """

    name = "files_not_kept"
    description = "configuration files past the per-run budget (files, bytes) were not kept"
    severity = "info"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        left_out = facts.files_not_kept
        if not left_out:
            return []
        count, names, budget = left_out["count"], left_out["files"], left_out["budget"]
        more = f" and {count - len(names)} more" if count > len(names) else ""
        message = (
            f"{count} configuration file{'' if count == 1 else 's'} not kept, past this site's budget of "
            f"{budget['files']:,} files and {budget['bytes']:,} bytes per run: {', '.join(names)}{more}"
        )
        return [self.finding(message, left_out)]


@register
class RandomReadFasterThanSequentialRule(AnomalyRule):
    """4 KiB random reads of the ior-easy files faster than reading them sequentially.

    Random small reads cannot beat large streaming reads of the same files from storage; when
    they do, they hit a cache (IO500 issues #88 and #109). info: the phase is not scored.
    """

    name = "random_read_faster_than_sequential"
    description = "ior-rnd4K-easy-read above ior-easy-read (unscored phase served from cache)"
    severity = "info"
    thresholds = ("random_over_sequential_read",)

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        pairs = (("ior_rnd4k_easy_read", "ior_easy_read", "random_over_sequential_read"),)
        explain = "random 4 KiB reads cannot outrun streaming reads of the same files without a cache."
        return _ratio_findings(self, facts, thresholds, pairs, explain)


@register
class WritePhaseUnderMinimumRule(AnomalyRule):
    """A write phase that printed a run time below the IO500 minimum (300 s; 30 s under SCC rules).

    warn, not error: the benchmark's own check used a different clock (the bash scripts rounded
    the shell-measured duration; their summaries print IOR's ``total(s)`` or mdtest's SUMMARY
    time), so the printed time alone does not prove the run invalid. When the benchmark did
    judge it invalid, ``benchmark_marked_invalid`` reports that as an error.
    """

    name = "write_phase_under_minimum"
    clause = "IO500-WRITE-300S"
    description = "a write phase printed a run time below the minimum write time of the rules"
    severity = "warn"
    thresholds = ("write_phase_minimum_seconds", "write_phase_minimum_seconds_scc")

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        scc = facts.rules_mode == "scc"
        minimum = float(thresholds["write_phase_minimum_seconds_scc" if scc else "write_phase_minimum_seconds"])
        findings = []
        for name in WRITE_PHASES:
            phase = facts.phases.get(name)
            if not phase or phase.seconds is None or phase.seconds >= minimum:
                continue
            message = (
                f"{name} ran {phase.seconds:g} s, below the {minimum:g} s minimum of the "
                f"{'student cluster competition' if scc else 'IO500'} rules"
            )
            evidence = {
                "phase": name,
                "seconds": phase.seconds,
                "minimum_seconds": minimum,
                "rules_mode": facts.rules_mode,
                "marked_invalid_by_benchmark": phase.invalid,
                **_where(phase),
            }
            findings.append(self.finding(message, evidence, phase=name))
        return findings


def _printed_relative_precision(printed_value: str, value: float, era: str) -> float:
    """Half a unit in the last printed place, relative to the value.

    The bash scripts print phases with 3 decimals (from values rounded to 6 significant digits),
    the C application with 6; without a printed string the era's format is assumed.
    """
    decimals = _decimals(printed_value)
    if decimals is None:
        decimals = 3 if era == ERA_SCRIPT else 6
    return 0.5 * 10.0**-decimals / abs(value)


def _decimals(printed: str) -> int | None:
    match = re.fullmatch(r"\s*[-+]?\d*(?:\.(\d*))?\s*", printed or "")
    if not match or not printed.strip():
        return None
    return len(match.group(1) or "")


def _printed_score_precision(printed: str, value: float, era: str) -> float:
    """Relative precision of a printed BW/MD/TOTAL: awk ``%.6g`` (bash) or C ``%f`` (6 decimals)."""
    if value == 0:
        return 0.0
    if era == ERA_SCRIPT:
        return 5e-6
    decimals = _decimals(printed)
    return 0.5 * 10.0 ** -(6 if decimals is None else decimals) / abs(value)


def _mean_precision(facts: RunFacts, names: tuple[str, ...]) -> float:
    phases = [facts.phases[name] for name in names if name in facts.phases]
    precisions = [
        _printed_relative_precision(phase.printed_value, phase.value, facts.era)
        for phase in phases
        if phase.value and phase.value > 0
    ]
    return sum(precisions) / len(precisions) if precisions else 0.0


def _relative_difference(reported: float, computed: float) -> float:
    if computed == 0:
        return 0.0 if reported == 0 else math.inf
    return abs(reported - computed) / abs(computed)


def score_reproduction(facts: RunFacts, safety: float) -> dict[str, dict[str, Any]]:
    """Printed vs recomputed BW, MD and (sqrt-formula runs only) TOTAL, each with its tolerance.

    The tolerance is derived per run from printing precision: each phase's half-unit in the
    last printed place propagated through the geometric means (and, for TOTAL, the square root),
    plus the precision of the printed score itself, times ``safety``.
    """
    reported, computed = facts.reported_score, facts.computed_score
    md_names = SC17_MD_PHASES if facts.generation == GENERATION_SC17 else MD_PHASES
    bw_error, md_error = _mean_precision(facts, BW_PHASES), _mean_precision(facts, md_names)
    checks = {
        "bw": (reported.bw, reported.printed_bw, computed.bw, bw_error),
        "md": (reported.md, reported.printed_md, computed.md, md_error),
    }
    if facts.score_formula != "product":
        checks["total"] = (reported.total, reported.printed_total, computed.total, 0.5 * (bw_error + md_error))
    comparison = {}
    for component, (value, printed, expected, propagated) in checks.items():
        if value is None or expected is None:
            continue
        tolerance = safety * (propagated + _printed_score_precision(printed, value, facts.era))
        comparison[component] = {
            "reported": value,
            "printed": printed,
            "computed": expected,
            "relative_difference": _relative_difference(value, expected),
            "tolerance": tolerance,
        }
    return comparison


def reproduced(component: Mapping[str, Any]) -> bool:
    """Whether one ``score_reproduction`` component agrees: the difference is within its tolerance.

    The one definition of "the reported score agrees with the computed one", for the anomaly rule
    and the run page alike.
    """
    return component["relative_difference"] <= component["tolerance"]


@register
class ReportedScoreMismatchRule(AnomalyRule):
    """The printed BW / MD / TOTAL differ from what the run's own phase values give.

    Beyond printing precision (see ``score_reproduction``) the summary was edited or belongs to
    other phases: error. A TOTAL printed with the 2017-18 ``io500_fixed.sh`` product formula
    (BW x MD) is not comparable with any list score: warn, the board ranks the recomputed sqrt.
    """

    name = "reported_score_mismatch"
    clause = "IO500-SCORE-CONSISTENT"
    description = "printed score differs from the score recomputed from the printed phases"
    severity = "error"
    thresholds = ("score_tolerance_safety_factor",)

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        if facts.reported_score.total is None or facts.computed_score.total is None:
            return []
        comparison = score_reproduction(facts, float(thresholds["score_tolerance_safety_factor"]))
        differing = {name: item for name, item in comparison.items() if not reproduced(item)}
        evidence = {
            "components": differing,
            "score_formula": facts.score_formula,
            "printed_total": facts.reported_score.printed_total or _number(facts.reported_score.total),
            "comparable_total": facts.computed_score.total,
            "era": facts.era,
            "source_file": facts.reported_score.source_file,
            "source_line": facts.reported_score.source_line,
        }
        if differing:
            parts = ", ".join(
                f"{name.upper()} {_number(item['reported'])} vs {_number(item['computed'])}"
                for name, item in differing.items()
            )
            message = f"printed score cannot be reproduced from the printed phases ({parts}, printed vs recomputed)"
            return [self.finding(message, evidence)]
        if facts.score_formula == "product":
            message = (
                f"printed TOTAL {evidence['printed_total']} is BW x MD, the product formula of the 2017-18 "
                f"scripts; the comparable sqrt score is {_number(facts.computed_score.total)}"
            )
            return [self.finding(message, evidence, severity="warn")]
        return []


@register
class ScoreHashMismatchRule(AnomalyRule):
    """The ``hash`` of result.txt does not match its printed values.

    The C application hashes the version, every scored phase and the score; ``io500 --verify``
    fails when any of them was changed after the run. error: the numbers cannot be trusted.
    """

    name = "score_hash_mismatch"
    clause = "IO500-SCORE-HASH"
    description = "result.txt score hash does not match the printed phase values and score"
    severity = "error"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        if facts.verification != "hash_mismatch":
            return []
        message = "the score hash in result.txt does not match its values: edited after the run or corrupt"
        evidence = {
            "verification": facts.verification,
            "benchmark_version": facts.benchmark_version,
            "printed_total": facts.reported_score.printed_total,
            "source_file": facts.reported_score.source_file,
            "source_line": facts.reported_score.source_line,
        }
        return [self.finding(message, evidence)]


@register
class MissingPhaseRule(AnomalyRule):
    """A scored phase is absent, or its value is zero or unreadable.

    The benchmark itself scores such a run 0 (bash, C up to isc21) or marks it invalid (sc21 on),
    so it is not a complete IO500 result: error. SC17 runs had no mdtest_hard_read.
    """

    name = "missing_phase"
    clause = "IO500-ALL-PHASES"
    description = "a scored phase is missing, zero or unreadable"
    severity = "error"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        required = BW_PHASES + (SC17_MD_PHASES if facts.generation == GENERATION_SC17 else MD_PHASES)
        absent = [name for name in required if name not in facts.phases]
        empty = [name for name in required if name in facts.phases and not (facts.phases[name].value or 0) > 0]
        if not absent and not empty:
            return []
        described = ", ".join([*(f"{name} (absent)" for name in absent), *(f"{name} (zero)" for name in empty)])
        evidence = {
            "absent": absent,
            "zero_or_unreadable": {name: _where(facts.phases[name]) for name in empty},
            "required": list(required),
        }
        return [self.finding(f"scored phases missing: {described}", evidence)]


@register
class BenchmarkMarkedInvalidRule(AnomalyRule):
    """The benchmark itself declared the run or a phase invalid.

    ``[RESULT-invalid]``/``[SCORE-invalid]`` (bash), ``[INVALID]`` markers or ``; ERROR INVALID``
    comments in result.txt (C). error: by its own judgement this is not a valid IO500 result.
    """

    name = "benchmark_marked_invalid"
    clause = "IO500-VALID"
    description = "the benchmark marked the run or one of its phases invalid"
    severity = "error"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        invalid_phases = {name: _where(phase) for name, phase in facts.phases.items() if phase.invalid}
        if facts.valid and not facts.invalid_reasons and not invalid_phases:
            return []
        reasons = list(facts.invalid_reasons) or [f"{name} marked invalid" for name in invalid_phases]
        message = "the benchmark marked this run invalid: " + "; ".join(reasons or ["no reason printed"])
        evidence = {"valid": facts.valid, "reasons": list(facts.invalid_reasons), "invalid_phases": invalid_phases}
        return [self.finding(message, evidence, severity=self.severity_for(facts, invalid_phases))]

    @staticmethod
    def severity_for(facts: RunFacts, invalid_phases: dict) -> str:
        """Only a stonewall-time comment under an unmarked score: warn, not error.

        From isc21 the C application writes "; ERROR INVALID stonewall-time < 30s" when an scc run
        used the stricter 300 s stonewall, yet leaves the score unmarked (docs/io500-formats.md §4.1):
        the run met a stricter rule than required, so it stays ranked with a badge.
        """
        only_stonewall_comments = facts.invalid_reasons and all(
            "stonewall-time" in reason for reason in facts.invalid_reasons
        )
        return "warn" if facts.valid and not invalid_phases and only_stonewall_comments else "error"


@register
class StatWithoutRankShiftRule(AnomalyRule):
    """mdtest stat/read phases run without ``-N`` (rank shift) when the benchmark required it.

    Since 2019-07-26 io500.sh, and every C application build, passes ``-N 1`` so that no rank
    stats or reads the files it created itself; without it the phase measures client caches.
    Leaving it out of a run of that era means a modified benchmark: error. Older runs are not
    judged (their stat phases may still trip ``cache_effect_stat``).
    """

    name = "stat_without_rank_shift"
    clause = "IO500-RANK-SHIFT"
    description = "mdtest stat/read phase ran without the mandatory -N rank shift"
    severity = "error"
    thresholds = ("rank_shift_required_from",)

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        required_from = str(thresholds["rank_shift_required_from"])
        if facts.era != ERA_CAPP and not (facts.run_date and facts.run_date >= required_from):
            return []
        findings = []
        for name in RANK_SHIFT_PHASES:
            phase = facts.phases.get(name)
            if not phase or phase.rank_shift != 0:
                continue
            message = f"{name} ran without -N (rank shift), mandatory for runs from {required_from}"
            evidence = {
                "phase": name,
                "command": phase.command,
                "rank_shift": phase.rank_shift,
                "run_date": facts.run_date,
                "era": facts.era,
                "required_from": required_from,
                **_where(phase),
            }
            findings.append(self.finding(message, evidence, phase=name))
        return findings


@register
class NodeCountMismatchRule(AnomalyRule):
    """The evidence of the client-node count disagrees: the tools' own counts, mdtest's Nodemap, the hostfile's
    name and the declared count (apps.results.judgements.anomalies.node_counts).

    Node counts decide list eligibility (10-node lists) and per-node comparisons. A tool count that equals the
    process count (one node per process, as some MPI stacks make mdtest and IOR count) must not pass silently
    when other evidence disagrees. warn: the run stands, listed with the best-supported count or none.
    """

    name = "node_count_mismatch"
    clause = "IO500-NODES-DECLARED"
    description = "the client-node evidence disagrees (tools, Nodemap, hostfile, declared count)"
    severity = "warn"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        pieces = node_count_evidence(facts)
        if not disagree(pieces):
            return []
        counts = sorted({piece.nodes for piece in pieces})
        best = best_supported(pieces)
        listed = (
            f"the lists use {best}, the best-supported count"
            if best is not None
            else "no count is better supported than the others, so the lists use none"
        )
        message = (
            f"the client-node count is uncertain: the evidence says {', '.join(map(str, counts))} node(s); "
            f"{listed}. " + "; ".join(piece.detail for piece in distinct(pieces))
        )
        reported = sorted({piece.nodes for piece in pieces if piece.source == "tool"})
        evidence = {
            "declared": facts.client_nodes_declared,
            "declared_source": facts.client_nodes_declared_source,
            "reported": reported,
            "disagreeing": [
                entry
                for entry in facts.tool_node_counts
                if entry.get("nodes") and best is not None and int(entry["nodes"]) != best
            ],
            "pieces": [piece.to_dict() for piece in distinct(pieces)],
            "best_supported": best,
        }
        return [self.finding(message, evidence)]


@register
class DuplicateResultRule(AnomalyRule):
    """The same result (its files, or its three scores to the last bit) is stored under another run, possibly of
    another system.

    Identical content hashes mean one benchmark execution submitted twice (CERN 179/193, JAMSTEC
    548/689 in the public corpus), sometimes under a different system name. warn: a ranked list
    must count it once, and the badge says where the other copies are.
    """

    name = "duplicate_result"
    description = "identical result files are filed under another run or system"
    severity = "warn"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        others = list(context.runs_with_same_content_hash)
        if not others or not facts.content_hash:
            return []
        this_system = context.system
        other_systems = [
            other for other in others if this_system and str(other.get("system_id", this_system)) != this_system
        ]
        names = ", ".join(str(other.get("path") or other.get("submission") or other.get("run_id")) for other in others)
        where = "another system" if other_systems else "another run"
        message = f"the same result (its files or its three scores) is also stored under {where}: {names}"
        evidence = {
            "content_hash": facts.content_hash,
            "run_id": context.run_id,
            "other_runs": others,
            "other_systems": other_systems,
        }
        return [self.finding(message, evidence)]


@register
class SummaryDiffersFromRunRule(AnomalyRule):
    """A second result summary in the submission (usually at its root) is not this run.

    The official upload site reads the last ``result_summary.txt`` it finds, so such a copy can
    put another run's numbers on the list (SoftBank, Poznan, Eikon submissions). warn.
    """

    name = "summary_differs_from_run"
    description = "another result summary in the submission disagrees with this run"
    severity = "warn"

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        findings = []
        for conflict in facts.summary_conflicts:
            where = conflict.get("source_file") or "another summary"
            detail = conflict.get("difference") or "different values"
            findings.append(self.finding(f"{where} disagrees with this run: {detail}", dict(conflict)))
        return findings


@register
class StonewallInflatedRateRule(AnomalyRule):
    """An mdtest write rate computed from the planned item count instead of the items created.

    SC18-era mdtest (IOR-bundled 1.9.3 with ``-W``) divided the planned items by the stonewalled
    time; the SC18* list corrected such rates, the printed TOTAL did not. warn.
    """

    name = "stonewall_inflated_rate"
    clause = "IO500-SC18-MDTEST-RATE"
    description = "mdtest write rate x time exceeds the items actually created (SC18 stonewall bug)"
    severity = "warn"
    thresholds = ("stonewall_inflation_ratio",)

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        limit = float(thresholds["stonewall_inflation_ratio"])
        findings = []
        for entry in facts.stonewall_inflation:
            created, rate, seconds = entry.get("items_created"), entry.get("rate_per_second"), entry.get("seconds")
            if not created or not rate or not seconds:
                continue
            ratio = rate * seconds / created
            if ratio <= limit:
                continue
            phase = str(entry.get("phase", ""))
            message = (
                f"{phase} rate x time implies {rate * seconds:.0f} items but only {created:.0f} were created "
                f"({ratio:.1f}x): the rate was computed from planned items"
            )
            findings.append(self.finding(message, {**entry, "ratio": ratio, "threshold": limit}, phase=phase))
        return findings


@register
class RankImbalanceRule(AnomalyRule):
    """The ranks of a phase finished far apart: a straggler client, link or server held the phase back.

    Read from the per-rank CSVs of the C app: the time imbalance (slowest - fastest) / slowest of
    the phase's per-rank runtimes. The aggregate score hides it, the per-rank chart shows it. warn:
    an imbalanced run is a valid run, but the score is the slowest rank's, not the system's.
    """

    name = "rank_imbalance"
    description = "the slowest rank of a phase ran far longer than the fastest (straggler)"
    severity = "warn"
    thresholds = ("rank_time_imbalance",)

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        limit = float(thresholds["rank_time_imbalance"])
        findings = []
        for phase, stats in sorted(facts.rank_stats.items()):
            longest, shortest = stats.get("runtime_max"), stats.get("runtime_min")
            if not longest or shortest is None or stats.get("ranks", 0) < 2:
                continue
            fraction = (longest - shortest) / longest
            if fraction < limit:
                continue
            message = (
                f"{phase}: rank {stats['slowest_rank']} ran {longest:.4g} s, rank {stats['fastest_rank']} "
                f"{shortest:.4g} s (the fastest idled {fraction:.0%} of the slowest's time; threshold {limit:.0%})"
            )
            evidence = {
                "phase": phase,
                "time_imbalance": fraction,
                "threshold": limit,
                "drishti_imbalance_threshold": 0.30,
                **{
                    key: stats.get(key)
                    for key in (
                        "ranks",
                        "slowest_rank",
                        "fastest_rank",
                        "runtime_max",
                        "runtime_min",
                        "runtime_median",
                        "imbalance",
                        "cv",
                    )
                },
                "slow_tail_ranks": len(stats.get("slow_tail") or []),
                "stonewall_pairs": stats.get("stonewall_pairs") or {},
                "source_file": stats.get("source_file", ""),
            }
            findings.append(self.finding(message, evidence, phase=phase))
        return findings


@register
class AboveMeasuredCeilingRule(AnomalyRule):
    """An IOR bandwidth phase is beyond what the storage system's hardware was measured to deliver.

    A bottom-up campaign (a stack, docs/stacks.md) measured the drives, arrays, OSTs and the fabric of
    this storage system; its ceiling is the smaller of the storage servers' summed storage and network
    figures. A write phase above ``measured_ceiling_factor`` x the write ceiling (a read phase, the
    read ceiling) was served by something the campaign did not measure: client cache, or an inventory
    that is wrong. warn: the run stands; the badge gives the sums to check.
    """

    name = "above_measured_ceiling"
    description = "a bandwidth phase exceeds 1.10 x the ceiling the system's stack was measured to deliver"
    severity = "warn"
    thresholds = ("measured_ceiling_factor",)

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        ceiling = context.measured_ceiling
        if not ceiling:
            return []
        factor = float(thresholds["measured_ceiling_factor"])
        findings = []
        for name in BW_PHASES:
            phase = facts.phases.get(name)
            operation = "write" if name in WRITE_PHASES else "read"
            limit = ceiling.get(operation)
            if not (phase and phase.value and limit):
                continue
            measured = phase.value * GIB_PER_S_IN_MB_PER_S
            if measured <= factor * limit:
                continue
            limited_by = (ceiling.get("limited_by") or {}).get(operation, "")
            storage = (ceiling.get("storage") or {}).get(operation)
            network = (ceiling.get("network") or {}).get(operation)
            message = (
                f"{name} ran at {measured:,.0f} MB/s, {measured / limit:.2f}x the {operation} ceiling of "
                f"{limit:,.0f} MB/s that stack {ceiling.get('stack', '')!r} measured (storage servers: storage "
                f"{_number(storage)} MB/s, network {_number(network)} MB/s; limited by {limited_by or 'unknown'})"
            )
            evidence = {
                "phase": name,
                "operation": operation,
                "value_gib_s": phase.value,
                "printed_value": phase.printed_value,
                "measured_mb_s": measured,
                "ceiling_mb_s": limit,
                "ratio": measured / limit,
                "threshold": factor,
                "stack": ceiling.get("stack", ""),
                "limited_by": limited_by,
                "storage_sum_mb_s": storage,
                "network_sum_mb_s": network,
                **_where(phase),
            }
            findings.append(self.finding(message, evidence, phase=name))
        return findings
