"""A/B of each corroborating piece of the cache rules: the same folds with the piece and without it.

    .venv/bin/python -m bench cache_piece_ab [CORPUS_DIR]

For ``cache_effect_read`` and ``cache_effect_stat``, every piece of supporting evidence
(``cache_physics.WEIGHT_KEYS``) is switched off in turn (its fitted weight set to 0, so it can no
longer lower the ratio a finding needs) and the rules are re-run in sample and on the out-of-sample
folds of ``calibration.SPLITS`` (thresholds fitted on the training runs only). Printed per piece and
evaluation: positives, recall, false positives, with 95 % Wilson intervals, and how often the piece
is present at all. A piece whose removal loses no recall and removes false positives does not earn
its place. Also printed: the same for the hard-phase ratios deciding alone (``cache_physics``
``CORROBORATED_RATIOS``) against letting them decide alone as before. ``docs/anomalies.md`` quotes it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from scipy import stats

from apps.results.judgements.anomalies import DEFAULT_THRESHOLDS, RunFacts, evaluate_all
from apps.results.judgements.anomalies.cache_physics import WEIGHT_KEYS
from apps.results.judgements.anomalies.calibration import (
    SPLITS,
    agreement,
    held_out_rules,
    load_expected_labels,
    submission_id,
)
from bench.anomalies.calibration import load_runs
from rig import REPO_ROOT

CACHE_KINDS = {"cache_effect_read": "cache_effect_read", "cache_effect_stat": "cache_effect_stat"}


def wilson(successes: int, trials: int) -> str:
    if not trials:
        return "n/a"
    interval = stats.binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    return f"{successes}/{trials} ({interval.low:.0%}-{interval.high:.0%})"


def flagged_by(runs: list[RunFacts], adjust: Mapping[str, float]) -> dict[str, dict[str, set[str]]]:
    """Rules per submission, in sample and per split, with ``adjust`` laid over the thresholds."""

    def evaluate(facts: RunFacts, thresholds: Mapping[str, float]) -> set[str]:
        return {finding.rule for finding in evaluate_all(facts, {**thresholds, **adjust})}

    in_sample: dict[str, set[str]] = {}
    for facts in runs:
        submission = submission_id(facts.source_path)
        if submission:
            in_sample.setdefault(submission, set()).update(evaluate(facts, DEFAULT_THRESHOLDS))
    return {
        "in sample": in_sample,
        **{f"out of sample, {split}": held_out_rules(runs, split, evaluate, DEFAULT_THRESHOLDS) for split in SPLITS},
    }


def print_rows(variant: str, flagged: dict[str, dict[str, set[str]]], expected: dict[str, set[str]]) -> None:
    for evaluation, rules in flagged.items():
        judged = {s: labels for s, labels in expected.items() if s in rules or evaluation == "in sample"}
        for tally in agreement(rules, judged, CACHE_KINDS):
            print(
                f"| {variant} | {tally.rule} | {evaluation} | {wilson(len(tally.detected), len(tally.positives))} | "
                f"{wilson(len(tally.false_positives), len(tally.negatives))} | "
                f"{' '.join(tally.false_positives) or '-'} |"
            )


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench cache_piece_ab", description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", type=Path, default=REPO_ROOT.parent / "shared" / "io500-corpus")
    args = parser.parse_args(argv)
    runs, _ = load_runs(args.corpus)
    expected = load_expected_labels(args.corpus / "expected.csv")
    print("| variant | rule | evaluation | recall (95 % Wilson) | false positives (95 % Wilson) | false |")
    print("|---|---|---|---|---|---|")
    print_rows("as configured", flagged_by(runs, {}), expected)
    for key in WEIGHT_KEYS:
        print_rows(f"without {key.removeprefix('cache_weight_')}", flagged_by(runs, {key: 0.0}), expected)
    print_rows("no corroboration at all", flagged_by(runs, dict.fromkeys(WEIGHT_KEYS, 0.0)), expected)
    return 0
