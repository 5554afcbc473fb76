"""Study analysis on hand-made points: which axes are held fixed, Holm's correction, pivots, verdicts."""

import math
from types import SimpleNamespace

import pytest
from scipy import stats

from apps.results.studies.analysis import (
    compare,
    comparisons_of,
    describe_value,
    fixed_axes,
    holm_adjust,
    independent_axes,
    pivot,
    travelling_axes,
    welch_p_value,
    welch_p_values,
)


def point(operation="write", mean="100.00", stddev="1.00", iterations=("99.00", "100.00", "101.00"), **axes):
    return SimpleNamespace(axes=axes, operation=operation, mean=mean, stddev=stddev, iterations=list(iterations))


def hints_study():
    """Two file systems x two hint configs (with a label describing each) x two node counts (tasks = 20 x nodes)."""
    points = []
    for filesystem in ("CephFS", "Lustre"):
        for config, label in (("hint4", "cb=disable"), ("hint7", "cb=automatic")):
            for nodes in (8, 16):
                points.append(point(filesystem=filesystem, config=config, label=label, api="MPIIO",
                                    nodes=nodes, tasks=20 * nodes))
    return points


def test_a_column_describing_another_travels_with_it_and_is_never_held_fixed():
    points = hints_study()
    assert independent_axes(points) == ["filesystem", "config", "nodes"]  # api does not vary
    assert fixed_axes(points, "config") == ["filesystem", "nodes"]
    assert travelling_axes(points, "config") == ["label"]
    assert fixed_axes(points, "nodes") == ["filesystem", "config"]
    assert travelling_axes(points, "nodes") == ["tasks"]
    assert by_words(compare(points, axes=["config"]))[0].startswith("no significant difference between any config")
    # Compared by its label, a config is the same comparison: config travels, the rest is fixed.
    assert fixed_axes(points, "label") == ["filesystem", "nodes"]


def by_words(groups):
    return [group.sentence for group in groups]


def test_every_pair_of_every_varying_axis_is_compared_with_the_other_axes_fixed():
    comparisons = comparisons_of(compare(hints_study()))
    config = [c for c in comparisons if c.axis == "config"]
    assert len(config) == 4  # 2 file systems x 2 node counts, one pair each
    assert {tuple(c.fixed.items()) for c in config} == {
        (("filesystem", fs), ("nodes", n)) for fs in ("CephFS", "Lustre") for n in (8, 16)}
    assert {c.axis for c in comparisons} == {"filesystem", "config", "label", "nodes", "tasks"}


def test_holm_adjustment_matches_a_hand_computation():
    # sorted: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04 -> kept at 0.06 (monotone)
    assert holm_adjust([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm_adjust([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_welch_needs_two_repetitions_and_some_spread():
    assert welch_p_value([100.0], [200.0, 210.0]) is None
    assert welch_p_value([100.0, 100.0], [100.0, 100.0]) is None
    assert welch_p_value([100.0, 101.0, 99.0], [100.5, 99.5, 100.0]) > 0.5
    assert welch_p_value([100.0, 103.0, 98.0], [300.0, 290.0, 310.0]) < 0.001


def test_a_threefold_difference_is_significant_and_worded_like_the_seed_tables():
    fast = point(config="hint4", nodes=8, mean="3000.00", iterations=["2950.00", "3000.00", "3050.00"])
    slow = point(config="hint7", nodes=8, mean="1000.00", iterations=["980.00", "1000.00", "1020.00"])
    same = point(config="hint5", nodes=8, mean="3010.00", iterations=["2940.00", "3060.00", "3030.00"])
    groups = compare([fast, slow, same], axes=["config"])
    by_pair = {(c.a, c.b): c for c in comparisons_of(groups)}
    assert by_pair[("hint4", "hint7")].significant
    assert by_pair[("hint4", "hint7")].ratio == pytest.approx(3.0)
    assert not by_pair[("hint4", "hint5")].significant
    assert by_pair[("hint4", "hint7")].verdict.startswith("hint4 is 3x faster than hint7 (write, p=")
    assert by_pair[("hint5", "hint7")].p_value >= by_pair[("hint5", "hint7")].p_raw
    assert by_pair[("hint4", "hint5")].verdict.startswith("no significant difference between hint4 and hint5")


def test_pivot_rows_and_columns_show_mean_and_stddev_as_printed_in_numeric_order():
    points = [point(api="MPIIO", config="hint4", nodes=16, mean="20.50", stddev="0.25"),
              point(api="MPIIO", config="hint4", nodes=8, mean="10.00", stddev="1.50"),
              point(api="HDF5", config="hint4", nodes=8, mean="7.00", stddev="0.10")]
    table = pivot(points, "write", rows=["api", "config"], columns=["nodes"])
    assert table["column_values"] == [[8], [16]]
    assert [row["row"] for row in table["body"]] == [["HDF5", "hint4"], ["MPIIO", "hint4"]]
    hdf5, mpiio = table["body"]
    assert hdf5["cells"][1] is None
    assert [cell.printed for cell in mpiio["cells"]] == ["10.00 ± 1.50", "20.50 ± 0.25"]


def test_batched_welch_tests_give_each_pair_scipys_own_answer():
    pairs = [([100.0, 110.0, 95.0], [200.0, 190.0, 215.0]), ([100.0, 104.0, 99.0, 101.0], [98.0, 97.0, 103.0]),
             ([50.0, 52.0, 49.0], [51.0, 55.0, 47.0]), ([1.0], [2.0, 3.0])]
    batched = welch_p_values(pairs)
    for (a, b), p_value in zip(pairs[:3], batched[:3], strict=True):
        expected = stats.ttest_ind([math.log(v) for v in a], [math.log(v) for v in b], equal_var=False).pvalue
        assert p_value == pytest.approx(expected, rel=1e-12)
    assert batched[3] is None


def test_a_run_id_column_first_in_the_manifest_does_not_hide_the_real_factors():
    points = [point(run=f"r{index}", **{k: v for k, v in p.axes.items()})
              for index, p in enumerate(hints_study())]
    points = [SimpleNamespace(**{**vars(p), "axes": {"run": p.axes["run"], **p.axes}}) for p in points]
    assert independent_axes(points) == ["filesystem", "config", "nodes"]
    assert fixed_axes(points, "config") == ["filesystem", "nodes"]


def test_a_single_factor_study_compares_that_factor():
    points = [point(config=f"hint{index}") for index in range(4)]
    assert independent_axes(points) == ["config"]
    assert len(comparisons_of(compare(points))) == 6


@pytest.mark.parametrize(("axis", "value", "words"), [
    ("nodes", 8, "8 nodes"), ("nodes", 1, "1 node"), ("tasks", 1, "1 task"), ("mdt_count", 16, "16 MDTs"),
    ("mdt_count", 1, "1 MDT"), ("files_per_dir", 10000, "10000 files per dir"),
    ("unique_dir", True, "a directory per task"), ("unique_dir", False, "a shared directory"),
    ("striping", "inherited", "inherited"), ("config", "hint4", "hint4"),
])
def test_axis_values_read_as_words_in_verdicts(axis, value, words):
    assert describe_value(axis, value) == words
