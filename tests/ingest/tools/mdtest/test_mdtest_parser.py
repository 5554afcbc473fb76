"""The mdtest parser on one log per version family (tests/data/mdtest, see its README)."""

from decimal import Decimal
from pathlib import Path

import pytest

from apps.ingest.tools.mdtest.grammar import (
    RATE,
    TIME,
    looks_like_mdtest_output,
    operation_name,
    parse_mdtest_bytes,
    parse_mdtest_file,
    parse_options,
    split_command_line,
)

DATA = Path(__file__).resolve().parents[3] / "data" / "mdtest"


def parse(name: str):
    return parse_mdtest_file(DATA / name, name)


def rows(block, kind=RATE):
    return {row.operation: row.printed() for row in block.table(kind).rows}


def test_it_reads_the_llnl_193_launch_header_and_summary():
    log = parse("mdtest-1.9.3_llnl_single-run_vi4io-io-500-dev_sandia-2017.txt")
    (launch,) = log.launches
    assert (launch.version, launch.tasks, launch.nodes) == ("1.9.3", 2, 1)
    assert launch.command_line.startswith("/fscratch/gflofst/bin/mdtest -C -F -d ")
    assert launch.path == ""
    assert launch.filesystem.startswith("1745.8 TiB")
    assert (launch.started_at, launch.finished_at) == ("10/24/2017 18:05:45", "10/24/2017 18:05:51")
    assert launch.unique_dir
    (block,) = launch.blocks
    assert (block.tasks, block.items, block.item_kind, block.iterations) == (2, 1220, "files", 1)
    assert rows(block)["file_creation"] == {
        "max": "222.391",
        "min": "222.391",
        "mean": "222.391",
        "stddev": "0.000",
    }
    assert block.table(TIME) is None


def test_it_splits_concatenated_launches():
    log = parse("mdtest-1.9.3_llnl_three-concatenated-runs_vi4io-io-500-dev_dkrz-2017.txt")
    assert [launch.index for launch in log.launches] == [0, 1, 2]
    assert [next(flag for flag in "CTr" if launch.options.get(flag)) for launch in log.launches] == [
        "C",
        "T",
        "r",
    ]
    assert rows(log.launches[1].blocks[0])["file_stat"]["mean"] == "168218.052"
    assert rows(log.launches[2].blocks[0])["tree_removal"]["max"] == "4.588"


def test_it_reads_ior_bundled_summary_rate_with_ten_iterations_and_directory_rows():
    log = parse("mdtest-1.9.3-ior3.2.0-bundled_SUMMARYrate_10-iterations_ubccr-akrr.txt")
    assert len(log.launches) == 2
    assert not log.launches[0].unique_dir
    assert log.launches[1].unique_dir
    block = log.launches[1].blocks[0]
    assert block.iterations == 10
    assert block.operations() == [
        "directory_creation",
        "directory_stat",
        "directory_removal",
        "file_creation",
        "file_stat",
        "file_read",
        "file_removal",
        "tree_creation",
        "tree_removal",
    ]
    assert rows(block)["directory_stat"] == {
        "max": "2404796.918",
        "min": "2296773.955",
        "mean": "2335336.847",
        "stddev": "28944.830",
    }


def test_it_keeps_the_stonewall_row_with_its_na_cells_and_the_time_table():
    log = parse("mdtest-3.3.0+dev_io500-bash-era_rate+time-tables_io500-submission-data_sub52.txt")
    block = log.launches[0].blocks[0]
    stonewall = block.table(RATE).row("file_creation_stonewall")
    assert stonewall.printed() == {"max": "NA", "min": "NA", "mean": "181096.788", "stddev": "NA"}
    assert stonewall.max.value is None
    assert stonewall.mean.value == Decimal("181096.788")
    assert rows(block, TIME)["file_creation"]["mean"] == "657.841"
    assert block.stonewall_hit == {"min": "154964", "max": "363257", "avg": "208938.2"}


def test_it_reads_colonless_rows_and_key_value_headers_of_34():
    log = parse("mdtest-3.4.0+dev_io500-capp_no-colon-rows_io500-submission-data_sub691.txt")
    launch = log.launches[0]
    assert launch.path == "/scratch/hpe/benchmarks/io500/2023.11.02-18.02.25/mdtest-easy"
    assert launch.filesystem.startswith("29877.0 TiB")
    assert (launch.tasks, launch.nodes) == (16640, 2080)
    assert rows(launch.blocks[0])["file_creation"]["max"] == "780510.749"
    assert rows(launch.blocks[0], TIME)["tree_creation"]["mean"] == "0.189"


def test_the_time_table_is_a_time_table_whatever_its_unit_label_says():
    block = parse("mdtest-4.1.0+dev_io500-capp_in-ops-sec_io500-submission-data_sub708.txt").launches[0].blocks[0]
    rate, time = block.tables
    assert (rate.kind, rate.unit_label) == (RATE, "in ops/sec")
    assert (time.kind, time.unit_label) == (TIME, "in ops/sec")
    assert time.row("file_creation").printed()["max"] == "372.432"


def test_it_reads_17_and_18_output():
    plain = parse("mdtest-1.7.4_llnl_plain_constructed.txt").launches[0]
    assert (plain.version, plain.tasks, plain.nodes) == ("1.7.4", 64, 4)
    assert rows(plain.blocks[0])["directory_creation"]["max"] == "5230.125"
    report = parse("mdtest-1.8.3_olcf-dne-report_pdf-text_verbose.txt").launches[0]
    assert (report.version, report.tasks, report.nodes) == ("1.8.3", 608, 19)
    block = report.blocks[0]
    assert block.iterations == 10
    assert rows(block)["directory_removal"] == {
        "max": "58571.575",
        "min": "32890.567",
        "mean": "40771.867",
        "stddev": "8140.125",
    }
    creations = block.iteration_values["directory_creation"]
    assert [value.iteration for value in creations] == list(range(1, 11))
    assert (creations[0].seconds.printed, creations[0].rate.printed) == ("50.762", "11977.446")


