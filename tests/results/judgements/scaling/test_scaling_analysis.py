"""Saturation analysis: the rules on small hand-made series, then on campaigns with known knees."""

import json
import random
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.grammar import parse_mdtest_file
from apps.ingest.tools.mdtest.manifest import place_log, read_manifest, scaling_point_records
from apps.results.judgements.scaling.analysis import analyse_points, coefficient_of_variation, knee, operation_label
from synth.campaign import OPERATION_LABELS, CampaignSpec, write_campaign
from tests.conftest import shared_path

DATA = Path(__file__).resolve().parents[3] / "data" / "mdtest"


@dataclass
class Point:
    mdt_count: int
    tasks: int
    mean: float
    operation: str = "file_creation"
    files_per_dir: int = 10000
    striping: str = "non-inherited"
    client_nodes: int | None = None
    max: float | None = None
    min: float | None = None
    stddev: float | None = 0.0


def curve(mdt_count: int, rates: dict[int, float], **fields) -> list[Point]:
    return [Point(mdt_count, tasks, rate, **fields) for tasks, rate in rates.items()]


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        ([(1, 100), (2, 200), (4, 400), (8, 410)], 4),
        ([(1, 100), (2, 105), (4, 400)], 1),
        ([(1, 100), (2, 200), (4, 400)], None),
        ([(1, 100)], None),
        ([], None),
        ([(1, 100), (2, 109.9)], 1),
        ([(1, 100), (2, 110.0)], None),
        ([(1, 100), (2, 50)], 1),
    ],
)
def test_the_knee_is_the_smallest_count_whose_next_step_gains_less_than_the_threshold(steps, expected):
    assert knee(steps, 0.10) == expected


def test_peak_speedup_efficiency_and_saturation():
    points = (
        curve(1, {20: 800, 40: 1000, 80: 990})
        + curve(2, {20: 1200, 40: 1900, 80: 2000})
        + curve(4, {20: 1300, 40: 2100, 80: 2150})
        + curve(8, {20: 1300, 40: 2120, 80: 2200})
    )
    analysis = analyse_points(points)
    (group,) = analysis.groups
    assert [level.peak for level in group.levels] == [1000, 2000, 2150, 2200]
    assert [level.peak_point.tasks for level in group.levels] == [40, 80, 80, 80]
    assert [round(level.speedup, 3) for level in group.levels] == [1.0, 2.0, 2.15, 2.2]
    assert [level.efficiency for level in group.levels] == pytest.approx([1.0, 1.0, 0.5375, 0.275])
    assert group.saturation_mdt_count == 2
    assert [level.client_saturation.tasks for level in group.levels] == [40, 40, 40, 40]
    assert analysis.saturation_table() == [
        {"operation": "file_creation", "files_per_dir": 10000, "striping": "non-inherited", "mdt_count": 2}
    ]
    assert not analysis.warnings


def test_the_threshold_is_a_parameter():
    points = curve(1, {40: 100}) + curve(2, {40: 115}) + curve(4, {40: 125})
    assert analyse_points(points).groups[0].saturation_mdt_count == 2
    assert analyse_points(points, saturation_threshold=0.20).groups[0].saturation_mdt_count == 1
    assert analyse_points(points, saturation_threshold=0.05).groups[0].saturation_mdt_count is None


def test_groups_are_per_operation_directory_load_and_striping():
    points = []
    for striping, knee_at in (("inherited", 1), ("non-inherited", 4)):
        for files in (10000, 100000):
            for operation in ("file_stat", "directory_creation"):
                for mdt_count in (1, 2, 4, 8):
                    rate = 1000 * min(mdt_count, knee_at)
                    points += curve(mdt_count, {40: rate}, operation=operation, files_per_dir=files, striping=striping)
    analysis = analyse_points(points)
    assert len(analysis.groups) == 8
    assert [group.key.operation for group in analysis.groups[:4]] == ["directory_creation"] * 4
    assert analysis.group("file_stat", 100000, "inherited").saturation_mdt_count == 1
    assert analysis.group("file_stat", 100000, "non-inherited").saturation_mdt_count == 4


def test_adding_mdts_that_lowers_the_rate_is_a_warning_but_noise_is_not():
    falling = curve(1, {40: 1000}) + curve(2, {40: 800}) + curve(4, {40: 600})
    group = analyse_points(falling).groups[0]
    assert [(decline.from_mdt_count, decline.to_mdt_count) for decline in group.declines] == [(1, 2), (2, 4)]
    (warning,) = group.warnings
    assert "adding MDTs lowers the peak rate" in warning
    assert "1→2 MDTs" in warning
    assert "−20%" in warning
    flat = curve(1, {40: 1000}) + curve(2, {40: 1010}) + curve(4, {40: 995})
    assert analyse_points(flat).warnings == []
    assert analyse_points(flat, decline_tolerance=0.0).warnings


def test_points_whose_iterations_vary_too_much_are_flagged():
    steady = Point(1, 40, 1000, stddev=20)
    noisy = Point(2, 40, 1000, stddev=150)
    analysis = analyse_points([steady, noisy])
    assert [flag.point for flag in analysis.noisy_points] == [noisy]
    assert analysis.noisy_points[0].coefficient_of_variation == pytest.approx(0.15)
    assert analyse_points([steady, noisy], variation_threshold=0.2).noisy_points == []
    assert coefficient_of_variation(Point(1, 1, 0.0)) is None


