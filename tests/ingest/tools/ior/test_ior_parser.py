"""The one IOR grammar: every IOR version's text output and the JSON summary format.

Expected values are read off the sample files by eye (see tests/data/ior/SOURCES.md).
"""

from decimal import Decimal
from pathlib import Path

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.ior.grammar import parse_ior_bytes, parse_ior_file
from apps.results.judgements.anomalies.facts import TaskReordering

DATA = Path(__file__).resolve().parents[3] / "data" / "ior"


def sample(name: str) -> Path:
    return DATA / name


def only_test(name: str, *, strict: bool = True):
    log = parse_ior_file(sample(name), name, strict=strict)
    assert len(log.runs) == 1
    assert len(log.runs[0].tests) == 1
    return log.runs[0], log.runs[0].tests[0]


def test_ior_33_repetitions_hints_and_summary_kept_as_printed():
    run, test = only_test("ior-3.3.0_study_three-repetitions_hints_ior-study-sample.txt")
    assert run.version == "3.3.0"
    assert run.command.startswith("ior -a MPIIO -w -r -i 3")
    assert (test.nodes, test.tasks, test.options["clients_per_node"]) == (8, 160, "20")
    assert test.options["api"] == "MPIIO"
    assert test.options["access"] == "single-shared-file"
    assert test.options["type"] == "independent"
    assert test.options["segments"] == "1"
    assert test.options["ordering"] == "sequential"
    assert test.options["repetitions"] == "3"
    assert (test.options["xfersize"], test.options["blocksize"]) == ("1 MiB", "128 MiB")
    assert test.options["aggregate_filesize"] == "20.00 GiB"
    assert test.hints == {
        "hints passed to MPI_File_open()": {
            "romio_cb_write": "disable",
            "romio_ds_write": "enable",
            "romio_cb_read": "disable",
            "romio_ds_read": "enable",
        }
    }
    assert [row.cells["bw(MiB/s)"] for row in test.iterations("write")] == ["3374.47", "3101.56", "3660.43"]
    assert [row.iteration for row in test.iterations("read")] == [0, 1, 2]
    assert test.max["write"] == test.iterations("write")[2].bandwidth_mib
    assert test.max_mb["read"].printed == "4850.50"
    write = test.summary_row("write")
    assert (write.max.printed, write.min.printed, write.mean.printed, write.stddev.printed) == (
        "3660.43",
        "3101.56",
        "3378.82",
        "228.18",
    )
    assert write.mean.value == Decimal("3378.82")
    assert write.cells["Stonewall(s)"] == "NA"
    assert write.cells["StdDev(OPs)"] == "228.18"
    assert write.cells["aggs(MiB)"] == "20480.0"
    assert write.cells["RefNum"] == "0"
    assert run.finished == "Mon May 06 09:07:16 2019"


def test_ior_210_summary_block_spaced_headers_and_unheaded_cells():
    run, test = only_test("ior-2.10.3_summary-table-only_constructed.txt")
    assert (run.version, run.began, run.finished) == ("2.10.3", "Thu Mar 18 14:02:11 2010", "Thu Mar 18 14:03:50 2010")
    assert run.command.startswith("/home/bench/IOR/src/C/IOR -a POSIX")
    assert (test.tasks, test.nodes, test.options["task_offset"]) == (32, 4, "1")
    assert test.options["ordering_inter_file"] == "constant task offsets"
    read = test.summary_row("read")
    assert (read.max.printed, read.min.printed, read.mean.printed, read.stddev.printed) == (
        "1734.96",
        "1688.40",
        "1715.37",
        "19.88",
    )
    assert read.cells["Mean(s)"] == "4.77575"
    assert read.extra == [
        "32",
        "8",
        "3",
        "0",
        "1",
        "1",
        "0",
        "0",
        "1",
        "268435456",
        "1048576",
        "8589934592",
        "-1",
        "POSIX",
        "EXCEL",
    ]
    assert test.results == []
    assert run.reordering == TaskReordering(constant=True, random=False, offset=1)


def test_ior_31_summary_block_with_clients_per_node_and_a_warning_first():
    run, test = only_test("ior-3.1.0_io500-bash_summary-block_dkrz-sub137.txt")
    assert (test.test_id, test.tasks, test.nodes) == (0, 1200, 100)
    assert test.options["api"] == "MPIIO (version=2, subversion=1)"
    assert test.warnings == ["ior WARNING: fsync() only available in POSIX/MMAP.  Using value of 0."]
    assert test.iterations("read")[0].cells["bw(MiB/s)"] == "126356"
    assert test.summary_row("read").cells["aggsize"] == "25769803776000"
    assert (run.reordering.constant, run.reordering.offset) == (True, 1)


