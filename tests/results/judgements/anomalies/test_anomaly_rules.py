"""Anomaly rules, one behaviour per test, on hand-made facts and on the Cambridge ISC19 run (seeds/000)."""

import json
import math

import pytest

from apps.ingest.tools.io500.anomaly_facts import facts_from_record
from apps.ingest.tools.io500.records import IO500RunRecord, PhaseRecord
from apps.results.judgements.anomalies import (
    DEFAULT_THRESHOLDS,
    RULES,
    SEVERITIES,
    PhaseFacts,
    RuleContext,
    RunFacts,
    ScoreFacts,
    evaluate_all,
    resolve_thresholds,
)
from apps.results.judgements.anomalies.facts import TaskReordering
from apps.results.judgements.scoring import BW_PHASES, MD_PHASES, Score
from apps.results.judgements.scoring import geometric_mean as scoring_geometric_mean

# Cambridge Data Accelerator, June 2019 (ISC19 #1), from the LAD'19 talk in seeds/000.
CAMBRIDGE_JUNE_2019 = {
    "ior_easy_write": "328.875",
    "mdtest_easy_write": "1784.640",
    "ior_hard_write": "50.664",
    "mdtest_hard_write": "558.621",
    "find": "1721.020",
    "ior_easy_read": "509.259",
    "mdtest_easy_stat": "183233.000",
    "ior_hard_read": "81.267",
    "mdtest_hard_stat": "5763.560",
    "mdtest_easy_delete": "1122.060",
    "mdtest_hard_read": "858.445",
    "mdtest_hard_delete": "584.785",
}


def geometric_mean(values):
    return scoring_geometric_mean(values, skip_nonpositive=True)


def unit_of(name):
    return "GiB/s" if name.startswith("ior") else "kIOPS"


def make_facts(values=None, *, era="capp", seconds=400.0, **overrides) -> RunFacts:
    """A complete, consistent run: every phase 400 s, the score recomputed exactly."""
    values = dict(values or {name: 100.0 for name in BW_PHASES + MD_PHASES})
    printed = "{:.3f}" if era == "script" else "{:.6f}"
    phases = {
        name: PhaseFacts(
            value=value,
            unit=unit_of(name),
            seconds=seconds,
            printed_value=printed.format(value),
            source_file="result_summary.txt",
            source_line=index + 2,
        )
        for index, (name, value) in enumerate(values.items())
    }
    bw = geometric_mean([values[name] for name in BW_PHASES if name in values])
    md = geometric_mean([values[name] for name in MD_PHASES if name in values])
    score = ScoreFacts(bw=bw, md=md, total=math.sqrt(bw * md))
    facts = RunFacts(
        era=era, phases=phases, reported_score=score, computed_score=ScoreFacts(bw=bw, md=md, total=score.total)
    )
    for key, value in overrides.items():
        setattr(facts, key, value)
    return facts


def findings_of(rule, facts, thresholds=None, context=None):
    return evaluate_all(facts, thresholds, context, rules=[rule])


def seed_record() -> IO500RunRecord:
    phases = [
        PhaseRecord(
            name=name,
            value=float(text),
            unit=unit_of(name),
            seconds=320.0,
            printed_value=text,
            source_file="results/result_summary.txt",
            source_line=index + 1,
        )
        for index, (name, text) in enumerate(CAMBRIDGE_JUNE_2019.items())
    ]
    return IO500RunRecord(
        source_path="University of Cambridge/Data Accelerator/2019/isc19/results",
        era="script",
        generation="bash-sqrt",
        phases=phases,
        reported_score=Score(bw=162.049, md=2377.44, total=620.695),
    )


def test_the_seed_june_2019_run_is_flagged_cache_effect_stat():
    findings = evaluate_all(facts_from_record(seed_record()))

    (stat,) = [finding for finding in findings if finding.rule == "cache_effect_stat"]
    assert stat.severity == "warn"
    assert stat.phase == "mdtest_easy_stat"
    assert stat.evidence["phase"] == "mdtest_easy_stat"
    assert stat.evidence["reference_phase"] == "mdtest_easy_write"
    assert stat.evidence["value"] == 183233.0
    assert stat.evidence["reference_value"] == 1784.64
    assert stat.evidence["ratio"] == pytest.approx(102.67, abs=0.01)
    assert stat.evidence["source_file"] == "results/result_summary.txt"
    assert stat.evidence["source_line"] == 7
    assert "mdtest_easy_stat" in stat.message
    assert "mdtest_easy_write" in stat.message