def test_phases_that_did_not_run_are_left_out():
    points = [*curve(1, {40: 1000}), Point(2, 40, 0.0), Point(2, 80, None), *curve(4, {40: 1050})]
    group = analyse_points(points).groups[0]
    assert [level.mdt_count for level in group.levels] == [1, 4]


def test_decimal_values_from_the_database_are_accepted():
    points = [
        Point(1, 40, Decimal("1000.000"), stddev=Decimal("10.000")),
        Point(2, 40, Decimal("2000.000"), max=Decimal("2100.000"), min=Decimal("1900.000")),
    ]
    group = analyse_points(points).groups[0]
    assert group.levels[1].speedup == 2.0
    assert group.levels[1].peak_point.max == 2100.0


def test_the_best_measurement_of_a_client_count_is_kept():
    points = [Point(1, 40, 900), Point(1, 40, 1000), Point(1, 80, 950)]
    level = analyse_points(points).groups[0].levels[0]
    assert [(point.tasks, point.mean) for point in level.curve] == [(40, 1000), (80, 950)]


def test_operation_labels():
    assert operation_label("directory_creation") == "Directory creation"


def campaign_records(root: Path, *, use_manifest: bool = True):
    manifest = read_manifest(root / "manifest.csv") if use_manifest else None
    records = []
    for path in sorted(root.rglob("mdtest.out")):
        relative = str(path.relative_to(root))
        log = parse_mdtest_file(path, relative)
        entry = manifest.entry_for(path) if manifest else None
        records += scaling_point_records(log, place_log(log, source_file=relative, entry=entry))
    return records


def detected_vs_truth(root: Path, *, use_manifest: bool = True) -> list[tuple]:
    truth = json.loads((root / "truth.json").read_text())
    analysis = analyse_points(
        campaign_records(root, use_manifest=use_manifest), saturation_threshold=truth["threshold"]
    )
    found = {
        (row["operation"], row["files_per_dir"], row["striping"]): row["mdt_count"]
        for row in analysis.saturation_table()
    }
    comparisons = []
    for expected in truth["knees"]:
        operation = expected["operation"].lower().replace(" ", "_")
        striping = expected["striping"] if use_manifest else "unknown"
        comparisons.append(
            (
                operation,
                expected["files_per_dir"],
                expected["striping"],
                found.get((operation, expected["files_per_dir"], striping)),
                expected["saturation_mdt_count"],
            )
        )
    return comparisons


def assert_knees_recovered(comparisons):
    wrong = [row for row in comparisons if row[3] != row[4]]
    assert not wrong, f"detected != truth for {wrong}"


@pytest.mark.parametrize("use_manifest", [True, False])
def test_the_campaign_slice_matches_its_truth(use_manifest):
    assert_knees_recovered(detected_vs_truth(DATA / "dne-campaign-slice", use_manifest=use_manifest))


HELD_OUT = [
    # (seed, mdt counts, threads, format)
    (11, (1, 2, 4, 8, 16), (1, 20, 40, 80, 160, 240, 320, 400), "1.8"),
    (12, (1, 2, 3, 4, 6, 8, 12), (4, 8, 16, 32, 64, 128), "1.8"),
    (13, (2, 4, 8, 16, 32), (10, 50, 100, 200, 400), "4.1"),
    (14, (1, 2, 4, 8, 16, 24), (1, 20, 40, 80, 160, 240, 320, 400), "4.1"),
]


@pytest.mark.parametrize(("seed", "mdt_counts", "threads", "mdtest_format"), HELD_OUT)
def test_held_out_campaigns_with_other_knees_and_both_striping_modes(
    tmp_path, seed, mdt_counts, threads, mdtest_format
):
    rng = random.Random(seed)
    knees = {
        (operation, files, striping): rng.choice(mdt_counts[:-1])
        for operation in OPERATION_LABELS
        for files in (10000, 100000)
        for striping in ("inherited", "non-inherited")
    }
    collapse = {
        key
        for key, at in knees.items()
        if key[2] == "inherited" and key[0].startswith("directory") and at == mdt_counts[0]
    }
    spec = CampaignSpec(
        knees=knees, mdt_counts=mdt_counts, threads=threads, seed=seed, mdtest_format=mdtest_format, collapse=collapse
    )
    write_campaign(tmp_path, spec)
    comparisons = detected_vs_truth(tmp_path)
    assert len(comparisons) == 24
    assert {row[2] for row in comparisons} == {"inherited", "non-inherited"}
    assert_knees_recovered(comparisons)


def test_a_campaign_that_never_flattens_has_no_saturation(tmp_path):
    spec = CampaignSpec(knees={("file_creation", 10000, "non-inherited"): 16}, mdt_counts=(1, 2, 4, 8, 16))
    write_campaign(tmp_path, spec)
    analysis = analyse_points(campaign_records(tmp_path))
    assert analysis.saturation_table()[0]["mdt_count"] is None


def test_a_collapsing_rate_warns(tmp_path):
    key = ("directory_creation", 10000, "inherited")
    write_campaign(tmp_path, CampaignSpec(knees={key: 1}, collapse={key}))
    analysis = analyse_points(campaign_records(tmp_path))
    assert analysis.group(*key).saturation_mdt_count == 1
    assert len(analysis.group(*key).declines) == 4


@pytest.mark.corpus
@pytest.mark.parametrize("use_manifest", [True, False])
def test_the_shared_campaign_sample_matches_truth_json(use_manifest):
    root = shared_path("dne-campaign-sample")
    comparisons = detected_vs_truth(root, use_manifest=use_manifest)
    assert len(comparisons) == 12
    assert_knees_recovered(comparisons)
