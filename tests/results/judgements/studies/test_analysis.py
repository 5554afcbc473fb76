"""Study analysis on hand-made points: which axes are held fixed, Holm's correction, pivots, verdicts."""

import math
import statistics
from types import SimpleNamespace

import pytest
from scipy import stats

from apps.results.judgements.studies.analysis import (
    StudyBudget,
    Verdict,
    compare,
    comparison_count,
    comparisons_of,
    covarying_axes,
    describe_value,
    fixed_axes,
    holm_adjust,
    independent_axes,
    pivot,
    travelling_axes,
    welch_tests,
)


def point(operation="write", mean="100.00", stddev="1.00", iterations=("99.00", "100.00", "101.00"), log=None, **axes):
    """A study point; ``log`` names its job (one log is one job), else each point is a job of its own."""
    return SimpleNamespace(
        axes=axes, operation=operation, mean=mean, stddev=stddev, iterations=list(iterations), log_hash=log
    )


def jobs(means, **axes):
    """One point per job, each job's printed mean given (its iterations around it)."""
    return [
        point(
            mean=f"{m:.2f}",
            iterations=[f"{m * 0.99:.2f}", f"{m:.2f}", f"{m * 1.01:.2f}"],
            log=f"{axes}-{index}",
            **axes,
        )
        for index, m in enumerate(means)
    ]


def hints_study():
    """Two file systems x two hint configs (with a label describing each) x two node counts (tasks = 20 x nodes)."""
    points = []
    for filesystem in ("CephFS", "Lustre"):
        for config, label in (("hint4", "cb=disable"), ("hint7", "cb=automatic")):
            for nodes in (8, 16):
                points.append(
                    point(filesystem=filesystem, config=config, label=label, api="MPIIO", nodes=nodes, tasks=20 * nodes)
                )
    return points


def test_a_column_describing_another_travels_with_it_and_is_never_held_fixed():
    points = hints_study()
    assert independent_axes(points) == ["filesystem", "config", "nodes"]  # api does not vary
    assert fixed_axes(points, "config") == ["filesystem", "nodes"]
    assert travelling_axes(points, "config") == ["label"]
    assert fixed_axes(points, "nodes") == ["filesystem", "config"]
    assert travelling_axes(points, "nodes") == ["tasks"]
    assert by_words(compare(points, axes=["config"]))[0].startswith("not testable: no config value has 2 jobs")
    # Compared by its label, a config is the same comparison: config travels, the rest is fixed.
    assert fixed_axes(points, "label") == ["filesystem", "nodes"]


def by_words(groups):
    return [group.sentence for group in groups]


def test_every_pair_of_every_varying_axis_is_compared_with_the_other_axes_fixed():
    comparisons = comparisons_of(compare(hints_study()))
    config = [c for c in comparisons if c.axis == "config"]
    assert len(config) == 4  # 2 file systems x 2 node counts, one pair each
    assert {tuple(c.fixed.items()) for c in config} == {
        (("filesystem", fs), ("nodes", n)) for fs in ("CephFS", "Lustre") for n in (8, 16)
    }
    assert {c.axis for c in comparisons} == {"filesystem", "config", "label", "nodes", "tasks"}