def test_the_seed_june_2019_run_has_no_other_finding():
    findings = evaluate_all(facts_from_record(seed_record()))

    assert [finding.rule for finding in findings] == ["cache_effect_stat"]


def test_it_flags_stat_faster_than_create():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "mdtest_easy_stat": 6000.0})

    (finding,) = findings_of("cache_effect_stat", facts)

    assert (finding.phase, finding.evidence["ratio"]) == ("mdtest_easy_stat", 60.0)


def test_it_does_not_flag_stat_faster_than_create_within_the_usual_spread():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "mdtest_easy_stat": 2000.0})

    assert findings_of("cache_effect_stat", facts) == []


def test_it_judges_hard_stat_by_its_own_threshold():
    values = {**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "mdtest_hard_stat": 10000.0}

    assert findings_of("cache_effect_stat", make_facts(values)) == []
    values["mdtest_hard_stat"] = 30000.0
    assert [finding.phase for finding in findings_of("cache_effect_stat", make_facts(values))] == ["mdtest_hard_stat"]


def test_it_flags_read_faster_than_write():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 1.0), "ior_hard_write": 0.02, "ior_hard_read": 5.0})

    (finding,) = findings_of("cache_effect_read", facts)

    assert (finding.phase, finding.evidence["reference_phase"]) == ("ior_hard_read", "ior_hard_write")
    assert finding.severity == "warn"


def test_it_flags_mdtest_hard_read_faster_than_hard_write():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 1.0), "mdtest_hard_read": 200.0})

    assert [finding.phase for finding in findings_of("cache_effect_read", facts)] == ["mdtest_hard_read"]


def test_it_skips_a_ratio_whose_reference_phase_is_zero():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 1.0), "mdtest_easy_write": 0.0})

    assert findings_of("cache_effect_stat", facts) == []


def test_it_notes_random_reads_faster_than_sequential_reads():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 10.0), "ior_rnd4k_easy_read": 30.0})

    (finding,) = findings_of("random_read_faster_than_sequential", facts)

    assert (finding.severity, finding.phase) == ("info", "ior_rnd4k_easy_read")


def test_it_flags_a_write_phase_under_300_seconds():
    facts = make_facts()
    facts.phases["mdtest_hard_write"].seconds = 299.93

    (finding,) = findings_of("write_phase_under_minimum", facts)

    assert (finding.phase, finding.evidence["minimum_seconds"], finding.severity) == (
        "mdtest_hard_write",
        300.0,
        "warn",
    )


def test_it_accepts_a_write_phase_of_exactly_300_seconds():
    facts = make_facts(seconds=300.0)

    assert findings_of("write_phase_under_minimum", facts) == []


def test_it_does_not_apply_the_write_minimum_to_read_phases():
    facts = make_facts()
    facts.phases["ior_easy_read"].seconds = 12.0

    assert findings_of("write_phase_under_minimum", facts) == []


def test_it_applies_30_seconds_under_student_competition_rules():
    facts = make_facts(seconds=45.0, rules_mode="scc")

    assert findings_of("write_phase_under_minimum", facts) == []
    facts.phases["ior_easy_write"].seconds = 29.0
    assert [finding.phase for finding in findings_of("write_phase_under_minimum", facts)] == ["ior_easy_write"]


def test_it_flags_a_printed_total_that_the_phases_do_not_give():
    facts = make_facts()
    facts.reported_score.total *= 1.01

    (finding,) = findings_of("reported_score_mismatch", facts)

    assert finding.severity == "error"
    assert set(finding.evidence["components"]) == {"total"}


def test_it_accepts_a_c_app_score_recomputed_from_six_decimal_phases():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "ior_hard_write": 0.014})
    facts.reported_score.total *= 1 + 3.5e-6

    assert findings_of("reported_score_mismatch", facts) == []


def test_it_accepts_bash_rounding_of_a_tiny_phase_to_three_decimals():
    true_values = {**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "ior_hard_write": 0.0134}
    facts = make_facts(true_values, era="script")
    facts.phases["ior_hard_write"].value = 0.013
    facts.phases["ior_hard_write"].printed_value = "0.013"
    bw = geometric_mean([facts.phases[name].value for name in BW_PHASES])
    facts.computed_score = ScoreFacts(bw=bw, md=100.0, total=math.sqrt(bw * 100.0))

    assert findings_of("reported_score_mismatch", facts) == []


