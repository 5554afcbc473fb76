"""Raw IOR / mdtest / find outputs across tool versions (streamed, lenient)."""

from pathlib import Path

import pytest

from apps.ingest.tools.io500.grammar.raw import parse_find_csv, parse_ior_output, parse_mdtest_output
from apps.ingest.tools.mdtest.grammar import rank_shift_option
from tests.conftest import shared_path
from tests.ingest.tools.io500.io500_samples import RAW


def raw(name):
    return RAW / name


def test_ior_32_nodes_come_from_tasks_and_clients_per_node():
    ior = parse_ior_output(raw("ior-3.2.0.txt"), "ior-3.2.0.txt")
    test = ior.tests[0]
    assert (ior.version, test.tasks, test.nodes) == ("3.2.0", 240, 10)
    assert ior.command.startswith("/io-500/bin/ior -w -C -Q 1")
    assert test.iterations("write")[0].cells["bw(MiB/s)"] == "2297.80"
    assert test.iterations("write")[0].cells["total(s)"] == "376.22"
    assert test.max["write"].printed == "2297.80"
    assert test.stonewall["pairs_max"] == "1801"
    assert test.stonewall["seconds"] == "303.2"
    assert ior.began == "Wed Nov  7 15:47:58 2018"
    assert ior.finished == "Wed Nov  7 15:54:15 2018"
    assert (ior.reordering.constant, ior.reordering.offset) == (True, 1)


def test_ior_41_without_max_lines_keeps_the_result_line():
    ior = parse_ior_output(raw("ior-4.1.0-no-max-lines.txt"), "ior.txt")
    test = ior.tests[0]
    assert (test.nodes, test.tasks) == (10, 250)
    assert [row.cells["bw(MiB/s)"] for row in test.iterations("read")] == ["13325"]
    assert test.iterations("write") == []
    assert test.max == {}


def test_mdtest_rows_without_colons_and_mislabelled_time_tables():
    mdtest = parse_mdtest_output(raw("mdtest-4.1.0-no-colon-rows.txt"), "mdtest.txt")
    assert (mdtest.version, mdtest.ntasks, mdtest.nnodes) == ("mdtest-4.1.0+dev", 250, 10)
    assert mdtest.rate("stat") == 292574.456
    assert mdtest.seconds("stat") == 40.690  # the "(in ms/op)" table holds seconds
    assert mdtest.rate_label == "SUMMARY rate (in ops/sec)"
    assert mdtest.time_label == "SUMMARY time (in ms/op)"
    assert mdtest.rank_shift == 25
    assert (mdtest.items_tasks, mdtest.items, mdtest.item_kind) == (250, 250000000, "files")
    assert mdtest.command_line == 4


def test_mdtest_na_cells_stonewall_rows_and_a_second_launch():
    mdtest = parse_mdtest_output(raw("mdtest-3.3.0-na-two-launches.txt"), "mdtest.txt")
    assert mdtest.launches == 2
    assert mdtest.ntasks == 8625
    assert mdtest.rate("creation") == 2235658.143
    assert mdtest.rates["File create (stonewall)"] == ["NA", "NA", "2576765.494", "NA"]
    assert mdtest.stonewall_hit == {"min": 35707, "max": 113104, "avg": 89601.5}
    assert mdtest.seconds("creation") == 436.348


def test_mdtest_18_plain_summary_and_nodes_spelling():
    mdtest = parse_mdtest_output(raw("mdtest-1.8.3.txt"), "mdtest.txt")
    assert (mdtest.nnodes, mdtest.iterations) == (19, 3)
    assert mdtest.rate("creation") == 12345.678


def test_files_that_are_not_tool_output_give_none(tmp_path):
    path = tmp_path / "raw.txt"
    path.write_bytes(b"hello\n\x00\xff binary\nrank, errors\n0, 0\n")
    assert parse_ior_output(path, "raw.txt") is None
    assert parse_mdtest_output(path, "raw.txt") is None
    assert parse_find_csv(path, "raw.txt") is None


def test_find_csv_header(tmp_path):
    path = tmp_path / "find.csv"
    path.write_text("runtime: 24.116077 rate: 2872215.129419\nrank, errors\n")
    assert parse_find_csv(path, "find.csv") == {
        "runtime": 24.116077,
        "rate": 2872215.129419,
    }


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("./mdtest -n 10 -u -L -F -P -N 1 -d /x", 1),
        ("/bin/mdtest '-T' '-F' '-N' '8' '-d' '/x'", 8),
        ('/bin/mdtest "-T" "-N" "1"', 1),
        ("./mdtest -N1 -T", 1),
        ("srun -N 10 ./mdtest -T -F -d /x -n 100", 0),  # srun's -N counts nodes
        ("/bin/mdtest -T -F -d /x -n 100", 0),
        ("", None),
    ],
)
def test_rank_shift_option_in_any_quoting(command, expected):
    assert rank_shift_option(command) == expected


