"""The per-rank CSVs of the C application and IOR's stonewall spread (sample: LCPQ submission-686)."""

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.rank_csv import (
    parse_find_csv,
    parse_ior_rank_csv,
    parse_mdtest_rank_csv,
    phase_of_csv,
    stonewall_spread,
)
from tests.ingest.tools.io500.io500_samples import CAPP_RUN, SAMPLES

RUN = SAMPLES / CAPP_RUN


def test_an_ior_csv_gives_each_ranks_runtime_and_throughput():
    table = parse_ior_rank_csv((RUN / "ior-easy-write.csv").read_text(), "ior-easy-write.csv", "ior_easy_write")

    assert (table.tool, len(table.samples)) == ("ior", 30)
    first = table.samples[0]
    # write,0,5.0824551988e+02,3.2313353395e+02,1.4278914840e+08,2.2458809543e+08
    assert (first.rank, first.runtime, first.throughput) == (0, 323.13353395, 224588095.43)


def test_an_mdtest_csv_skips_the_all_row_and_reads_the_phase_operation():
    table = parse_mdtest_rank_csv(
        (RUN / "mdtest-easy-write.csv").read_text(), "mdtest-easy-write.csv", "mdtest_easy_write", "File creation"
    )

    assert len(table.samples) == 30
    # 0,,...,8.3235842915e+02,3.0407693505e+02,...
    first = table.samples[0]
    assert (first.rank, first.throughput, first.runtime) == (0, 832.35842915, 304.07693505)


def test_find_csv_gives_the_overall_rate_and_each_ranks_work():
    found = parse_find_csv((RUN / "find.csv").read_text(), "find.csv")

    assert (found.runtime, found.rate) == (24.471201, 416522.303418)
    assert found.ranks[0]["found"] == 2606
    assert found.ranks[0]["time spend in job stealing in s"] == 19.064


def test_the_stonewall_spread_comes_from_the_ior_output():
    assert stonewall_spread((RUN / "ior-easy-write.txt").read_text()) == {"min": 19723, "max": 34605}
    assert stonewall_spread("no stonewall here") == {}


@pytest.mark.parametrize(
    ("name", "phase"),
    [("ior-rnd4K-easy-read.csv", "ior_rnd4k_easy_read"), ("mdtest-hard-stat.csv", "mdtest_hard_stat"),
     ("find.csv", None), ("skipped_files.csv", None), ("ior-easy-write.txt", None)],
)  # fmt: skip
def test_csv_names_map_to_phases(name, phase):
    assert phase_of_csv(name) == phase


def test_a_broken_row_names_the_file_and_line():
    header = "access,rank,runtime-with-openclose,runtime,throughput-withopenclose,throughput\n"
    text = header + "write,0,1,2,3,4\nwrite,x,1,2,3,4\n"

    with pytest.raises(ParseError) as caught:
        parse_ior_rank_csv(text, "r/ior-easy-write.csv", "ior_easy_write")

    assert (caught.value.path, caught.value.line) == ("r/ior-easy-write.csv", 3)


def test_a_csv_without_the_columns_is_rejected():
    with pytest.raises(ParseError, match="time-File stat"):
        parse_mdtest_rank_csv("rank,items\nall,3\n", "m.csv", "mdtest_easy_stat", "File stat")


IOR_HEADER = "access,rank,runtime,throughput\n"


def test_a_row_over_the_256_kib_line_cap_is_refused_at_its_line():
    text = IOR_HEADER + "write,0,1," + "2" * 262_144 + "\n"
    with pytest.raises(ParseError) as caught:
        parse_ior_rank_csv(text, "r/ior-easy-write.csv", "ior_easy_write")
    # The line is 10 + 262,144 characters and its newline.
    assert str(caught.value) == (
        "r/ior-easy-write.csv:2: line of 262155 characters is over the limit of 262144 characters"
    )


def test_a_cell_over_csvs_own_limit_is_refused_at_its_line_not_raised_as_csv_error():
    text = IOR_HEADER + "write,0,1,2\nwrite,1,1," + "2" * 150_000 + "\n"
    with pytest.raises(ParseError) as caught:
        parse_ior_rank_csv(text, "r/ior-easy-write.csv", "ior_easy_write")
    assert (caught.value.line, caught.value.message) == (3, "not a CSV row: field larger than field limit (131072)")


def test_a_find_csv_line_over_the_cap_is_refused_at_its_line():
    text = "runtime: 1.5s rate: 100.0\nrank, found\n0, " + "1" * 262_145 + "\n"
    with pytest.raises(ParseError) as caught:
        parse_find_csv(text, "r/find.csv")
    assert str(caught.value) == "r/find.csv:3: line of 262148 characters is over the limit of 262144 characters"


def test_an_ior_csv_reads_its_columns_by_name_skips_empty_rows_and_numbers_the_rows_it_reads():
    text = "rank,access,throughput,runtime,runtime\n\n3,write,2e3,9,1.5\n4,write,x,2,2\n"

    with pytest.raises(ParseError) as refused:
        parse_ior_rank_csv(text, "ior-easy-write.csv", "ior_easy_write")

    # Row 3 is the second row read (the empty line is skipped); "runtime" is its last column of the name.
    assert str(refused.value) == "ior-easy-write.csv:3: not a number: 'x'"
    table = parse_ior_rank_csv(text.replace(",x,", ",7,"), "ior-easy-write.csv", "ior_easy_write")
    assert [(s.rank, s.runtime, s.throughput) for s in table.samples] == [(3, 1.5, 2000.0), (4, 2.0, 7.0)]
