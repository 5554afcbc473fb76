"""Each tool's reader takes the figure its README row names, in MB/s (10^6 bytes/s) or IOPS.

Expected values are the printed figures of the sample logs in tests/data/tools, converted by hand.
"""

import itertools
from pathlib import Path

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools import TOOLS, read_log, stack_readers, upload_kinds

DATA = Path(__file__).resolve().parents[2] / "data" / "tools"


def read(tool: str, name: str):
    return read_log(tool, (DATA / name).read_bytes(), name)


@pytest.mark.parametrize(
    ("tool", "name", "operation", "expected"),
    [
        # xdd 6.5: the Combined line (after a carriage return), IOPS for a random run
        ("xdd", "xdd/xdd65-randread.txt", "randread", 39438.30),
        ("xdd", "xdd/xdd65-card-write.txt", "write", 879.366),
        # xdd 7: COMBINED, Bandwidth column
        ("xdd", "xdd/xdd7-read.txt", "read", 1941.632),
        # IOzone: Children see ..., KB/kB = 1024 bytes
        ("iozone", "iozone/iozone3420.txt", "write", 1373144.53 * 1024 / 1e6),
        ("iozone", "iozone/iozone3420.txt", "read", 1916113.28 * 1024 / 1e6),
        ("iozone", "iozone/iozone3471.txt", "write", 857160.55 * 1024 / 1e6),
        ("iozone", "iozone/iozone3471.txt", "read", 1616409.82 * 1024 / 1e6),
        # fio: bw_bytes / 10^6, summed over jobs; iops for random
        ("fio", "fio/one-job.json", "read", 284.852137),
        ("fio", "fio/numjobs2.json", "read", (140397306 + 141843036) / 1e6),
        ("fio", "fio/json-normal.log", "randwrite", 2211.665695),
        # perftest: MB/sec = 2^20 B/s, Gb/sec = 10^9 bit/s
        ("ib_write_bw", "ib_write_bw/perftest130.txt", "read", 5615.95 * 1.048576),
        ("ib_write_bw", "ib_write_bw/perftest4-mb.txt", "read", 5629.06 * 1.048576),
        ("ib_write_bw", "ib_write_bw/perftest4-gbits.txt", "write", 47.27 * 125),
        # lst stat: mean of the servers' [R] (brw write) / [W] (brw read), x 1.048576
        (
            "lnet_selftest",
            "lnet_selftest/lustre24-write.txt",
            "write",
            (5126.59 + 5138.21 + 5146.95 + 5160.27 + 5148.29) / 5 * 1.048576,
        ),
        # obdfilter-survey: the highest write / read over the points, MiB/s
        ("obdfilter-survey", "obdfilter_survey/beacon-OST0001.summary", "write", 1131.45 * 1.048576),
        ("obdfilter-survey", "obdfilter_survey/beacon-OST0001.summary", "read", 1342.87 * 1.048576),
        # IOR: Max(MiB) of the summary row
        ("ior", "ior/ior-fpp-27x1m-D60.txt", "write", 11634.83 * 1.048576),
        ("ior", "ior/ior330-ssf-27x4m-mpiio.txt", "read", 9407.54 * 1.048576),
    ],
)
def test_the_reader_takes_the_tools_own_aggregate(tool, name, operation, expected):
    figure = read(tool, name).figure(operation)
    assert figure.value == pytest.approx(expected, rel=1e-9)
    assert figure.line


def test_lst_stat_of_a_later_console_reads_mib_and_the_sent_side_of_a_read_test():
    reading = read("lnet_selftest", "lnet_selftest/later-read.txt")
    text = (DATA / "lnet_selftest/later-read.txt").read_text().splitlines()
    servers = [
        float(line.split()[2])
        for previous, line in itertools.pairwise(text)
        if line.startswith("[W]") and previous.startswith("[R]") and "MiB/s" in line and float(line.split()[2]) > 1000
    ]
    assert set(reading.figures) == {"read"}
    assert reading.figure("read").value == pytest.approx(sum(servers) / len(servers) * 1.048576)


