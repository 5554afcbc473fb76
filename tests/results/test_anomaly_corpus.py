"""The anomaly rules against the labelled public IO500 corpus (../shared/io500-corpus/expected.csv).

Acceptance: for every calibrated kind, recall >= 90 % and at most 5 % of the submissions without
the kind get the rule. The ratio thresholds must be what the calibration method gives on this
corpus (docs/anomalies.md), so a change of either shows up here.
"""

from collections import defaultdict
from pathlib import Path

import pytest

from apps.ingest.anomaly_facts import facts_from_record
from apps.ingest.parsers.io500 import parse_tree
from apps.ingest.parsers.records import ParseError
from apps.results.anomalies import DEFAULT_THRESHOLDS, evaluate_all
from apps.results.anomalies.calibration import (
    KIND_TO_RULE,
    agreement,
    load_expected_kinds,
    ratio_distributions,
    submission_id,
)

pytestmark = pytest.mark.corpus

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
CORPUS = SHARED / "io500-corpus"


@pytest.fixture(scope="module")
def corpus_facts():
    if not (CORPUS / "expected.csv").exists():
        pytest.skip(f"{CORPUS} is absent (corpus tests run where ../shared is present)")
    return [facts_from_record(item) for item in parse_tree(CORPUS) if not isinstance(item, ParseError)]


@pytest.fixture(scope="module")
def agreement_by_kind(corpus_facts):
    rules_by_submission = defaultdict(set)
    for facts in corpus_facts:
        rules_by_submission[submission_id(facts.source_path)].update(f.rule for f in evaluate_all(facts))
    expected = load_expected_kinds(CORPUS / "expected.csv")
    return {tally.kind: tally for tally in agreement(rules_by_submission, expected)}


@pytest.mark.parametrize("kind", sorted(KIND_TO_RULE))
def test_the_rule_finds_at_least_90_percent_of_its_kind(agreement_by_kind, kind):
    tally = agreement_by_kind[kind]

    assert tally.positives, f"no labelled {kind} in the corpus"
    assert tally.recall >= 0.9, f"{tally.rule} missed submissions {tally.missed}"


@pytest.mark.parametrize("kind", sorted(KIND_TO_RULE))
def test_the_rule_flags_at_most_5_percent_of_the_other_runs(agreement_by_kind, kind):
    tally = agreement_by_kind[kind]

    assert tally.false_positive_rate <= 0.05, f"{tally.rule} also flagged {tally.false_positives}"


def test_the_ratio_thresholds_are_the_calibration_of_this_corpus(corpus_facts):
    for distribution in ratio_distributions(corpus_facts):
        assert DEFAULT_THRESHOLDS[distribution.threshold_key] == distribution.suggested_threshold, (
            f"{distribution.threshold_key}: configured {DEFAULT_THRESHOLDS[distribution.threshold_key]}, "
            f"5 x p90 gives {distribution.suggested_threshold}"
        )