def test_holm_adjustment_matches_a_hand_computation():
    # sorted: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04 -> kept at 0.06 (monotone)
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjust([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def welch_p_value(a, b):
    result = welch_tests([(a, b)])[0]
    return result.p_value if result else None


def test_welch_needs_two_repetitions_and_some_spread():
    assert welch_p_value([100.0], [200.0, 210.0]) is None
    assert welch_p_value([100.0, 100.0], [100.0, 100.0]) is None
    assert welch_p_value([100.0, 101.0, 99.0], [100.5, 99.5, 100.0]) > 0.5
    assert welch_p_value([100.0, 103.0, 98.0], [300.0, 290.0, 310.0]) < 0.001


def test_a_threefold_difference_between_jobs_is_different_and_worded_like_the_seed_tables():
    fast = jobs([2950, 3000, 3050], config="hint4", nodes=8)
    slow = jobs([980, 1000, 1020], config="hint7", nodes=8)
    same = jobs([2940, 3060, 3030], config="hint5", nodes=8)
    groups = compare([*fast, *slow, *same], axes=["config"])
    by_pair = {(c.a, c.b): c for c in comparisons_of(groups)}
    hint4_7 = by_pair[("hint4", "hint7")]
    assert (hint4_7.verdict_code, hint4_7.jobs, hint4_7.significant) == (Verdict.DIFFERENT, (3, 3), True)
    expected_ratio = math.exp(
        statistics.fmean(map(math.log, [2950, 3000, 3050])) - statistics.fmean(map(math.log, [980, 1000, 1020]))
    )
    assert hint4_7.ratio == pytest.approx(expected_ratio, rel=1e-9)
    low, high = hint4_7.ratio_ci
    assert low < expected_ratio < high
    assert high / low < 1.2
    assert hint4_7.verdict.startswith("hint4 is 3x faster than hint7 (write, ratio 3, 95 % CI ")
    assert hint4_7.verdict.endswith(", 3 and 3 jobs)")
    assert by_pair[("hint5", "hint7")].p_value >= by_pair[("hint5", "hint7")].p_raw
    # 0.3 % apart with ~2 % job noise: the 90 % interval of the ratio, by hand exp(-0.0033 +- 2.15 x 0.0155)
    # = 0.964-1.031, lies within 1/1.05-1.05
    assert by_pair[("hint4", "hint5")].verdict_code is Verdict.SAME
    assert by_pair[("hint4", "hint5")].verdict.startswith("hint4 and hint5 are the same within ±5% (write, ratio")


def test_a_significant_difference_smaller_than_the_margin_is_not_different_but_the_same():
    """The finding of issue #24: [100.00, 100.00, 100.01] against [100.02] x 3 gave p = 0.038 and "1x faster"."""
    a = jobs([100.00, 100.00, 100.01], config="a")
    b = jobs([100.02, 100.02, 100.02], config="b")
    (comparison,) = comparisons_of(compare([*a, *b]))
    assert comparison.p_value < 0.05
    assert (comparison.verdict_code, comparison.significant) == (Verdict.SAME, False)
    assert comparison.verdict_label == "same within ±5%"
    # with a margin of 1e-4 the same data is a (tiny) difference
    (strict,) = comparisons_of(compare([*a, *b], margin=0.0001))
    assert strict.verdict_code is Verdict.DIFFERENT


def test_equivalence_needs_the_whole_90_percent_interval_inside_the_margin():
    a = jobs([100, 101, 99, 100], config="a")
    close = jobs([101, 100, 102, 101], config="b")
    noisy = jobs([90, 112, 95, 108], config="b")
    (same,) = comparisons_of(compare([*a, *close]))
    (wide,) = comparisons_of(compare([*a, *noisy]))
    assert same.verdict_code is Verdict.SAME
    assert wide.verdict_code is Verdict.INCONCLUSIVE  # job means 90-112: the interval reaches past +-5 %
    assert wide.verdict.startswith("a vs b: inconclusive, neither a difference of 5% or more nor sameness")


def test_iterations_of_one_job_are_not_replicates():
    """Two jobs of three iterations each, 3x apart: one job a side, not testable however tight the iterations."""
    fast = point(config="a", mean="3000.00", iterations=["2999.00", "3000.00", "3001.00"], log="job-a")
    slow = point(config="b", mean="1000.00", iterations=["999.00", "1000.00", "1001.00"], log="job-b")
    (comparison,) = comparisons_of(compare([fast, slow]))
    assert (comparison.verdict_code, comparison.p_value, comparison.jobs) == (Verdict.NOT_TESTABLE, None, (1, 1))
    assert comparison.ratio == pytest.approx(3.0)
    assert comparison.verdict == (
        "a vs b: not testable, 1 job against 1: a side needs 2 jobs (logs), its "
        "iterations are not independent (write; measured ratio 3)"
    )
    assert comparison.as_dict()["ratio_ci"] is None


def test_two_tests_of_one_log_with_the_same_configuration_are_one_job():
    side_a = [point(config="a", mean="100.00", log="one-log"), point(config="a", mean="102.00", log="one-log")]
    side_b = jobs([50, 51], config="b")
    (comparison,) = comparisons_of(compare([*side_a, *side_b]))
    assert comparison.jobs == (1, 2)
    assert comparison.mean_a == pytest.approx(101.0)


def test_co_varying_axes_come_as_one_set_first_axis_first():
    assert covarying_axes(hints_study()) == [["filesystem"], ["config", "label"], ["nodes", "tasks"]]


def test_pivot_rows_and_columns_show_mean_and_stddev_as_printed_in_numeric_order():
    points = [
        point(api="MPIIO", config="hint4", nodes=16, mean="20.50", stddev="0.25"),
        point(api="MPIIO", config="hint4", nodes=8, mean="10.00", stddev="1.50"),
        point(api="HDF5", config="hint4", nodes=8, mean="7.00", stddev="0.10"),
    ]
    table = pivot(points, "write", rows=["api", "config"], columns=["nodes"])
    assert table["column_values"] == [[8], [16]]
    assert [row["row"] for row in table["body"]] == [["HDF5", "hint4"], ["MPIIO", "hint4"]]
    hdf5, mpiio = table["body"]
    assert hdf5["cells"][1] is None
    assert [cell.printed for cell in mpiio["cells"]] == ["10.00 ± 1.50", "20.50 ± 0.25"]


def test_batched_welch_tests_give_each_pair_scipys_own_answer():
    pairs = [
        ([100.0, 110.0, 95.0], [200.0, 190.0, 215.0]),
        ([100.0, 104.0, 99.0, 101.0], [98.0, 97.0, 103.0]),
        ([50.0, 52.0, 49.0], [51.0, 55.0, 47.0]),
        ([1.0], [2.0, 3.0]),
    ]
    batched = [result.p_value if result else None for result in welch_tests(pairs)]
    for (a, b), p_value in zip(pairs[:3], batched[:3], strict=True):
        expected = stats.ttest_ind([math.log(v) for v in a], [math.log(v) for v in b], equal_var=False).pvalue
        assert p_value == pytest.approx(expected, rel=1e-12)
    assert batched[3] is None


def test_a_run_id_column_first_in_the_manifest_does_not_hide_the_real_factors():
    points = [point(run=f"r{index}", **{k: v for k, v in p.axes.items()}) for index, p in enumerate(hints_study())]
    points = [SimpleNamespace(**{**vars(p), "axes": {"run": p.axes["run"], **p.axes}}) for p in points]
    assert independent_axes(points) == ["filesystem", "config", "nodes"]
    assert fixed_axes(points, "config") == ["filesystem", "nodes"]


def test_a_single_factor_study_compares_that_factor():
    points = [point(config=f"hint{index}") for index in range(4)]
    assert independent_axes(points) == ["config"]
    assert len(comparisons_of(compare(points))) == 6


@pytest.mark.parametrize(
    ("axis", "value", "words"),
    [
        ("nodes", 8, "8 nodes"),
        ("nodes", 1, "1 node"),
        ("tasks", 1, "1 task"),
        ("mdt_count", 16, "16 MDTs"),
        ("mdt_count", 1, "1 MDT"),
        ("files_per_dir", 10000, "10000 files per dir"),
        ("unique_dir", True, "a directory per task"),
        ("unique_dir", False, "a shared directory"),
        ("striping", "inherited", "inherited"),
        ("config", "hint4", "hint4"),
    ],
)
def test_axis_values_read_as_words_in_verdicts(axis, value, words):
    assert describe_value(axis, value) == words


def test_the_comparisons_of_a_study_are_counted_without_making_them():
    # config a, b, c at 1 and 2 nodes: 3 config pairs at each node count, 1 nodes pair for each config
    points = [point(config=config, nodes=nodes) for config in "abc" for nodes in (1, 2)]

    assert comparison_count(points) == 2 * 3 + 3 * 1


def test_a_study_budget_names_what_a_study_is_past():
    points = [point(config=config, nodes=nodes) for config in "abcd" for nodes in (1, 2)]

    assert StudyBudget(configurations=8, axes=2, values_per_axis=4, comparisons=16).excess(points) == ""
    assert (
        StudyBudget(configurations=7, axes=2, values_per_axis=4, comparisons=16)
        .excess(points)
        .startswith("8 configurations, more than the 7")
    )
    assert (
        StudyBudget(configurations=8, axes=1, values_per_axis=4, comparisons=16)
        .excess(points)
        .startswith("2 axes, more than the 1")
    )
    assert (
        StudyBudget(configurations=8, axes=2, values_per_axis=3, comparisons=16)
        .excess(points)
        .startswith("4 values of axis 'config', more than the 3")
    )
    # 6 config pairs at each of 2 node counts, 1 nodes pair for each of 4 configs
    assert (
        StudyBudget(configurations=8, axes=2, values_per_axis=4, comparisons=15)
        .excess(points)
        .startswith("16 pairwise comparisons, more than the 15")
    )
