"""Calibration of the anomaly thresholds against a corpus, and agreement with expected labels.

Used by ``bench/anomaly_calibration.py`` (prints the tables of docs/anomalies.md) and by the
corpus test. Thresholds come from distributions over all runs, never from individual runs:
a ratio threshold is ``RATIO_MULTIPLE`` times the ``RATIO_QUANTILE`` quantile of that ratio,
rounded to two significant digits.
"""

from __future__ import annotations

import csv
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from apps.results.anomalies.facts import RunFacts
from apps.results.anomalies.rules import READ_PAIRS, STAT_PAIRS

RATIO_QUANTILE = 0.90
RATIO_MULTIPLE = 5.0
RATIO_PAIRS = (*STAT_PAIRS, *READ_PAIRS)

# anomaly_kinds of the corpus's expected.csv -> the rule that must report them
KIND_TO_RULE = {
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


def load_expected_kinds(csv_path: Path) -> dict[str, set[str]]:
    """submission id -> anomaly kinds, from the corpus's ``expected.csv``."""
    with open(csv_path, newline="", encoding="utf-8") as handle:
        return {
            row["submission_id"]: {kind for kind in row["anomaly_kinds"].split(";") if kind}
            for row in csv.DictReader(handle)
        }


@dataclass
class KindAgreement:
    """How one rule agrees with one expected kind, counted per submission."""

    kind: str
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
    kind_to_rule: Mapping[str, str] = KIND_TO_RULE,
) -> list[KindAgreement]:
    """Recall and false-positive rate of each rule against its kind, over the labelled submissions.

    A submission counts as detected when any of its result sets got the rule. Submissions
    without parsed runs count as not flagged.
    """
    results = []
    for kind, rule in kind_to_rule.items():
        tally = KindAgreement(kind=kind, rule=rule)
        for submission, kinds in sorted(expected.items(), key=lambda item: int(item[0])):
            flagged = rule in rules_by_submission.get(submission, set())
            if kind in kinds:
                tally.positives.append(submission)
                if flagged:
                    tally.detected.append(submission)
            else:
                tally.negatives.append(submission)
                if flagged:
                    tally.false_positives.append(submission)
        results.append(tally)
    return results
