"""Era-aware IO500 score formulas (apps.results.judgements.scoring): pure functions, no database."""

import math

import pytest

from apps.results.judgements.scoring import (
    BW_PHASES,
    FORMULA_CAPP_SKIP_NONPOSITIVE,
    FORMULA_CAPP_ZERO_ENTERS,
    FORMULA_SC17,
    FORMULA_SCRIPT,
    FORMULA_SCRIPT_PRODUCT,
    MD_PHASES,
    capp_formula_for_version,
    compute_extended_score,
    compute_io500_score,
    extended_phase_names,
    geometric_mean,
)

# Poznan Supercomputing and Networking Center/Altair/Lustre/2024/submission-701 (io500-isc24_v3), as
# printed in result.txt: MD 256.359720, BW 11.388646, SCORE 54.033232.
POZNAN = {
    "ior_easy_write": 40.563456,
    "mdtest_easy_write": 366.550289,
    "ior_hard_write": 1.862771,
    "mdtest_hard_write": 51.708670,
    "find": 3012.638197,
    "ior_easy_read": 31.398658,
    "mdtest_easy_stat": 376.634589,
    "ior_hard_read": 7.090599,
    "mdtest_hard_stat": 388.304123,
    "mdtest_easy_delete": 253.302114,
    "mdtest_hard_read": 322.247857,
    "mdtest_hard_delete": 27.367387,
}


def relative(a, b):
    return abs(a - b) / max(abs(a), abs(b))


def test_it_reproduces_a_capp_score_from_printed_phase_values():
    score = compute_io500_score(POZNAN, formula=FORMULA_CAPP_SKIP_NONPOSITIVE)
    assert relative(score.bw, 11.388646) < 4e-6
    assert relative(score.md, 256.359720) < 4e-6
    assert relative(score.total, 54.033232) < 4e-6
    assert relative(score.bw, math.prod(POZNAN[n] for n in BW_PHASES) ** 0.25) < 1e-12
    assert relative(score.md, math.prod(POZNAN[n] for n in MD_PHASES) ** 0.125) < 1e-12
    assert relative(score.total, math.sqrt(score.bw * score.md)) < 1e-12


def test_it_reproduces_the_printed_bash_total_of_a_corpus_run():
    # NCI Raijin Gdata4 submission-100: [SCORE] Bandwidth 12.8232 GB/s : IOPS 110.372 kiops : TOTAL 37.6208
    phases = {
        "ior_easy_write": 62.453,
        "ior_hard_write": 3.741,
        "ior_easy_read": 103.689,
        "ior_hard_read": 1.116,
        "mdtest_easy_write": 136.096,
        "mdtest_hard_write": 42.372,
        "find": 944.55,
        "mdtest_easy_stat": 433.134,
        "mdtest_hard_stat": 93.455,
        "mdtest_easy_delete": 55.78,
        "mdtest_hard_read": 58.433,
        "mdtest_hard_delete": 30.646,
    }
    score = compute_io500_score(phases, formula=FORMULA_SCRIPT)
    assert relative(score.total, 37.6208) < 1e-4
    assert relative(score.bw, 12.8232) < 1e-4
    assert relative(score.md, 110.372) < 1e-4


def test_the_early_script_formula_multiplies_instead_of_taking_the_root():
    product = compute_io500_score(POZNAN, formula=FORMULA_SCRIPT_PRODUCT)
    root = compute_io500_score(POZNAN, formula=FORMULA_SCRIPT)
    assert product.bw == root.bw
    assert product.md == root.md
    assert relative(product.total, root.bw * root.md) < 1e-12


def test_a_zero_phase_zeroes_its_group_before_sc21():
    phases = dict(POZNAN, find=0.0)
    for formula in (FORMULA_SCRIPT, FORMULA_CAPP_ZERO_ENTERS):
        score = compute_io500_score(phases, formula=formula)
        assert score.md == 0.0
        assert score.total == 0.0
        assert score.bw > 0


def test_sc21_and_later_leave_nonpositive_phases_out():
    phases = dict(POZNAN, find=0.0)
    score = compute_io500_score(phases, formula=FORMULA_CAPP_SKIP_NONPOSITIVE)
    others = [POZNAN[n] for n in MD_PHASES if n != "find"]
    assert relative(score.md, math.prod(others) ** (1 / 7)) < 1e-12


def test_a_missing_phase_counts_as_zero_except_under_the_skip_formula():
    phases = {k: v for k, v in POZNAN.items() if k != "ior_hard_read"}
    assert compute_io500_score(phases, formula=FORMULA_CAPP_ZERO_ENTERS).bw == 0.0
    skipped = compute_io500_score(phases, formula=FORMULA_CAPP_SKIP_NONPOSITIVE).bw
    assert relative(skipped, math.prod(phases[n] for n in BW_PHASES if n in phases) ** (1 / 3)) < 1e-12


def test_an_empty_group_scores_zero_under_the_skip_formula():
    assert compute_io500_score({}, formula=FORMULA_CAPP_SKIP_NONPOSITIVE).total == 0.0


