"""The rule registry: named rule classes, the findings they return and how they are run.

A rule is a class with a self-explaining ``name`` (it becomes ``Anomaly.rule`` in the database
and the badge text), a ``description`` for the documentation, and ``evaluate(facts, thresholds,
context)``. Severity decides what the board does with a finding: ``error`` excludes the run
from ranked lists, ``warn`` shows a badge, ``info`` is shown on the run page only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from apps.results.judgements.anomalies.facts import RunFacts
from apps.results.judgements.anomalies.thresholds import DEFAULT_THRESHOLDS

SEVERITIES = ("error", "warn", "info")


@dataclass
class AnomalyFinding:
    """One anomaly: which rule, how bad, which phase, a sentence, and the numbers and lines behind it."""

    rule: str
    severity: str
    phase: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"severity must be one of {SEVERITIES}, not {self.severity!r}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class RuleContext:
    """What only the database knows: this run's identity and the stored runs of the same result (the same content
    hash, or the same scores: ``apps.results.services.anomaly_checks.same_result``).

    ``system`` identifies this run's storage system; each entry of ``runs_with_same_content_hash``
    describes one other run, e.g. ``{"run_id": 17, "submission": "193", "path": "...",
    "system": "CERN / Bytecollider", "system_id": 4}``, and is repeated in the evidence as given.
    """

    run_id: int | str | None = None
    system: str = ""
    runs_with_same_content_hash: list[dict[str, Any]] = field(default_factory=list)
    measured_ceiling: dict[str, Any] = field(default_factory=dict)
    """The system's stack ceiling (``Stack.ceiling_evidence``): ``{"stack", "read", "write" (MB/s),
    "limited_by", "storage", "network"}``; empty when the system has no stack."""


class AnomalyRule:
    """Base class of every rule. Subclasses set ``name``, ``description``, ``severity`` and ``evaluate``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    severity: ClassVar[str] = "warn"
    thresholds: ClassVar[tuple[str, ...]] = ()  # the DEFAULT_THRESHOLDS keys the rule reads
    clause: ClassVar[str] = ""  # the submission-rule clause it checks (submission_rules.CLAUSES); "" = advisory

    def evaluate(self, facts: RunFacts, thresholds: Mapping[str, Any], context: RuleContext) -> list[AnomalyFinding]:
        raise NotImplementedError

    def finding(self, message: str, evidence: dict[str, Any], phase: str = "", severity: str = "") -> AnomalyFinding:
        return AnomalyFinding(
            rule=self.name, severity=severity or self.severity, phase=phase, message=message, evidence=evidence
        )


RULES: dict[str, type[AnomalyRule]] = {}


def register(rule_class: type[AnomalyRule]) -> type[AnomalyRule]:
    """Class decorator: make a rule known to ``evaluate_all`` under its ``name``."""
    if not rule_class.name:
        raise ValueError(f"{rule_class.__name__} has no name")
    if rule_class.name in RULES and RULES[rule_class.name] is not rule_class:
        raise ValueError(f"two rules are called {rule_class.name!r}")
    unknown = [key for key in rule_class.thresholds if key not in DEFAULT_THRESHOLDS]
    if unknown:
        raise ValueError(f"{rule_class.__name__} reads thresholds without defaults: {unknown}")
    RULES[rule_class.name] = rule_class
    return rule_class


def resolve_thresholds(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Defaults with overrides applied; an unknown key is an error, not a silently ignored typo."""
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(DEFAULT_THRESHOLDS))
    if unknown:
        raise KeyError(f"unknown anomaly thresholds: {', '.join(unknown)}")
    return {**DEFAULT_THRESHOLDS, **overrides}


def evaluate_all(
    facts: RunFacts,
    thresholds: Mapping[str, Any] | None = None,
    context: RuleContext | None = None,
    rules: Iterable[str] | None = None,
) -> list[AnomalyFinding]:
    """Run every registered rule (or the named ones) and return their findings, errors first."""
    resolved = resolve_thresholds(thresholds)
    context = context or RuleContext()
    selected = [RULES[name] for name in rules] if rules is not None else list(RULES.values())
    findings: list[AnomalyFinding] = []
    for rule_class in selected:
        findings.extend(rule_class().evaluate(facts, resolved, context))
    return sorted(findings, key=lambda finding: SEVERITIES.index(finding.severity))