def test_ior_33_dev_hints_returned_and_stonewall_columns():
    _run, test = only_test("ior-3.3.0+dev_io500-bash_hints_stonewall-columns_nscc-changsha-sub88.txt")
    assert test.hints["hints passed to MPI_File_open()"] == {"romio_ds_write": "disable", "romio_cb_read": "disable"}
    assert test.hints["hints returned from opened file"]["striping_factor"] == "568"
    assert test.stonewall == {
        "pairs_min": "247700",
        "pairs_max": "304000",
        "min_data_gib": "10.8",
        "mean_data_gib": "13.3",
        "seconds": "300.0",
    }
    write = test.summary_row("write")
    assert (write.cells["Stonewall(s)"], write.cells["Stonewall(MiB)"]) == ("300.01", "7257.66")
    assert test.options["stonewalling_time"] == "300"


def test_several_tests_in_one_launch_with_na_cells_and_test_numbers():
    log = parse_ior_file(sample("ior-3.3.0_two-tests-script_reorder-random_constructed.txt"))
    first, second = log.runs[0].tests
    assert (first.test_id, second.test_id) == (0, 1)
    assert (first.options["xfersize"], second.options["xfersize"]) == ("4 MiB", "64 KiB")
    assert [row.cells["bw(MiB/s)"] for row in second.iterations("read")] == ["NA", "NA"]
    assert second.iterations("read")[0].bandwidth_mib.value is None
    assert second.summary_row("write").stddev.printed == "11.32"
    read = second.summary_row("read")
    assert (read.max.printed, read.max.value, read.cells["Mean(s)"]) == ("NA", None, "NA")
    assert first.summary_row("read").mean.printed == "8941.14"
    assert log.runs[0].reordering_of(first) == TaskReordering(constant=False, random=True, offset=None)


def test_json_summary_format_keeps_the_printed_digits():
    log = parse_ior_file(sample("ior-3.3.0_json-summary-format_constructed.json"))
    assert log.format == "json"
    run, test = log.runs[0], log.tests[0]
    assert (run.version, run.machine) == ("3.3.0", "Linux node001")
    assert (test.nodes, test.tasks, test.options["xfersize"]) == (4, 64, "1 MiB")
    assert [row.cells["bw(MiB/s)"] for row in test.iterations("write")] == ["2875.3311", "2790.4467", "2931.9079"]
    assert [row.iteration for row in test.iterations("read")] == [0, 1, 2]
    write = test.summary_row("write")
    assert (write.max.printed, write.min.printed, write.mean.printed, write.stddev.printed) == (
        "2931.9079",
        "2790.4467",
        "2865.8952",
        "58.1354",
    )
    assert write.cells["aggs(MiB)"] == "4096.0000"
    assert run.reordering == TaskReordering(constant=True, random=False, offset=2)
    assert test.reordering == TaskReordering(constant=True, random=False, offset=2)


def captured_stdout_with_json(document: str) -> str:
    """The JSON sample as it reads when IOR writes it to stdout with -v: IOR 3.2's banner first, progress
    and stonewall lines between the document's own lines (hpc/ior#102, #503)."""
    lines = document.split("\n")
    first_write = next(index for index, line in enumerate(lines) if line == '"access": "write",')
    return "\n".join(
        [
            "IOR-3.3.0: MPI Coordinated Test of Parallel I/O",
            *lines[: first_write - 1],
            "Commencing write performance test: Tue Oct 15 10:12:02 2019",
            *lines[first_write - 1 :],
            "Pairs deadlineForStonewallingaccessed: 65536",
        ]
    )


def test_json_captured_from_stdout_with_log_lines_reads_like_the_file():
    document = sample("ior-3.3.0_json-summary-format_constructed.json").read_text()
    log = parse_ior_bytes(captured_stdout_with_json(document).encode(), "stdout.txt")
    assert log.format == "json"
    test = log.tests[0]
    assert [row.cells["bw(MiB/s)"] for row in test.iterations("write")] == ["2875.3311", "2790.4467", "2931.9079"]
    assert test.summary_row("write").max.printed == "2931.9079"


