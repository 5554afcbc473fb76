"""Raw IOR / mdtest / find outputs across tool versions (streamed, lenient)."""

import pytest

from apps.ingest.parsers.io500.raw import parse_find_csv, parse_ior_output, parse_mdtest_output
from apps.ingest.parsers.io500.raw_facts import rank_shift_of
from tests.ingest.parsers.io500_samples import RAW


def raw(name):
    return RAW / name


def test_ior_32_nodes_come_from_tasks_and_clients_per_node():
    ior = parse_ior_output(raw("ior-3.2.0.txt"), "ior-3.2.0.txt")
    assert (ior.version, ior.tasks, ior.nodes) == ("3.2.0", 240, 10)
    assert ior.command.startswith("/io-500/bin/ior -w -C -Q 1")
    assert ior.bandwidth_mib("write") == 2297.80
    assert ior.total_seconds("write") == 376.22
    assert ior.max_mib == {"write": 2297.80}
    assert ior.stonewall["pairs_max"] == 1801
    assert ior.stonewall["seconds"] == 303.2
    assert ior.fields["began"] == "Wed Nov  7 15:47:58 2018"
    assert ior.fields["finished"] == "Wed Nov  7 15:54:15 2018"


def test_ior_41_without_max_lines_uses_the_result_line():
    ior = parse_ior_output(raw("ior-4.1.0-no-max-lines.txt"), "ior.txt")
    assert (ior.nodes, ior.tasks) == (10, 250)
    assert ior.bandwidth_mib("read") == 13325
    assert ior.bandwidth_mib("write") is None


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
        ("/bin/mdtest -T -F -d /x -n 100", None),
        ("", None),
    ],
)
def test_rank_shift_option_in_any_quoting(command, expected):
    assert rank_shift_of(command) == expected