def test_it_explains_a_product_total_as_the_early_script_formula():
    facts = make_facts(era="script", score_formula="product")
    facts.reported_score = ScoreFacts(bw=2.85287, md=12.6425, total=36.0674, printed_total="36.0674")
    facts.computed_score = ScoreFacts(bw=2.85287, md=12.6425, total=math.sqrt(2.85287 * 12.6425))

    (finding,) = findings_of("reported_score_mismatch", facts)

    assert finding.severity == "warn"
    assert finding.evidence["score_formula"] == "product"
    assert "product formula" in finding.message


def test_it_flags_a_score_hash_mismatch():
    facts = make_facts(verification="hash_mismatch")

    (finding,) = findings_of("score_hash_mismatch", facts)

    assert finding.severity == "error"


def test_it_flags_a_missing_phase():
    values = dict.fromkeys(BW_PHASES + MD_PHASES, 100.0)
    del values["find"]

    (finding,) = findings_of("missing_phase", make_facts(values))

    assert (finding.severity, finding.evidence["absent"]) == ("error", ["find"])


def test_it_flags_a_zero_phase_as_missing():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "ior_hard_read": 0.0})

    (finding,) = findings_of("missing_phase", facts)

    assert list(finding.evidence["zero_or_unreadable"]) == ["ior_hard_read"]


def test_it_does_not_require_mdtest_hard_read_from_sc17_runs():
    values = dict.fromkeys(BW_PHASES + MD_PHASES, 100.0)
    del values["mdtest_hard_read"]

    assert findings_of("missing_phase", make_facts(values, generation="sc17")) == []


def test_it_flags_a_run_the_benchmark_marked_invalid():
    facts = make_facts(valid=False, invalid_reasons=["stonewall-time < 30s"])

    (finding,) = findings_of("benchmark_marked_invalid", facts)

    assert finding.severity == "error"
    assert "stonewall-time < 30s" in finding.message


def test_a_stonewall_comment_under_an_unmarked_score_is_only_a_warning():
    facts = make_facts(valid=True, invalid_reasons=["; ERROR INVALID stonewall-time < 30s"])

    (finding,) = findings_of("benchmark_marked_invalid", facts)

    assert finding.severity == "warn"


def test_it_flags_an_invalid_phase_marker_even_when_the_score_is_unmarked():
    facts = make_facts()
    facts.phases["ior_easy_write"].invalid = True

    (finding,) = findings_of("benchmark_marked_invalid", facts)

    assert list(finding.evidence["invalid_phases"]) == ["ior_easy_write"]


def test_it_flags_stat_without_rank_shift_in_the_c_era():
    facts = make_facts()
    facts.phases["mdtest_easy_stat"].rank_shift = 0

    (finding,) = findings_of("stat_without_rank_shift", facts)

    assert (finding.phase, finding.severity) == ("mdtest_easy_stat", "error")


def test_it_accepts_a_rank_shift():
    facts = make_facts(era="script", run_date="2019-11-10")
    facts.phases["mdtest_easy_stat"].rank_shift = 1

    assert findings_of("stat_without_rank_shift", facts) == []


def test_it_reads_the_rank_shift_fact_never_the_command_line():
    facts = make_facts()
    facts.phases["mdtest_hard_stat"].command = "./mdtest -T"  # no -N printed, but the tool said it shifted
    facts.phases["mdtest_hard_stat"].rank_shift = 8

    assert findings_of("stat_without_rank_shift", facts) == []


def test_it_does_not_judge_an_unknown_rank_shift():
    facts = make_facts()
    facts.phases["mdtest_easy_stat"].rank_shift = None

    assert findings_of("stat_without_rank_shift", facts) == []


def test_it_does_not_judge_rank_shift_before_the_script_required_it():
    facts = make_facts(era="script", run_date="2019-06-01")
    facts.phases["mdtest_easy_stat"].rank_shift = 0

    assert findings_of("stat_without_rank_shift", facts) == []


@pytest.mark.parametrize(
    ("stored_phase", "expected"),
    [
        ({"command": "./mdtest -T", "details": {"rank_shift_option": None}}, 0),
        ({"command": "./mdtest -T -N 1", "details": {"rank_shift_option": 1}}, 1),
        ({"command": "./mdtest -T", "details": {"rank_shift_option": None, "rank_shift": 8}}, 8),
        ({"command": "", "details": {"rank_shift_option": None}}, None),
        ({"command": "./ior -w", "details": {}}, None),
        ({"command": "./mdtest -T", "rank_shift": 2, "details": {}}, 2),
    ],
)
def test_facts_stored_before_rank_shift_was_a_field_still_load(stored_phase, expected):
    assert PhaseFacts.from_dict(stored_phase).rank_shift == expected


