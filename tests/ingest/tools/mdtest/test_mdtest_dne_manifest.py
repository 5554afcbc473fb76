"""Placing mdtest logs in a DNE campaign: the manifest, and inference when it is silent."""

from decimal import Decimal
from pathlib import Path

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.mdtest.grammar import parse_mdtest_file
from apps.ingest.tools.mdtest.manifest import (
    INHERITED,
    NON_INHERITED,
    UNKNOWN,
    MdtCountEvidence,
    infer_mdt_count,
    infer_striping,
    mdt_counts_named_in,
    parse_manifest,
    place_log,
    read_manifest,
    scaling_point_records,
)

DATA = Path(__file__).resolve().parents[3] / "data" / "mdtest"
SLICE = DATA / "dne-campaign-slice"


def manifest(text: str, folder: Path = Path("/campaign")):
    return parse_manifest(text, name="manifest.csv", folder=folder)


def test_it_reads_the_campaign_manifest_relative_to_its_folder():
    read = read_manifest(SLICE / "manifest.csv")
    assert len(read) == 20
    entry = read.entry_for(SLICE / "dne2_4_mds" / "unique_10k_160" / "mdtest.out")
    assert (entry.mdt_count, entry.client_nodes, entry.tasks, entry.files_per_dir, entry.striping) == (
        4,
        8,
        160,
        10000,
        NON_INHERITED,
    )
    assert entry.label == ""


def test_empty_cells_mean_infer_and_the_label_column_is_optional():
    read = manifest("log,mdt_count,client_nodes,tasks,files_per_dir,striping,label\na/mdtest.out,,,,,,first try\n")
    entry = read.entry_for(Path("/campaign/a/mdtest.out"))
    assert (entry.mdt_count, entry.client_nodes, entry.tasks, entry.files_per_dir, entry.striping) == (
        None,
        None,
        None,
        None,
        None,
    )
    assert entry.label == "first try"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("mdt_count\n4\n", 1, "'log' column"),
        ("log,mdt_cnt\na,4\n", 1, "unknown manifest column"),
        ("log,mdt_count\na,four\n", 2, "whole number"),
        ("log,mdt_count\na,0\n", 2, "between 1 and"),
        ("log,tasks\na,99999999999\n", 2, "between 1 and"),
        ("log,tasks\na," + "9" * 60 + "\n", 2, "whole number"),
        ("log,striping\na,sideways\n", 2, "striping must be one of"),
        ("log,mdt_count\na,4\na,8\n", 3, "listed twice"),
        ("log,mdt_count\n,4\n", 2, "'log' cell is empty"),
        ("log,mdt_count\na,4,extra\n", 2, "more cells"),
    ],
)
def test_manifest_errors_name_the_line(text, line, message):
    with pytest.raises(ParseError) as caught:
        manifest(text)
    assert caught.value.line == line
    assert message in caught.value.message
    assert caught.value.path == "manifest.csv"


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("dne2_8_mds/unique_10k_40/mdtest.out", {8}),
        ("/lustre/scratch/8mdt/run", {8}),
        ("/lustre/fs/mdt8/bench", {8}),
        ("/results/16-MDTs/x", {16}),
        ("/results/mds_4/x", {4}),
        ("dne1_2mds", {2}),
        ("/gpfs/io500/datafiles/io500.2018.11.08-15.56.05/mdt_easy", set()),
        ("mdtest -d /lustre/mdtest-easy -n 100", set()),
        ("-d /lustre/test_mdt0@/lustre/test_mdt1", {0, 1}),
    ],
)
def test_mdt_counts_named_in_paths_and_command_lines(text, counts):
    assert mdt_counts_named_in(text) == counts


def test_an_mdt_count_is_never_guessed():
    def evidence(*named):
        return [MdtCountEvidence(source, frozenset(counts)) for source, counts in named]

    assert infer_mdt_count(evidence(("log path", {8}), ("command line", set()))) == (8, "log path")
    assert infer_mdt_count(evidence(("log path", set()), ("command line", {4}))) == (4, "command line")
    assert infer_mdt_count(evidence(("log path", {4}), ("command line", {4}))) == (4, "log path")
    assert infer_mdt_count(evidence(("log path", {4}), ("command line", {8})))[0] is None
    assert infer_mdt_count(evidence(("command line", {0, 1})))[0] is None
    count, reason = infer_mdt_count(evidence(("log path", set())))
    assert count is None
    assert "no MDT count" in reason


@pytest.mark.parametrize(
    ("texts", "striping"),
    [
        (("inherited/dne2_4_mds/x",), INHERITED),
        (("non-inherited/dne2_4_mds/x",), NON_INHERITED),
        (("runs_noinherit/x",), NON_INHERITED),
        (("dne2_4_mds/x", "mdtest -d /lustre/inherit_test"), INHERITED),
        (("inherited/x", "mdtest -d /lustre/non_inherited"), UNKNOWN),
        (("dne2_4_mds/x",), UNKNOWN),
    ],
)
def test_striping_is_inferred_only_when_the_names_agree(texts, striping):
    assert infer_striping(*texts) == striping