def test_sc17_leaves_mdtest_hard_read_out_of_the_metadata_group():
    with_read = compute_io500_score(POZNAN, formula=FORMULA_SCRIPT)
    sc17 = compute_io500_score(dict(POZNAN, mdtest_hard_read=1e9), formula=FORMULA_SC17)
    expected = math.prod(POZNAN[n] for n in MD_PHASES if n != "mdtest_hard_read") ** (1 / 7)
    assert relative(sc17.md, expected) < 1e-12
    assert sc17.bw == with_read.bw


def test_it_reproduces_the_printed_extended_score_of_an_sc21_run():
    # HHMIJRC/Janelia Compute Cluster/nrsv/2021/submission-578: [SCOREX] 5.939172 / 29.575101 / 13.253362
    phases = {
        "ior_easy_write": 36.028946,
        "ior_rnd4k_write": 0.156084,
        "mdtest_easy_write": 37.791186,
        "ior_rnd1mb_write": 9.395866,
        "find_easy": 41.265466,
        "ior_hard_write": 1.86618,
        "mdtest_hard_write": 1.730222,
        "find": 60.065826,
        "ior_rnd4k_read": 0.494981,
        "ior_rnd1mb_read": 53.730696,
        "find_hard": 3.124315,
        "mdworkbench_bench": 75.540489,
        "ior_easy_read": 95.502215,
        "mdtest_easy_stat": 324.353413,
        "ior_hard_read": 6.181338,
        "mdtest_hard_stat": 140.956298,
        "mdtest_easy_delete": 42.599252,
        "mdtest_hard_read": 109.146315,
        "mdtest_hard_delete": 1.86223,
        "mdworkbench_create": 33.530394,
        "timestamp": 0.0,
    }
    extended = compute_extended_score(phases, formula=FORMULA_CAPP_SKIP_NONPOSITIVE)
    assert relative(extended.bw, 5.939172) < 1e-6
    assert relative(extended.md, 29.575101) < 1e-6
    assert relative(extended.total, 13.253362) < 1e-6
    standard = compute_io500_score(phases, formula=FORMULA_CAPP_SKIP_NONPOSITIVE)
    assert relative(standard.total, 21.717851) < 1e-6


def test_isc21_extended_runs_use_the_ior_rnd_names():
    bw_names, md_names = extended_phase_names({"ior_rnd_write": 1.0, "ior_rnd_read": 2.0})
    assert bw_names == (*BW_PHASES, "ior_rnd_write", "ior_rnd_read")
    assert len(md_names) == 11
    bw_names, _ = extended_phase_names({"ior_rnd4k_write": 1.0})
    assert len(bw_names) == 8


def test_non_finite_values_propagate_instead_of_raising():
    assert math.isinf(compute_io500_score(dict(POZNAN, find=math.inf), formula=FORMULA_SCRIPT).md)
    assert math.isnan(compute_io500_score(dict(POZNAN, find=math.nan), formula=FORMULA_CAPP_SKIP_NONPOSITIVE).md)


def test_geometric_mean_of_tiny_and_huge_values_does_not_overflow():
    assert relative(geometric_mean([1e-300, 1e300]), 1.0) < 1e-12
    assert relative(geometric_mean([1e308] * 4), 1e308) < 1e-12


def test_it_rejects_an_unknown_formula():
    with pytest.raises(ValueError, match="unknown IO500 score formula"):
        compute_io500_score(POZNAN, formula="median")


@pytest.mark.parametrize(
    ("version", "generation", "has_run", "expected"),
    [
        ("io500-isc20-1-g643b0ae16ce8-22", "capp-g1", False, FORMULA_CAPP_ZERO_ENTERS),
        ("io500-sc20_v3", "capp-g2", False, FORMULA_CAPP_ZERO_ENTERS),
        ("io500-isc21_v1", "capp-g3", False, FORMULA_CAPP_ZERO_ENTERS),
        ("io500-sc21", "capp-g3", True, FORMULA_CAPP_SKIP_NONPOSITIVE),
        ("io500-isc25_v1-11-gabc123", "capp-g3", True, FORMULA_CAPP_SKIP_NONPOSITIVE),
        ("", "capp-g1", False, FORMULA_CAPP_ZERO_ENTERS),
        ("", "capp-g3", False, FORMULA_CAPP_ZERO_ENTERS),
        ("", "capp-g3", True, FORMULA_CAPP_SKIP_NONPOSITIVE),
        ("aramco-custom", "capp-g3", True, FORMULA_CAPP_SKIP_NONPOSITIVE),
        ("dev-12-gd1f2a3c4", "capp-g3", True, FORMULA_CAPP_SKIP_NONPOSITIVE),
        ("dev", "capp-g1", False, FORMULA_CAPP_ZERO_ENTERS),
    ],
)
def test_capp_formula_follows_the_version_and_the_file_grammar(version, generation, has_run, expected):
    assert capp_formula_for_version(version, generation=generation, has_run_section=has_run) == expected
