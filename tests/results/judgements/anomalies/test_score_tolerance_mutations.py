"""The reported-score tolerance on real summaries with one phase mutated.

A phase changed by more than printing precision must make the printed score irreproducible
(``reported_score_mismatch``); a phase changed by one unit in its last printed place, the
smallest change a printed file can carry, stays within the tolerance. Samples: NCI submission-100
(io500.sh, 3 decimals) and LCPQ submission-686 (C app, 6 decimals).
"""

from dataclasses import replace

import pytest

from apps.ingest.tools.io500.anomaly_facts import facts_from_record
from apps.ingest.tools.io500.grammar import parse_result_set
from apps.results.judgements.anomalies import DEFAULT_THRESHOLDS, evaluate_all
from apps.results.judgements.anomalies.rules import score_reproduction
from tests.ingest.tools.io500.io500_samples import BASH_RUN, CAPP_RUN, copy_sample, edit_lines

# (sample, run, file, printed line fragment, one unit in the last place, one per cent more)
MUTATIONS = {
    "bash": ("bash-results", BASH_RUN, "result_summary.txt", "ior_easy_write               62.453",
             "ior_easy_write               62.454", "ior_easy_write               63.078"),
    "capp": ("capp-result-dir", CAPP_RUN, "result.txt", "score           = 3.989304",
             "score           = 3.989305", "score           = 4.029197"),
}  # fmt: skip


def score_rule_after(tmp_path, era: str, replacement: str | None) -> list:
    sample, run, name, original, _, _ = MUTATIONS[era]
    tree = copy_sample(sample, tmp_path)
    folder = tree / run.split("/", 1)[1]
    if replacement is not None:
        edit_lines(folder / name, lambda lines: [line.replace(original, replacement, 1) for line in lines])
    record = parse_result_set(tree, folder)
    return evaluate_all(facts_from_record(record), rules=["reported_score_mismatch"])


@pytest.mark.parametrize("era", sorted(MUTATIONS))
def test_the_unchanged_summary_reproduces(tmp_path, era):
    assert score_rule_after(tmp_path, era, None) == []


@pytest.mark.parametrize("era", sorted(MUTATIONS))
def test_one_unit_in_the_last_printed_place_stays_within_the_tolerance(tmp_path, era):
    assert score_rule_after(tmp_path, era, MUTATIONS[era][4]) == []


@pytest.mark.parametrize("era", sorted(MUTATIONS))
def test_one_phase_one_per_cent_off_makes_the_score_irreproducible(tmp_path, era):
    (finding,) = score_rule_after(tmp_path, era, MUTATIONS[era][5])

    assert finding.severity == "error"
    bw = finding.evidence["components"]["bw"]
    # BW is the geometric mean of 4 phases: +1 % on one moves it by a factor 1.01 ** 0.25, so the
    # printed BW falls short of the recomputed one by 1 - 1.01 ** -0.25 (2 % slack: 3-decimal rounding)
    assert bw["relative_difference"] == pytest.approx(1 - 1.01**-0.25, rel=0.02)
    assert bw["relative_difference"] > bw["tolerance"]


@pytest.mark.parametrize("era", sorted(MUTATIONS))
@pytest.mark.parametrize(("multiple", "flagged"), [(0.5, False), (2.0, True)])
def test_a_printed_total_half_or_twice_the_tolerance_off_is_within_or_beyond_it(tmp_path, era, multiple, flagged):
    """The boundary itself: the printed TOTAL moved to ``multiple`` x the run's tolerance from the
    recomputed one. The tolerance is printing precision propagated (by hand: half a unit in the sixth
    decimal of values near 6.6, about 1e-7 relative each, times 2 and summed: about 8e-7 in the C era;
    the bash era's 3 decimals and awk's %.6g: about 2e-4), never a loose constant."""
    sample, run, *_ = MUTATIONS[era]
    tree = copy_sample(sample, tmp_path)
    facts = facts_from_record(parse_result_set(tree, tree / run.split("/", 1)[1]))
    tolerance = score_reproduction(facts, DEFAULT_THRESHOLDS["score_tolerance_safety_factor"])["total"]["tolerance"]
    assert (1e-7 < tolerance < 1e-5) if era == "capp" else (1e-5 < tolerance < 1e-3)
    total = facts.computed_score.total * (1 + multiple * tolerance)
    mutated = replace(facts, reported_score=replace(facts.reported_score, total=total))

    rules = evaluate_all(mutated, rules=["reported_score_mismatch"])

    assert bool(rules) is flagged
    if flagged:
        (finding,) = rules
        assert finding.evidence["components"]["total"]["relative_difference"] == pytest.approx(
            2.0 * tolerance, rel=1e-3
        )