def test_json_with_a_non_finite_rate_keeps_it_as_unavailable_text():
    document = sample("ior-3.3.0_json-summary-format_constructed.json").read_text()
    log = parse_ior_bytes(document.replace('"bwMiB": 4120.8815,', '"bwMiB": inf,').encode(), "run.json")
    assert log.tests[0].iterations("read")[0].cells["bw(MiB/s)"] == "inf"


def test_a_broken_captured_json_names_the_line_of_the_file():
    text = captured_stdout_with_json(sample("ior-3.3.0_json-summary-format_constructed.json").read_text())
    lines = text.split("\n")
    broken = next(index for index, line in enumerate(lines) if '"bwMiB": 2790.4467' in line)
    lines[broken] = lines[broken].replace(",", "")
    with pytest.raises(ParseError) as error:
        parse_ior_bytes("\n".join(lines).encode(), "stdout.txt")
    assert error.value.line == broken + 2  # the missing comma is noticed on the next line of the file


def test_ior_41_inside_the_io500_app_is_read_leniently_but_refused_strictly():
    name = "ior-4.1.0+dev_io500-capp_no-summary-no-finished_purdue-sub782.txt"
    _run, test = only_test(name, strict=False)
    assert (test.nodes, test.tasks) == (10, 1920)
    assert test.iterations("write")[0].cells["bw(MiB/s)"] == "1626.67"
    assert test.summary == []
    assert test.max == {}
    assert len(test.warnings) == 4
    with pytest.raises(ParseError) as error:
        parse_ior_file(sample(name), name)
    assert error.value.path == name
    assert error.value.line == 42
    assert "no 'Finished' line" in error.value.message


def lines_of(name: str) -> list[str]:
    return sample(name).read_text().split("\n")


STUDY = "ior-3.3.0_study_three-repetitions_hints_ior-study-sample.txt"


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (lambda lines: lines[:40], 40, "no 'Finished' line"),  # cut inside the result rows
        (lambda lines: [*lines[:39], "write     3101.56    3101.56    0.1190", *lines[40:]], 40, "expected 11 columns"),
        (lambda lines: [*lines[:39], lines[39].replace("3101.56 ", "31o1.56 ", 1), *lines[40:]], 40, "not a number"),
        (lambda lines: [*lines[:48], lines[48].replace("3378.82", "33#8.82"), *lines[49:]], 49, "not a number"),
        (lambda lines: [*lines[:48], " ".join(lines[48].split()[:9]), *lines[49:]], 49, "summary row"),
        (lambda lines: lines[:33] + lines[34:], 34, "not a 'key = value' hint"),
        (lambda lines: [line for line in lines if not line.startswith("IOR-")], None, "no IOR header"),
    ],
)
def test_garbled_or_truncated_logs_name_the_file_and_line(edit, line, words):
    data = "\n".join(edit(lines_of(STUDY))).encode()
    with pytest.raises(ParseError) as error:
        parse_ior_bytes(data, "study/hint4.txt")
    assert error.value.path == "study/hint4.txt"
    assert error.value.line == line
    assert words in error.value.message


def test_truncated_json_names_the_line():
    data = sample("ior-3.3.0_json-summary-format_constructed.json").read_bytes()[:2000]
    with pytest.raises(ParseError) as error:
        parse_ior_bytes(data, "run.json")
    assert error.value.path == "run.json"
    assert error.value.line is not None
    assert "truncated" in error.value.message


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ior -w -C -Q 1 -g", TaskReordering(constant=True, random=False, offset=1)),
        ("ior -w -C", TaskReordering(constant=True, random=False, offset=1)),
        ("ior -r -Z -X 7", TaskReordering(constant=False, random=True, offset=None)),
        ("ior -r -C -Q=4", TaskReordering(constant=True, random=False, offset=4)),
        ("ior -rC -Q2", TaskReordering(constant=True, random=False, offset=2)),
        ("ior --reorderTasks --taskPerNodeOffset=3", TaskReordering(constant=True, random=False, offset=3)),
        ("ior -w -o /x/-C", TaskReordering(constant=False, random=False, offset=None)),
        ("ior -w -r", TaskReordering(constant=False, random=False, offset=None)),
    ],
)
def test_task_reordering_is_a_typed_fact_of_the_command_line(command, expected):
    text = f"IOR-3.3.0: MPI Coordinated Test of Parallel I/O\nCommand line        : {command}\n"
    assert parse_ior_bytes(text.encode(), "x.txt", strict=False).runs[0].reordering == expected