def test_a_log_without_the_listed_operation_is_refused_naming_the_file():
    with pytest.raises(ParseError, match=r"lnet_selftest/lustre24-write.txt: .*no read measurement"):
        read("lnet_selftest", "lnet_selftest/lustre24-write.txt").figure("read")
    with pytest.raises(ParseError, match="no randread measurement"):
        read("xdd", "xdd/xdd65-card-write.txt").figure("randread")


def test_xdd_without_a_combined_line_sums_the_target_averages():
    lines = (DATA / "xdd/xdd65-card-write.txt").read_text().splitlines(keepends=True)
    without = "".join(line for line in lines if "Combined" not in line).encode()
    figure = read_log("xdd", without, "cut.txt").figure("write")
    assert figure.value == pytest.approx(220.183 + 220.935 + 218.130 + 220.353)


def test_ib_write_bw_sweep_takes_the_last_line():
    last = " 65536      5000           5633.04            5615.95\n"
    text = (
        (DATA / "ib_write_bw/perftest130.txt")
        .read_text()
        .replace(last, " 4096       5000           3000.00            2999.00\n" + last)
    )
    figure = read_log("ib_write_bw", text.encode(), "sweep.txt").figure("write")
    assert figure.value == pytest.approx(5615.95 * 1.048576)


def test_fio_group_reporting_and_text_around_the_json():
    document = (DATA / "fio/one-job.json").read_text()
    noisy = "fio: this platform does not support process shared mutexes\n" + document + "\nRun status group 0\n"
    assert read_log("fio", noisy.encode(), "noisy.log").figure("read").value == pytest.approx(284.852137)


@pytest.mark.parametrize(
    ("tool", "content", "message"),
    [
        ("xdd", b"[root@x ~]# xdd -op read\n", "no xdd results header"),
        ("iozone", b"\tIozone: Performance Test of File I/O\n\tRun began\n", "no 'Children see throughput"),
        (
            "iozone",
            b"\tIozone: Performance Test of File I/O\n\tChildren see throughput for 8 readers = 1.0 ops/sec\n",
            r":2: IOzone unit 'ops/sec'",
        ),
        ("fio", b'{\n "jobs": [\n', "fio JSON is not well formed"),
        (
            "ib_write_bw",
            b"  RDMA_Write BW Test\n #bytes #iterations BW peak[MB/sec] BW average[MB/sec]\n",
            "no ib_write_bw result",
        ),
        ("ib_write_bw", b" #bytes #iterations BW peak[GB/sec] BW average[GB/sec]\n", r":1: ib_write_bw unit 'GB/sec'"),
        ("lnet_selftest", b"[LNet Bandwidth of servers]\n[R] Avg: 12 KB/s\n", r":2: lst stat unit 'KB/s'"),
        (
            "obdfilter-survey",
            b"ost 1 sz 1K rsz 1 obj 1 thr 1 write SHORT rewrite SHORT read SHORT\n",
            "every obdfilter",
        ),
        ("ior", b"IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n", "bad.log"),
        ("hdparm", b"", "unknown tool 'hdparm'"),
    ],
)
def test_bad_logs_are_refused_naming_the_file(tool, content, message):
    with pytest.raises(ParseError, match=message) as refused:
        read_log(tool, content, "bad.log")
    assert refused.value.path == "bad.log"


@pytest.mark.parametrize("tool", ["xdd", "iozone", "fio", "ib_write_bw", "lnet_selftest", "obdfilter-survey", "ior"])
def test_a_line_over_the_256_kib_cap_is_refused_with_its_number(tool):
    with pytest.raises(ParseError) as refused:
        read_log(tool, b"ok\n" + b"x" * (256 * 1024 + 1), "bad.log")
    assert str(refused.value) == "bad.log:2: line of 262145 characters is over the limit of 262144 characters"


def test_every_tool_folder_describes_itself():
    assert set(stack_readers()) == {"xdd", "iozone", "fio", "ib_write_bw", "lnet_selftest", "obdfilter-survey", "ior"}
    assert set(upload_kinds()) == {"io500", "mdtest", "ior", "stack"}
    assert set(TOOLS) == set(stack_readers()) | set(upload_kinds())
    for tool in TOOLS.values():
        assert tool.reads
    for tool in stack_readers().values():
        assert tool.operations
