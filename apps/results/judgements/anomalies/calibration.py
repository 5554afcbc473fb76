"""Calibration of the anomaly thresholds against a corpus, and agreement with expected labels.

Used by ``python -m bench anomaly_calibration`` (prints the tables of docs/anomalies.md) and by the
corpus test. Thresholds come from distributions over all runs, never from individual runs:
a ratio threshold is ``RATIO_MULTIPLE`` times the ``RATIO_QUANTILE`` quantile of that ratio,
rounded to two significant digits.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apps.results.judgements.anomalies import cache_physics
from apps.results.judgements.anomalies.cache_physics import IOR_READ_PAIRS, READ_PAIRS, STAT_PAIRS
from apps.results.judgements.anomalies.facts import RunFacts
from apps.results.judgements.anomalies.thresholds import DEFAULT_THRESHOLDS, RATIO_MULTIPLE, RATIO_QUANTILE

RATIO_PAIRS = (*STAT_PAIRS, *READ_PAIRS)

# labels (the anomaly_kinds column) of the corpus's expected.csv -> the rule that must report them
LABEL_TO_RULE = {
    "cache_effect_stat": "cache_effect_stat",
    "cache_effect_read": "cache_effect_read",
    "write_phase_under_300s": "write_phase_under_minimum",
    "printed_score_mismatch": "reported_score_mismatch",
    "benchmark_marked_invalid": "benchmark_marked_invalid",
}
_SUBMISSION = re.compile(r"(?:^|/)submission-(\d+)(?:/|$)")


def percentile(values: Iterable[float], quantile: float) -> float:
    """Linear-interpolation quantile (numpy's default), of a non-empty collection."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values")
    position = (len(ordered) - 1) * quantile
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def round_significant(value: float, digits: int = 2) -> float:
    if value == 0:
        return 0.0
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def phase_ratios(runs: Iterable[RunFacts], fast: str, reference: str) -> list[float]:
    """``fast / reference`` for every run that has both phases with positive values."""
    ratios = []
    for facts in runs:
        numerator, denominator = facts.phase_value(fast), facts.phase_value(reference)
        if numerator and denominator and numerator > 0 and denominator > 0:
            ratios.append(numerator / denominator)
    return ratios


def suggested_ratio_threshold(ratios: list[float]) -> float:
    return round_significant(RATIO_MULTIPLE * percentile(ratios, RATIO_QUANTILE))


@dataclass
class RatioDistribution:
    fast: str
    reference: str
    threshold_key: str
    ratios: list[float]

    def quantile(self, quantile: float) -> float:
        return percentile(self.ratios, quantile)

    @property
    def suggested_threshold(self) -> float:
        return suggested_ratio_threshold(self.ratios)


def ratio_distributions(runs: list[RunFacts]) -> list[RatioDistribution]:
    return [
        RatioDistribution(fast, reference, key, phase_ratios(runs, fast, reference))
        for fast, reference, key in RATIO_PAIRS
    ]


def submission_id(path: str) -> str | None:
    """The ``submission-<N>`` folder a result set sits in (the key of expected.csv rows)."""
    match = _SUBMISSION.search(path.replace("\\", "/"))
    return match.group(1) if match else None


def load_expected_labels(csv_path: Path) -> dict[str, set[str]]:
    """submission id -> its labels (the ``anomaly_kinds`` column) of the corpus's ``expected.csv``."""
    with open(csv_path, newline="", encoding="utf-8") as handle:
        return {
            row["submission_id"]: {label for label in row["anomaly_kinds"].split(";") if label}
            for row in csv.DictReader(handle)
        }


@dataclass
class LabelAgreement:
    """How one rule agrees with one expected label, counted per submission."""

    label: str
    rule: str
    positives: list[str] = field(default_factory=list)
    detected: list[str] = field(default_factory=list)
    negatives: list[str] = field(default_factory=list)
    false_positives: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return len(self.detected) / len(self.positives) if self.positives else 1.0

    @property
    def false_positive_rate(self) -> float:
        return len(self.false_positives) / len(self.negatives) if self.negatives else 0.0

    @property
    def missed(self) -> list[str]:
        return [submission for submission in self.positives if submission not in self.detected]


def agreement(
    rules_by_submission: Mapping[str, set[str]],
    expected: Mapping[str, set[str]],
    label_to_rule: Mapping[str, str] = LABEL_TO_RULE,
) -> list[LabelAgreement]:
    """Recall and false-positive rate of each rule against its label, over the labelled submissions.

    A submission counts as detected when any of its result sets got the rule. Submissions
    without parsed runs count as not flagged.
    """
    results = []
    for label, rule in label_to_rule.items():
        tally = LabelAgreement(label=label, rule=rule)
        for submission, labels in sorted(expected.items(), key=lambda item: int(item[0])):
            flagged = rule in rules_by_submission.get(submission, set())
            if label in labels:
                tally.positives.append(submission)
                if flagged:
                    tally.detected.append(submission)
            else:
                tally.negatives.append(submission)
                if flagged:
                    tally.false_positives.append(submission)
        results.append(tally)
    return results


# -- Out of sample -------------------------------------------------------------------------------
# The ratio thresholds are fitted without labels (5 x p90 of the ratio), but fitted on the runs they
# are then judged on, their recall is in-sample. Out of sample, every run is judged with thresholds
# fitted on other runs only, chosen by a split that never looks at labels:
#
# * ``by_year``: forward chaining. A run in folder year Y is judged with thresholds fitted on the
#   runs of the years before Y (at least ``MIN_TRAINING_RUNS`` of them; runs of earlier years are
#   not judged by this split). This is how the board meets new submissions.
# * ``by_institution``: leave one institution out. Every run is judged with thresholds fitted on
#   the runs of all other institutions, so a site's repeated submissions cannot calibrate each other.

MIN_TRAINING_RUNS = 20
_YEAR_FOLDER = re.compile(r"(?:^|/)((?:19|20)\d\d)/")


def folder_year(path: str) -> int | None:
    """The ``<Year>`` folder of the corpus layout (the upload year, not the list year)."""
    match = _YEAR_FOLDER.search(path.replace("\\", "/"))
    return int(match.group(1)) if match else None


def institution_of(path: str) -> str:
    return path.replace("\\", "/").split("/", 1)[0]


DRISHTI_IMBALANCE = 0.30  # drishti/includes/module.py: imbalance threshold of per-rank time
RANK_IMBALANCE_QUANTILE = 0.95


def rank_time_imbalances(runs: Iterable[RunFacts]) -> list[float]:
    """(slowest - fastest) / slowest rank runtime of every phase with per-rank data."""
    return [
        (stats["runtime_max"] - stats["runtime_min"]) / stats["runtime_max"]
        for facts in runs
        for stats in facts.rank_stats.values()
        if stats.get("runtime_max")
    ]


def fit_rank_imbalance(training: list[RunFacts]) -> float | None:
    """Drishti's 0.30, raised to the 95th percentile of the training phases; None without per-rank data."""
    fractions = rank_time_imbalances(training)
    if not fractions:
        return None
    return max(DRISHTI_IMBALANCE, round_significant(percentile(fractions, RANK_IMBALANCE_QUANTILE)))


def fit_thresholds(training: list[RunFacts]) -> dict[str, float]:
    """Every fitted threshold: the ratio pairs, the weights of the cache evidence, the rank imbalance."""
    fitted = fit_ratio_thresholds(training)
    fitted.update(fit_cache_weights(training, fitted))
    imbalance = fit_rank_imbalance(training)
    if imbalance is not None:
        fitted["rank_time_imbalance"] = imbalance
    return fitted


def fit_ratio_thresholds(training: list[RunFacts]) -> dict[str, float]:
    """The calibration procedure itself: ``RATIO_MULTIPLE`` x the ``RATIO_QUANTILE`` quantile per pair."""
    fitted = {}
    for distribution in ratio_distributions(training):
        if distribution.ratios:
            fitted[distribution.threshold_key] = distribution.suggested_threshold
    return fitted


def piece_weight(present: int, known: int) -> float:
    """Weight of a piece of cache evidence seen in ``present`` of the ``known`` training runs.

    Its information against that of a ratio beyond its p90: ``log(1/share) / log(1/(1 - RATIO_QUANTILE))``
    with the share smoothed to ``(present + 1) / (known + 2)`` (a piece never seen is not certain
    evidence), at most 1, two significant digits. A piece at most as common as a ratio beyond p90
    (10 % of the runs) counts as one more exceedance; a piece most runs show counts for little.
    """
    share = (present + 1) / (known + 2)
    return round_significant(min(1.0, math.log(share) / math.log(1 - RATIO_QUANTILE)))


def _piece_counts(training: list[RunFacts], thresholds: Mapping[str, Any]) -> dict[str, tuple[int, int]]:
    """threshold key -> (runs showing the supporting verdict, runs where the piece is known)."""
    counts = {key: [0, 0] for key in cache_physics.WEIGHT_KEYS}

    def count(key: str, verdict: bool | None) -> None:
        if verdict is not None:
            counts[key][0] += bool(verdict)
            counts[key][1] += 1

    ior_reads = [fast for fast, _, _ in IOR_READ_PAIRS]
    for facts in training:
        owned = [cache_physics.own_data(facts, facts.phases[name], name) for name in ior_reads if name in facts.phases]
        known = [own for own in owned if own is not None]
        count(cache_physics.LOCALITY_WEIGHT["ior"], any(known) if known else None)
        memories = [cache_physics.memory(facts, facts.phases[name]) for name in ior_reads if name in facts.phases]
        verdicts = [piece["verdict"] for piece in memories if piece]
        count("cache_weight_memory_fits", "fits" in verdicts if verdicts else None)
        siblings = [cache_physics.sibling_read(facts, name, thresholds) for name in ior_reads]
        verdicts = [piece["verdict"] for piece in siblings if piece]
        count("cache_weight_sibling_read", "unusual" in verdicts if verdicts else None)
    return {key: (present, known) for key, (present, known) in counts.items()}


def fit_cache_weights(training: list[RunFacts], ratio_thresholds: Mapping[str, float]) -> dict[str, float]:
    """The weight of each supporting piece of cache evidence (``cache_physics``), from the training runs.

    Label-free like the ratio thresholds: only how common each piece is among the training runs,
    judged with the ratio thresholds fitted on the same runs. A run counts once per piece (a read
    without reordering on ior-easy or ior-hard ...).
    """
    thresholds = {**DEFAULT_THRESHOLDS, **ratio_thresholds}
    return {key: piece_weight(*counted) for key, counted in _piece_counts(training, thresholds).items()}


def split_by_year(runs: list[RunFacts]) -> list[tuple[list[RunFacts], list[RunFacts]]]:
    """(training, judged) pairs of forward chaining over folder years."""
    years = sorted({year for year in map(folder_year, (r.source_path for r in runs)) if year is not None})
    splits = []
    for year in years:
        training = [r for r in runs if (folder_year(r.source_path) or 0) < year]
        judged = [r for r in runs if folder_year(r.source_path) == year]
        if len(training) >= MIN_TRAINING_RUNS:
            splits.append((training, judged))
    return splits


def split_by_institution(runs: list[RunFacts]) -> list[tuple[list[RunFacts], list[RunFacts]]]:
    institutions = sorted({institution_of(r.source_path) for r in runs})
    return [
        (
            [r for r in runs if institution_of(r.source_path) != name],
            [r for r in runs if institution_of(r.source_path) == name],
        )
        for name in institutions
    ]


SPLITS = {"by_year": split_by_year, "by_institution": split_by_institution}


def held_out_rules(
    runs: list[RunFacts],
    split: str,
    evaluate: Callable[[RunFacts, Mapping[str, float]], Iterable[str]],
    base_thresholds: Mapping[str, Any] | None = None,
) -> dict[str, set[str]]:
    """Rule names per submission, each run judged with thresholds fitted on its split's training runs.

    ``evaluate(facts, thresholds)`` returns the rule names that fire; only the judged submissions
    appear in the result, so recall and false positives are counted over held-out runs alone.
    """
    flagged: dict[str, set[str]] = {}
    for training, judged in SPLITS[split](runs):
        thresholds = {**(base_thresholds or {}), **fit_thresholds(training)}
        for facts in judged:
            submission = submission_id(facts.source_path)
            if submission:
                flagged.setdefault(submission, set()).update(evaluate(facts, thresholds))
    return flagged


# node_count_mismatch answers to two labels of expected.csv: the declared count differs from the
# tools' (``declared_nodes_differ``) and the official count differs from the files'
# (``client_nodes_mismatch``). A run with either label is a positive; a false positive is a run
# flagged with neither.
NODE_COUNT_LABELS = ("declared_nodes_differ", "client_nodes_mismatch")
NODE_COUNT_LABEL = "node_count_labelled"


def with_node_count_label(expected: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The labels with ``NODE_COUNT_LABEL`` added wherever one of ``NODE_COUNT_LABELS`` is."""
    return {
        submission: labels | ({NODE_COUNT_LABEL} if labels & set(NODE_COUNT_LABELS) else set())
        for submission, labels in expected.items()
    }
