"""The audit of a published entry against its run: each difference with both numbers and its cause."""

import math

from apps.results.judgements.published_audit import (
    EDITED,
    FIND_MIX,
    GB_VS_GIB,
    IO500_SH_TOTAL,
    LISTED_TWICE,
    NOT_TEN_NODES,
    SC18_CORRECTION,
    UNEXPLAINED,
    Difference,
    PublishedValues,
    RunValues,
    audit_entry,
)

PHASES = {
    "ior_easy_write": 4.0,
    "ior_easy_read": 9.0,
    "ior_hard_write": 1.0,
    "ior_hard_read": 4.0,
    "mdtest_easy_write": 100.0,
    "mdtest_easy_stat": 100.0,
    "mdtest_easy_delete": 100.0,
    "mdtest_hard_write": 100.0,
    "mdtest_hard_read": 100.0,
    "mdtest_hard_stat": 100.0,
    "mdtest_hard_delete": 100.0,
    "find": 100.0,
}
# bw = (4*9*1*4)^(1/4) = 12^(1/2) = 3.4641..., md = 100, score = sqrt(346.41...) = 18.6121...
BW = math.sqrt(12)
SCORE = math.sqrt(BW * 100)


def run(**changes) -> RunValues:
    return RunValues(**{"score": SCORE, "bw": BW, "md": 100.0, "nodes": 10, "phases": dict(PHASES)} | changes)


def published(**changes) -> PublishedValues:
    record_phases = {name: round(value, 2) for name, value in PHASES.items() if name != "find"} | {"find_easy": 100.0}
    values = {"score": 18.61, "bw": 3.46, "md": 100.0, "nodes": 10, "phases": record_phases, "list_kind": "io500"}
    return PublishedValues(**values | changes)


def test_an_entry_as_the_files_give_it_within_the_published_rounding_has_no_difference():
    assert audit_entry(published(), run()) == []


def test_a_score_off_by_more_than_rounding_is_unexplained_with_both_numbers():
    assert audit_entry(published(score=19.0), run()) == [Difference("score", 19.0, SCORE, UNEXPLAINED)]


def test_lowered_mdtest_write_rates_are_the_sc18_correction():
    phases = published().phases | {"mdtest_easy_write": 29.07}
    differences = audit_entry(published(phases=phases, md=86.0, score=17.26), run())
    assert {(d.field, d.cause) for d in differences} == {
        ("md", SC18_CORRECTION),
        ("score", SC18_CORRECTION),
        ("mdtest_easy_write", SC18_CORRECTION),
    }


def test_a_product_total_is_the_io500_sh_total():
    assert audit_entry(published(score=346.41), run()) == [Difference("score", 346.41, SCORE, IO500_SH_TOTAL)]


def test_bandwidth_in_decimal_gigabytes_is_gb_vs_gib():
    [difference] = audit_entry(published(bw=3.72), run())
    assert (difference.field, difference.cause) == ("bw", GB_VS_GIB)


def test_a_find_value_another_find_column_holds_is_a_find_mix():
    phases = published().phases | {"find_mixed": 250.0, "find_easy": 100.0}
    assert audit_entry(published(phases=phases), run()) == [Difference("find_mixed", 250.0, 100.0, FIND_MIX)]


def test_a_list_score_other_than_its_submission_row_given_by_the_files_was_edited_after_publication():
    [difference] = audit_entry(published(score=25.0, submission_score=18.61), run())
    assert difference.cause == EDITED


def test_a_ten_node_list_entry_on_other_node_counts_and_a_duplicate_are_differences():
    differences = audit_entry(published(list_kind="ten-node", nodes=10, listed_times=2), run(nodes=8))
    assert Difference("ten-node list", 10, 8, NOT_TEN_NODES) in differences
    assert Difference("nodes", 10, 8, UNEXPLAINED) in differences
    assert Difference("duplicate", 2, 1, LISTED_TWICE) in differences
