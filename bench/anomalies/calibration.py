"""Calibrate the anomaly thresholds on an IO500 corpus and measure agreement with its labels.

    .venv/bin/python -m bench anomaly_calibration [CORPUS_DIR] [--expected expected.csv]

CORPUS_DIR defaults to ../shared/io500-corpus. Prints (1) the distribution of every phase ratio
a cache-effect rule reads, with the threshold that 5 x p90 suggests next to the configured one,
and the weights of the supporting cache evidence (on all runs, per out-of-sample fold), (2)
write-phase times and score-reproduction margins, (3) how often each rule fires, and (4) when an
``expected.csv`` with ``anomaly_kinds`` is present, recall and false-positive rate per label, in
sample and out of sample (thresholds fitted on other runs only: by year, leave one institution out),
and ``node_count_mismatch`` against the node-count labels.
Pure Python: the IO500 parsers and the rules, no Django, no database.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.anomaly_facts import facts_from_record
from apps.ingest.tools.io500.grammar import parse_tree
from apps.results.judgements.anomalies import DEFAULT_THRESHOLDS, RunFacts, evaluate_all
from apps.results.judgements.anomalies.calibration import (
    LABEL_TO_RULE,
    NODE_COUNT_LABEL,
    NODE_COUNT_LABELS,
    RATIO_MULTIPLE,
    RATIO_QUANTILE,
    SPLITS,
    agreement,
    fit_cache_weights,
    fit_rank_imbalance,
    fit_ratio_thresholds,
    fit_thresholds,
    held_out_rules,
    load_expected_labels,
    percentile,
    rank_time_imbalances,
    ratio_distributions,
    submission_id,
    with_node_count_label,
)
from apps.results.judgements.anomalies.rules import WRITE_PHASES, score_reproduction
from rig import REPO_ROOT

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


def print_cache_weights(runs: list[RunFacts]) -> None:
    """The weights of the supporting cache evidence fitted on all runs, per out-of-sample fold, and configured."""
    folds = {split: [fit_thresholds(training) for training, _ in SPLITS[split](runs)] for split in SPLITS}
    print("\nWeights of the supporting cache evidence (log(1/share) / log(10), at most 1; share smoothed)")
    fold_columns = " | ".join(f"folds {split} (min-max)" for split in SPLITS)
    print(f"| weight | fitted on all runs | {fold_columns} | configured |")
    print("|---|---|" + "---|" * len(SPLITS) + "---|")
    for key, weight in fit_cache_weights(runs, fit_ratio_thresholds(runs)).items():
        ranges = [f"{min(f[key] for f in fitted):g}-{max(f[key] for f in fitted):g}" for fitted in folds.values()]
        print(f"| {key} | {weight:g} | {' | '.join(ranges)} | {DEFAULT_THRESHOLDS[key]:g} |")


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


def _rules_by_submission(findings_by_run: list[tuple[RunFacts, list]]) -> dict[str, set[str]]:
    rules_by_submission: dict[str, set[str]] = defaultdict(set)
    for facts, findings in findings_by_run:
        submission = submission_id(facts.source_path)
        if submission:
            rules_by_submission[submission].update(finding.rule for finding in findings)
    return rules_by_submission


def _held_out(runs: list[RunFacts], split: str) -> dict[str, set[str]]:
    def evaluate(facts, thresholds):
        return {finding.rule for finding in evaluate_all(facts, thresholds)}

    return held_out_rules(runs, split, evaluate, DEFAULT_THRESHOLDS)


def print_agreement(runs: list[RunFacts], findings_by_run: list[tuple[RunFacts, list]], expected_csv: Path) -> None:
    """Recall / false-positive rate per label: in sample, then for each out-of-sample split."""
    expected = with_node_count_label(load_expected_labels(expected_csv))
    node_counts = (*NODE_COUNT_LABELS, NODE_COUNT_LABEL)
    rule_of_label = {**LABEL_TO_RULE, **dict.fromkeys(node_counts, "node_count_mismatch")}
    flagged = {"in sample": _rules_by_submission(findings_by_run)}
    flagged.update({f"out of sample, {split}": _held_out(runs, split) for split in SPLITS})
    print(f"\nAgreement with {expected_csv} ({len(expected)} submissions)")
    print("| label | rule | evaluation | judged | positives | recall | false positives | missed | false |")
    print("|---|---|---|---|---|---|---|---|---|")
    for label, rule in rule_of_label.items():
        for evaluation, rules_by_submission in flagged.items():
            judged = {
                s: labels for s, labels in expected.items() if s in rules_by_submission or evaluation == "in sample"
            }
            (tally,) = agreement(rules_by_submission, judged, {label: rule})
            print(
                f"| {label} | {rule} | {evaluation} | {len(judged)} | {len(tally.positives)} | "
                f"{f'{tally.recall:.0%}' if tally.positives else 'n/a'} | "
                f"{len(tally.false_positives)} ({tally.false_positive_rate:.1%}) | {' '.join(tally.missed) or '-'} "
                f"| {' '.join(tally.false_positives) or '-'} |"
            )


def print_rank_imbalance(runs: list[RunFacts]) -> None:
    """No label says which runs straggled: report the fitted threshold and how many runs it flags."""
    with_ranks = [facts for facts in runs if facts.rank_stats]
    fractions = rank_time_imbalances(with_ranks)
    if not fractions:
        return
    print(f"\nRank time imbalance ((slowest - fastest) / slowest), {len(fractions)} phases of {len(with_ranks)} runs:")
    print(
        f"p50 {percentile(fractions, 0.5):.2f}, p90 {percentile(fractions, 0.9):.2f}, max {max(fractions):.2f}; "
        f"fitted threshold {fit_rank_imbalance(with_ranks)}, configured {DEFAULT_THRESHOLDS['rank_time_imbalance']}"
    )
    evaluations = {"in sample": _rules_by_submission([(f, evaluate_all(f)) for f in with_ranks])}
    evaluations.update({f"out of sample, {split}": _held_out(runs, split) for split in SPLITS})
    ids = {submission_id(facts.source_path) for facts in with_ranks}
    for evaluation, flagged in evaluations.items():
        judged = sorted(ids & set(flagged))
        hits = [s for s in judged if "rank_imbalance" in flagged[s]]
        print(f"- {evaluation}: {len(hits)} of {len(judged)} runs flagged ({' '.join(hits) or '-'})")


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench anomaly_calibration", description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=REPO_ROOT.parent / "shared" / "io500-corpus")
    parser.add_argument("--expected", type=Path, help="labels (default: CORPUS/expected.csv when present)")
    args = parser.parse_args(argv)
    runs, errors = load_runs(args.corpus)
    print(f"{args.corpus}: {len(runs)} result sets parsed, {len(errors)} without a scoreable result\n")
    print_ratio_table(runs)
    print_cache_weights(runs)
    print_write_times(runs)
    print_score_margins(runs)
    findings_by_run = [(facts, evaluate_all(facts)) for facts in runs]
    print_rule_counts(findings_by_run)
    expected_csv = args.expected or args.corpus / "expected.csv"
    if expected_csv.exists():
        print_agreement(runs, findings_by_run, expected_csv)
    print_rank_imbalance(runs)
    return 0
