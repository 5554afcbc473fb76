"""Anomaly rules: named, threshold-driven checks over a run's facts, each returning findings with evidence.

Pure Python (no Django): ingest builds ``RunFacts`` from a parsed record, the database layer
supplies a ``RuleContext`` (duplicates) and stores the ``AnomalyFinding`` list. Importing the package
registers every rule of ``rules.py``.
"""

from apps.results.judgements.anomalies import rules
from apps.results.judgements.anomalies.facts import PhaseFacts, RunFacts, ScoreFacts
from apps.results.judgements.anomalies.registry import (
    RULES,
    SEVERITIES,
    AnomalyFinding,
    AnomalyRule,
    RuleContext,
    evaluate_all,
    register,
    resolve_thresholds,
)
from apps.results.judgements.anomalies.thresholds import DEFAULT_THRESHOLDS

__all__ = [
    "DEFAULT_THRESHOLDS",
    "RULES",
    "SEVERITIES",
    "AnomalyFinding",
    "AnomalyRule",
    "PhaseFacts",
    "RuleContext",
    "RunFacts",
    "ScoreFacts",
    "evaluate_all",
    "register",
    "resolve_thresholds",
    "rules",
]