def campaign_log(relative: str):
    return parse_mdtest_file(SLICE / relative, relative)


def test_without_a_manifest_the_campaign_layout_gives_the_same_points_except_striping():
    read = read_manifest(SLICE / "manifest.csv")
    for path in sorted(SLICE.rglob("mdtest.out")):
        relative = str(path.relative_to(SLICE))
        log = parse_mdtest_file(path, relative)
        declared = scaling_point_records(log, place_log(log, source_file=relative, entry=read.entry_for(path)))
        inferred = scaling_point_records(log, place_log(log, source_file=relative))
        assert [(p.mdt_count, p.tasks, p.client_nodes, p.files_per_dir, p.unique_dir) for p in declared] == [
            (p.mdt_count, p.tasks, p.client_nodes, p.files_per_dir, p.unique_dir) for p in inferred
        ]
        assert {p.striping for p in inferred} == {UNKNOWN}
        assert {p.striping for p in declared} == {NON_INHERITED}


def test_the_directory_load_named_in_the_path_wins_over_mdtests_rounded_count():
    relative = "dne2_16_mds/unique_10k_160/mdtest.out"
    log = campaign_log(relative)
    assert log.launches[0].blocks[0].items == 9920
    records = scaling_point_records(log, place_log(log, source_file=relative))
    assert {record.files_per_dir for record in records} == {10000}
    elsewhere = scaling_point_records(log, place_log(log, source_file="dne2_16_mds/run/mdtest.out"))
    assert {record.files_per_dir for record in elsewhere} == {9920}


def test_a_log_without_an_mdt_count_is_reported_not_placed():
    name = "mdtest-3.4.0+dev_io500-capp_no-colon-rows_io500-submission-data_sub691.txt"
    log = parse_mdtest_file(DATA / name, name)
    placement = place_log(log, source_file=name)
    assert placement.unknown_mdt_launches
    assert "no MDT count" in placement.unknown_mdt_launches[0].mdt_problem
    with pytest.raises(ValueError, match="MDT count unknown"):
        scaling_point_records(log, placement)


def test_manifest_values_win_and_a_disagreement_on_tasks_is_a_warning():
    name = "mdtest-1.9.3_llnl_single-run_vi4io-io-500-dev_sandia-2017.txt"
    entry = manifest(
        f"log,mdt_count,client_nodes,tasks,files_per_dir,striping,label\n{name},6,3,4,5000,inherited,retry\n",
        folder=DATA,
    ).entry_for(DATA / name)
    log = parse_mdtest_file(DATA / name, name)
    placement = place_log(log, source_file=name, entry=entry)
    assert "manifest says 4 tasks" in placement.warnings[0]
    record = scaling_point_records(log, placement)[0]
    assert (
        record.mdt_count,
        record.client_nodes,
        record.tasks,
        record.files_per_dir,
        record.striping,
        record.label,
    ) == (6, 3, 4, 5000, INHERITED, "retry")


def test_a_point_carries_rate_time_stonewall_and_iterations_of_its_operation():
    relative = "mdtest-3.3.0_verbose_rank-line-prefixes_stonewall_constructed.txt"
    log = parse_mdtest_file(DATA / relative, relative)
    records = scaling_point_records(log, place_log(log, source_file=relative))
    assert [record.operation for record in records] == [
        "file_creation",
        "file_stat",
        "file_read",
        "file_removal",
        "tree_creation",
        "tree_removal",
    ]
    creation = records[0]
    assert creation.mdt_count == 8
    assert (creation.max, creation.min, creation.mean, creation.stddev) == (
        Decimal("95400.000"),
        Decimal("91800.000"),
        Decimal("93600.000"),
        Decimal("1800.000"),
    )
    assert (creation.time_max, creation.time_mean) == (Decimal("0.349"), Decimal("0.342"))
    assert creation.printed["stonewall_rate"]["mean"] == "102960.000"
    assert creation.printed["stonewall_time"]["mean"] == "0.311"
    assert creation.printed["rate"]["header"] == "SUMMARY rate: (of 3 iterations)"
    assert [value["rate"] for value in creation.iteration_values] == ["91800.000", "93600.000", "95400.000"]
    assert creation.iterations == 3
    assert (creation.launch_index, creation.block_index, creation.source_file) == (0, 0, relative)


def test_task_blocks_become_points_of_their_own_client_count():
    relative = "mdtest-1.9.3_llnl_verbose_task-scaling-f4-l8-s4_constructed.txt"
    log = parse_mdtest_file(DATA / relative, relative)
    records = scaling_point_records(log, place_log(log, source_file=relative))
    creations = [record for record in records if record.operation == "file_creation"]
    assert [(record.tasks, record.client_nodes, record.block_index, record.mdt_count) for record in creations] == [
        (4, None, 0, 4),
        (8, 2, 1, 4),
    ]


def test_a_row_csv_cannot_read_is_refused_naming_its_line():
    over_the_field_limit = "x" * 200_000
    with pytest.raises(ParseError, match=r"manifest.csv:2: not a CSV row: field larger than field limit"):
        manifest(f"log,mdt_count\n{over_the_field_limit},4\n")
