"""Calibrate the anomaly thresholds on an IO500 corpus and measure agreement with its labels.

    .venv/bin/python -m bench.anomaly_calibration [CORPUS_DIR] [--expected expected.csv]

CORPUS_DIR defaults to ../shared/io500-corpus. Prints (1) the distribution of every phase ratio
a cache-effect rule reads, with the threshold that 5 x p90 suggests next to the configured one,
(2) write-phase times and score-reproduction margins, (3) how often each rule fires, and (4) when
an ``expected.csv`` with ``anomaly_kinds`` is present, recall and false-positive rate per kind.
Pure Python: the IO500 parsers and the rules, no Django, no database.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from apps.ingest.anomaly_facts import facts_from_record  # noqa: E402
from apps.ingest.parsers.io500 import parse_tree  # noqa: E402
from apps.ingest.parsers.records import ParseError  # noqa: E402
from apps.results.anomalies import DEFAULT_THRESHOLDS, RunFacts, evaluate_all  # noqa: E402
from apps.results.anomalies.calibration import (  # noqa: E402
    RATIO_MULTIPLE,
    RATIO_QUANTILE,
    agreement,
    load_expected_kinds,
    percentile,
    ratio_distributions,
    submission_id,
)
from apps.results.anomalies.rules import WRITE_PHASES, score_reproduction  # noqa: E402

QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99)


def load_runs(corpus: Path) -> tuple[list[RunFacts], list[ParseError]]:
    runs, errors = [], []
    for item in parse_tree(corpus):
        if isinstance(item, ParseError):
            errors.append(item)
        else:
            runs.append(facts_from_record(item))
    return runs, errors


def print_ratio_table(runs: list[RunFacts]) -> None:
    header = ["ratio", "n", *(f"p{round(q * 100)}" for q in QUANTILES), "max", "suggested", "configured"]
    print(f"Phase ratios (suggested threshold = {RATIO_MULTIPLE:g} x p{round(RATIO_QUANTILE * 100)}, 2 digits)")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for distribution in ratio_distributions(runs):
        cells = [
            f"{distribution.fast} / {distribution.reference}",
            str(len(distribution.ratios)),
            *(f"{distribution.quantile(q):.2f}" for q in QUANTILES),
            f"{max(distribution.ratios):.1f}",
            f"{distribution.suggested_threshold:g}",
            f"{DEFAULT_THRESHOLDS[distribution.threshold_key]:g}",
        ]
        print("| " + " | ".join(cells) + " |")


def print_write_times(runs: list[RunFacts]) -> None:
    times = [
        phase.seconds
        for facts in runs
        for name, phase in facts.phases.items()
        if name in WRITE_PHASES and phase.seconds is not None
    ]
    below = sorted(seconds for seconds in times if seconds < float(DEFAULT_THRESHOLDS["write_phase_minimum_seconds"]))
    print(f"\nWrite phases: {len(times)}; p1 {percentile(times, 0.01):.1f} s, median {percentile(times, 0.5):.1f} s")
    print(f"below 300 s: {len(below)} ({', '.join(f'{seconds:g}' for seconds in below)})")


def print_score_margins(runs: list[RunFacts]) -> None:
    """How close the printed scores come to their tolerance: the margin the tolerance model leaves."""
    safety = float(DEFAULT_THRESHOLDS["score_tolerance_safety_factor"])
    print("\nScore reproduction: relative difference / tolerance (1 = flagged), runs that reproduce")
    print("| era | component | runs | median | p99 | max | max relative difference |\n|---|---|---|---|---|---|---|")
    for era in sorted({facts.era for facts in runs}):
        for component in ("bw", "md", "total"):
            items = [
                item
                for facts in runs
                if facts.era == era
                for name, item in score_reproduction(facts, safety).items()
                if name == component and item["relative_difference"] <= item["tolerance"]
            ]
            if not items:
                continue
            usage = [item["relative_difference"] / item["tolerance"] for item in items if item["tolerance"]]
            largest = max(item["relative_difference"] for item in items)
            print(
                f"| {era} | {component} | {len(items)} | {percentile(usage, 0.5):.3f} | {percentile(usage, 0.99):.3f} "
                f"| {max(usage):.3f} | {largest:.2e} |"
            )


def print_rule_counts(findings_by_run: list[tuple[RunFacts, list]]) -> None:
    counts: Counter = Counter()
    for _, findings in findings_by_run:
        for rule in {(finding.rule, finding.severity) for finding in findings}:
            counts[rule] += 1
    print(f"\nRuns flagged per rule ({len(findings_by_run)} result sets)")
    print("| rule | severity | runs |\n|---|---|---|")
    for (rule, severity), count in sorted(counts.items()):
        print(f"| {rule} | {severity} | {count} |")


def print_agreement(findings_by_run: list[tuple[RunFacts, list]], expected_csv: Path) -> None:
    expected = load_expected_kinds(expected_csv)
    rules_by_submission: dict[str, set[str]] = defaultdict(set)
    for facts, findings in findings_by_run:
        submission = submission_id(facts.source_path)
        if submission:
            rules_by_submission[submission].update(finding.rule for finding in findings)
    print(f"\nAgreement with {expected_csv} ({len(expected)} submissions)")
    print("| kind | rule | positives | recall | negatives | false positives | missed | false |")
    print("|---|---|---|---|---|---|---|---|")
    for tally in agreement(rules_by_submission, expected):
        print(
            f"| {tally.kind} | {tally.rule} | {len(tally.positives)} | {tally.recall:.0%} | {len(tally.negatives)} "
            f"| {len(tally.false_positives)} ({tally.false_positive_rate:.1%}) | {' '.join(tally.missed) or '-'} "
            f"| {' '.join(tally.false_positives) or '-'} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=REPO_ROOT.parent / "shared" / "io500-corpus")
    parser.add_argument("--expected", type=Path, help="labels (default: CORPUS/expected.csv when present)")
    args = parser.parse_args(argv)
    runs, errors = load_runs(args.corpus)
    print(f"{args.corpus}: {len(runs)} result sets parsed, {len(errors)} without a scoreable result\n")
    print_ratio_table(runs)
    print_write_times(runs)
    print_score_margins(runs)
    findings_by_run = [(facts, evaluate_all(facts)) for facts in runs]
    print_rule_counts(findings_by_run)
    expected_csv = args.expected or args.corpus / "expected.csv"
    if expected_csv.exists():
        print_agreement(findings_by_run, expected_csv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