def test_it_splits_task_scaling_blocks_and_keeps_their_iterations():
    launch = parse("mdtest-1.9.3_llnl_verbose_task-scaling-f4-l8-s4_constructed.txt").launches[0]
    assert [(block.tasks, block.items) for block in launch.blocks] == [(4, 400), (8, 800)]
    first, second = launch.blocks
    assert rows(first)["file_creation"]["mean"] == "7105.000"
    assert rows(second)["file_creation"]["mean"] == "14210.000"
    assert [value.rate.printed for value in second.iteration_values["file_creation"]] == [
        "14140.000",
        "14280.000",
    ]
    assert [value.iteration for value in first.iteration_values["tree_creation"]] == [1, 2]


def test_it_reads_per_iteration_lines_with_rank_and_line_prefixes():
    block = parse("mdtest-3.3.0_verbose_rank-line-prefixes_stonewall_constructed.txt").launches[0].blocks[0]
    assert [value.rate.printed for value in block.iteration_values["file_creation"]] == [
        "91800.000",
        "93600.000",
        "95400.000",
    ]
    assert len(block.iteration_values["file_creation_stonewall"]) == 3
    assert [value.seconds.printed for value in block.iteration_values["tree_removal"]] == [
        "0.038",
        "0.037",
        "0.036",
    ]


def test_it_reads_rank_statistics_columns_and_the_rename_row():
    block = parse("mdtest-4.1.0+dev_rank-statistics_rename_dirs-only_constructed.txt").launches[0].blocks[0]
    rename = block.table(RATE).row("directory_rename")
    assert rename.printed() == {
        "max": "12480.000",
        "min": "12000.000",
        "mean": "12240.000",
        "stddev": "339.411",
    }
    assert [number.printed for number in rename.per_rank] == ["936.000", "600.000", "765.000"]
    assert block.item_kind == "directories"
    assert block.table(TIME).unit_label == "in ms/op"


def test_it_ignores_other_tools_between_launches():
    ior_noise = (
        "IOR-3.2.0: MPI Coordinated Test of Parallel I/O\nPath                : /wrong\n"
        "Summary of all tests:\nOperation   Max(MiB)   Min(MiB)\nwrite 1 2 3\n"
    )
    text = (DATA / "mdtest-1.9.3_llnl_single-run_vi4io-io-500-dev_sandia-2017.txt").read_text()
    log = parse_mdtest_bytes((ior_noise + text + ior_noise + text).encode(), "output.txt")
    assert len(log.launches) == 2
    assert all(launch.path == "" for launch in log.launches)


def test_crlf_line_endings_read_like_lf():
    original = (DATA / "mdtest-1.9.3_llnl_single-run_vi4io-io-500-dev_sandia-2017.txt").read_bytes()
    crlf = parse_mdtest_bytes(original.replace(b"\n", b"\r\n"), "crlf.txt")
    assert rows(crlf.launches[0].blocks[0]) == rows(parse_mdtest_bytes(original, "lf.txt").launches[0].blocks[0])


def test_the_content_hash_identifies_the_bytes():
    data = (DATA / "mdtest-1.9.3_llnl_single-run_vi4io-io-500-dev_sandia-2017.txt").read_bytes()
    assert parse_mdtest_bytes(data, "a").content_hash == parse_mdtest_bytes(data, "b").content_hash
    assert parse_mdtest_bytes(data + b"\n", "a").content_hash != parse_mdtest_bytes(data, "a").content_hash


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("Directory creation", "directory_creation"),
        ("File create (stonewall)", "file_creation_stonewall"),
        ("File creation (stonewall)", "file_creation_stonewall"),
        ("Tree removal", "tree_removal"),
        ("File read", "file_read"),
        ("Directory rename", "directory_rename"),
    ],
)
def test_operation_names(label, name):
    assert operation_name(label) == name


@pytest.mark.parametrize(
    ("command_line", "expected"),
    [
        (
            "/bin/mdtest -C -F -d /x -n 610 -u -L",
            {"C": True, "F": True, "d": "/x", "n": "610", "u": True, "L": True},
        ),
        ('/bin/mdtest "-I" "32" "-z" "0" "-u"', {"I": "32", "z": "0", "u": True}),
        (
            "./mdtest '--dataPacketType=timestamp' '-n' '30000' '-u'",
            {"dataPacketType": "timestamp", "n": "30000", "u": True},
        ),
        ("mdtest -uL -n100 -d/a", {"u": True, "L": True, "n": "100", "d": "/a"}),
        ("mdtest -d '/unbalanced -u", {"d": "'/unbalanced", "u": True}),
    ],
)
def test_command_line_options(command_line, expected):
    assert parse_options(split_command_line(command_line)) == expected


def test_it_tells_mdtest_output_from_other_files():
    assert looks_like_mdtest_output((DATA / "mdtest-1.7.4_llnl_plain_constructed.txt").read_text())
    assert not looks_like_mdtest_output("log,mdt_count\na/mdtest.out,4\n")
    assert not looks_like_mdtest_output("# A DNE scaling campaign\nmdtest 1.8.3 output format\n")