def test_task_reordering_round_trips_through_stored_json():
    facts = RunFacts(phases={"ior_easy_read": PhaseFacts(task_reordering=TaskReordering(constant=True, offset=1))})

    stored = json.loads(json.dumps(facts.to_dict()))

    assert RunFacts.from_dict(stored).phases["ior_easy_read"].task_reordering == TaskReordering(constant=True, offset=1)


def test_it_flags_declared_nodes_that_differ_from_the_tools():
    facts = make_facts(
        client_nodes_declared=32,
        client_nodes_declared_source="system-information.txt num_client_nodes",
        tool_node_counts=[{"phase": "ior_easy_write", "tool": "ior", "nodes": 10, "tasks": 320}],
    )

    (finding,) = findings_of("node_count_mismatch", facts)

    assert (finding.evidence["declared"], finding.evidence["reported"]) == (32, [10])


def test_it_accepts_declared_nodes_that_match_the_tools():
    facts = make_facts(client_nodes_declared=10, tool_node_counts=[{"phase": "find", "nodes": 10}])

    assert findings_of("node_count_mismatch", facts) == []


def test_it_flags_a_duplicate_supplied_by_the_database():
    other = {"run_id": 7, "submission": "179", "path": "CERN/Bytecollider/Jim/2019/submission-179", "system_id": 3}
    context = RuleContext(run_id=8, system="3", runs_with_same_content_hash=[other])

    (finding,) = findings_of("duplicate_result", make_facts(content_hash="ab12"), context=context)

    assert "another run: CERN/Bytecollider/Jim/2019/submission-179" in finding.message
    assert (finding.evidence["other_runs"], finding.evidence["run_id"]) == ([other], 8)


def test_it_says_when_a_duplicate_is_filed_under_another_system():
    other = {"run_id": 7, "submission": "689", "system_id": 5}
    context = RuleContext(run_id=8, system="3", runs_with_same_content_hash=[other])

    (finding,) = findings_of("duplicate_result", make_facts(content_hash="ab12"), context=context)

    assert "another system" in finding.message
    assert finding.evidence["other_systems"] == [other]


def test_a_run_without_stored_twins_is_no_duplicate():
    assert findings_of("duplicate_result", make_facts(content_hash="ab12"), context=RuleContext(run_id=8)) == []


def test_it_flags_a_summary_that_differs_from_the_run():
    conflict = {"source_file": "submission-714/result_summary.txt", "difference": "TOTAL 12.3 vs 45.6"}

    (finding,) = findings_of("summary_differs_from_run", make_facts(summary_conflicts=[conflict]))

    assert "submission-714/result_summary.txt" in finding.message


def test_it_flags_a_rate_computed_from_planned_items():
    inflation = [{"phase": "mdtest_easy_write", "rate_per_second": 846369.0, "seconds": 300.0, "items_created": 8.7e6}]

    (finding,) = findings_of("stonewall_inflated_rate", make_facts(stonewall_inflation=inflation))

    assert finding.evidence["ratio"] == pytest.approx(29.18, abs=0.01)


def test_thresholds_from_settings_override_the_defaults():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "mdtest_easy_stat": 2000.0})

    assert findings_of("cache_effect_stat", facts, thresholds={"stat_over_create_easy": 10.0}) != []


def test_an_unknown_threshold_is_an_error():
    with pytest.raises(KeyError, match="stat_over_create_esay"):
        resolve_thresholds({"stat_over_create_esay": 10.0})


def test_findings_come_errors_first():
    facts = make_facts({**dict.fromkeys(BW_PHASES + MD_PHASES, 100.0), "mdtest_easy_stat": 9000.0}, valid=False)

    severities = [finding.severity for finding in evaluate_all(facts)]

    assert severities == sorted(severities, key=SEVERITIES.index)
    assert severities[0] == "error"


def test_facts_survive_a_json_round_trip():
    facts = facts_from_record(seed_record())

    restored = RunFacts.from_dict(json.loads(json.dumps(facts.to_dict())))

    assert restored == facts


def test_facts_from_a_newer_version_load_without_their_unknown_keys():
    data = {**make_facts().to_dict(), "a_future_fact": 1}

    assert RunFacts.from_dict(data).era == "capp"


def test_every_rule_names_itself_and_reads_only_known_thresholds():
    for name, rule in RULES.items():
        assert rule.name == name
        assert rule.description
        assert rule.severity in SEVERITIES
        assert set(rule.thresholds) <= set(DEFAULT_THRESHOLDS)