# The IO500 raw reader and the standalone mdtest parser share one grammar: these three files once
# gave the IO500 path no SUMMARY rows (tab-separated rows without indentation, per-rank columns).
# Expected values are copied from the files by eye.
MDTEST_DATA = Path(__file__).resolve().parents[3] / "data" / "mdtest"


def test_io500_path_reads_unindented_tab_separated_summary_rows_of_mdtest_183():
    mdtest = parse_mdtest_output(MDTEST_DATA / "mdtest-1.8.3_olcf-dne-report_pdf-text_verbose.txt", "dne.txt")
    assert (mdtest.version, mdtest.ntasks, mdtest.nnodes, mdtest.iterations) == ("mdtest-1.8.3", 608, 19, 10)
    assert len(mdtest.rates) == 8
    assert mdtest.rates["Directory stat"] == ["123904.353", "120985.660", "122593.489", "887.006"]
    assert mdtest.rate("creation") == 37338.848
    assert mdtest.rates["Tree removal"] == ["20.433", "0.114", "11.901", "5.570"]
    assert mdtest.rate_lines["File creation"] == 110


def test_io500_path_reads_per_iteration_columns_of_rank_statistics_tables():
    mdtest = parse_mdtest_output(
        MDTEST_DATA / "mdtest-4.1.0+dev_rank-statistics_rename_dirs-only_constructed.txt", "stats.txt"
    )
    assert len(mdtest.rates) == 6
    assert len(mdtest.times) == 6
    # the last four of the seven columns: per-iteration Max, Min, Mean, Std Dev
    assert mdtest.rates["Directory rename"] == ["12480.000", "12000.000", "12240.000", "339.411"]
    assert mdtest.times["Directory creation"] == ["0.400", "0.385", "0.392", "0.011"]
    assert (mdtest.items_tasks, mdtest.items, mdtest.item_kind) == (16, 8000, "directories")


def test_io500_path_reads_the_summary_of_the_olcf_report_text_in_seed_002():
    seed = next(shared_path("seeds").glob("002_*.txt"))
    mdtest = parse_mdtest_output(seed, seed.name)
    assert (mdtest.ntasks, mdtest.nnodes, mdtest.launches) == (608, 19, 1)
    assert len(mdtest.rates) == 8
    assert mdtest.rates["File removal"] == ["19082.413", "13694.820", "16086.342", "1275.494"]
    assert mdtest.rate("stat") == 26506.056


def test_stonewall_rank_lines_flushed_after_the_finish_line_still_count():
    mdtest = parse_mdtest_output(raw("mdtest-1.9.3-sc18-inflated-rate.txt"), "mdtest.txt")
    # line 10: "stonewall rank 0: 54274 of 60319", line 23 (after "-- finished at"): rank 105, 54826
    assert mdtest.stonewall_rank_lines == 2
    assert (mdtest.stonewall_rank_done_sum, mdtest.stonewall_rank_done_max) == (54274 + 54826, 54826)


def test_a_truncated_launch_keeps_what_was_printed(tmp_path):
    path = tmp_path / "mdtest-easy-write.txt"
    path.write_text(
        "-- started at 01/02/2020 10:00:00 --\n"
        "mdtest-3.3.0 was launched with 4 total task(s) on 2 node(s)\n"
        "Command line used: ./mdtest '-C' '-N' '1' '-n' '10'\n"
        "4 tasks, 40 files\n"
        "SUMMARY rate: (of 1 iterations)\n"
        "   Operation                      Max            Min           Mean        Std Dev\n"
        "   File creation             100.000        100.000        100.000          0.000\n"
        "   File stat                 garbled\n"
    )
    mdtest = parse_mdtest_output(path, "mdtest-easy-write.txt")
    assert mdtest.rate("creation") == 100.0
    assert "File stat" not in mdtest.rates
    assert (mdtest.command_line, mdtest.finished) == (3, "")


@pytest.mark.parametrize(
    ("nodemap", "expected"),
    [
        ("1000" * 6, 4),  # round-robin: ranks 0, 4, 8 ... share rank 0's node
        ("111000000000", 4),  # by slot: the first three ranks on rank 0's node
        ("110000000", None),  # uneven: no count
        ("1" * 12, 1),
    ],
)
def test_the_nodemap_gives_the_node_count_mdtest_measured(tmp_path, nodemap, expected):
    path = tmp_path / "mdtest-easy-write.txt"
    path.write_text(
        "-- started at 01/02/2020 10:00:00 --\n"
        f"mdtest-3.3.0 was launched with {len(nodemap)} total task(s) on {len(nodemap)} node(s)\n"
        "Command line used: ./mdtest '-C' '-n' '10'\n"
        f"Nodemap: {nodemap}\n"
        "SUMMARY rate: (of 1 iterations)\n"
        "   Operation                      Max            Min           Mean        Std Dev\n"
        "   File creation             100.000        100.000        100.000          0.000\n"
        "-- finished at 01/02/2020 10:05:00 --\n"
    )
    mdtest = parse_mdtest_output(path, "mdtest-easy-write.txt")
    assert (mdtest.nnodes, mdtest.nodemap_nodes) == (len(nodemap), expected)
