"""A generated campaign of another system: other drives and fabric, the tool versions the sample uses
least (xdd 7 without a COMBINED line, fio json+normal with numjobs, IOzone 3.471, perftest in Gb/sec,
lst in MiB/s without its add_test line, IOR 3.0.1 and 3.3.0), missing logs so the README's fallbacks
apply, and a test node outside the ceiling. Every expectation is worked out by hand in the comments."""

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db

TOOLS_DATA = Path(__file__).resolve().parents[3] / "data" / "tools"
MIB = 1.048576

STACK_YAML = """\
name: "variant"
file_system: {name: "vfs", type: "lustre", server_version: "2.15.4"}
specs:
  nvme-x: {kind: "drive", model: "NVMe X 3.84 TB", read: 3000, write: 2000, randread: 500000}
  hdr: {kind: "link", model: "InfiniBand HDR", read: 25000, write: 25000}
servers:
  - {name: "oss1", roles: ["oss"]}
  - {name: "oss2", roles: ["oss"]}
  - {name: "bench", roles: ["test"]}
devices:
  - {name: "oss1-d1", server: "oss1", spec: "nvme-x"}
  - {name: "oss1-d2", server: "oss1", spec: "nvme-x"}
  - {name: "oss2-d1", server: "oss2", spec: "nvme-x"}
  - {name: "oss2-d2", server: "oss2", spec: "nvme-x"}
  - {name: "bench-d1", server: "bench", spec: "nvme-x"}
device_groups:
  - {name: "oss1-g", server: "oss1", spec: "2x-nvme-x", members: ["oss1-d1", "oss1-d2"]}
  - {name: "oss2-g", server: "oss2", spec: "2x-nvme-x", members: ["oss2-d1", "oss2-d2"]}
local_fs:
  - {name: "oss1-pool", server: "oss1", spec: "zfs-2x-nvme-x", type: "zfs", groups: ["oss1-g"]}
  - {name: "oss2-pool", server: "oss2", spec: "zfs-2x-nvme-x", type: "zfs", groups: ["oss2-g"]}
osts:
  - {name: "vfs-OST0000", server: "oss1", spec: "ost-zfs", index: 0, built_on: "oss1-pool"}
  - {name: "vfs-OST0001", server: "oss2", spec: "ost-zfs", index: 1, built_on: "oss2-pool"}
network:
  - {name: "oss1-ib", server: "oss1", spec: "hdr"}
  - {name: "oss2-ib", server: "oss2", spec: "hdr"}
  - {name: "bench-ib", server: "bench", spec: "hdr"}
lnet:
  - {name: "oss1-lnet", server: "oss1", spec: "o2ib-hdr", built_on: "oss1-ib"}
  - {name: "oss2-lnet", server: "oss2", spec: "o2ib-hdr", built_on: "oss2-ib"}
"""


def xdd7(operation: str, rates: list[str], *, combined: str | None = None) -> str:
    lines = [
        f"[root@oss1 ~]# xdd -op {operation} -targets {len(rates)} -seek sequential",
        "IOIOIOIOIOIOIOIOIOIOI XDD version xdd 7.0.0.rc-ramses based on 7.0.0.rc-ramses IOIOIOIOIOIOIOIOIOIOI",
        "\t\tSeek pattern, sequential",
        "What               Pass  Target   Queue     Bytes_Xfered         Ops     Elapsed  Bandwidth       IOPS"
        "   Latency   Pct_CPU  Op_Type    Xfer_Size",
        "    UNITS>>      Number  Number  Number            Bytes        #ops     seconds   MBytes/s      Ops/s"
        "  millisec   percent     text        bytes",
    ]
    for target, rate in enumerate(rates):
        lines.append(
            f" TARGET_PASS          1  {target}      32     1000000000      1000      60.000   {rate}"
            f"   1000.000     0.500     5.000     {operation}      1048576"
        )
        lines.append(
            f" TARGET_AVERAGE       1  {target}      32     1000000000      1000      60.000   {rate}"
            f"   1000.000     0.500     5.000     {operation}      1048576"
        )
    if combined:
        lines.append(
            f" COMBINED             1  {len(rates)}      32     1000000000      1000      60.000"
            f"   {combined}   1000.000     0.500     5.000     {operation}      1048576"
        )
    return "\n".join(lines) + "\n"


def xdd65(operation: str, rate: str) -> str:
    header = (
        "                     T  Q       Bytes      Ops    Time      Rate      IOPS   Latency     %CPU  OP_Type"
        "    ReqSize"
    )
    row = f"    0 32    9693982720   2366695    60.007   {rate}     1000.00    0.0000     1.70   {operation}   1048576 "
    return (
        "IOIOIOIOIOIOIOIOIOIOI XDD version 6.5.013007.0001 IOIOIOIOIOIOIOIOIOIOIOI\r\n"
        "\t\tSeek pattern, sequential\n" + header + "\n"
        f"\rTARGET   Average {row}\n\r         Combined    1 32    9693982720   2366695    60.010   {rate}"
        f"     1000.00    0.0000     1.70   {operation}     1048576 \nEnding time for this run\n"
    )


def fio(rw: str, jobs: list[dict], *, normal_text: bool = False) -> str:
    document = json.dumps(
        {
            "fio version": "fio-3.35",
            "global options": {"rw": rw},
            "jobs": [
                {
                    "jobname": f"job{index}",
                    "read": {"io_bytes": 0, "bw_bytes": 0, "iops": 0.0},
                    "write": {"io_bytes": 0, "bw_bytes": 0, "iops": 0.0},
                    **job,
                }
                for index, job in enumerate(jobs)
            ],
        },
        indent=2,
    )
    if normal_text:
        return (
            f"job0: (g=0): rw={rw}, bs=(R) 1024KiB-1024KiB\nfio-3.35\nStarting 2 processes\n{document}\n\n"
            f"job0: (groupid=0, jobs=1): err= 0: pid=1\nRun status group 0 (all jobs):\n"
        )
    return document + "\n"


def iozone3471(writers_kb: str, readers_kb: str) -> str:
    return (
        "\tIozone: Performance Test of File I/O\n\t        Version $Revision: 3.471 $\n"
        "\tOutput is in kBytes/sec\n"
        f"\tChildren see throughput for  8 initial writers \t= {writers_kb} kB/sec\n"
        f"\tParent sees throughput for  8 initial writers \t= 1.00 kB/sec\n"
        f"\tChildren see throughput for  8 readers \t\t= {readers_kb} kB/sec\n"
        f"\tChildren see throughput for  8 re-readers \t\t= 99999999.00 kB/sec\n"
        '"Throughput report Y-axis is type of test X-axis is number of processes"\n'
        f'"  Initial write "  {writers_kb} \n\niozone test complete.\n'
    )


def perftest(unit: str, average: str, *, message_rate: bool) -> str:
    header = f" #bytes     #iterations    BW peak[{unit}]    BW average[{unit}]"
    row = f" 1048576    10000            {average}              {average}"
    if message_rate:
        header, row = header + "   MsgRate[Mpps]", row + "  \t\t   0.005635"
    return (
        "Conflicting CPU frequency values detected: 2601.000000 != 1200.000000\n"
        "                    RDMA_Write BW Test\n" + header + "\n" + row + "\n" + "-" * 60 + "\n"
    )


def lst_stat(server_r_mib: list[str]) -> str:
    blocks = []
    for value in server_r_mib:
        blocks += [
            "[LNet Bandwidth of clients]",
            "[R] Avg: 0.70     MiB/s Min: 0.70     MiB/s Max: 0.70     MiB/s",
            f"[W] Avg: {value}  MiB/s Min: {value}  MiB/s Max: {value}  MiB/s",
            "[LNet Rates of servers]",
            "[R] Avg: 10282    RPC/s Min: 10282    RPC/s Max: 10282    RPC/s",
            "[LNet Bandwidth of servers]",
            f"[R] Avg: {value}  MiB/s Min: {value}  MiB/s Max: {value}  MiB/s",
            "[W] Avg: 0.72     MiB/s Min: 0.72     MiB/s Max: 0.72     MiB/s",
        ]
    return "SESSION: rw FEATURES: 1 TIMEOUT: 300 FORCE: No\n" + "\n".join(blocks) + "\n"


LOGS = {
    # path: (component, layer, operation, tool, content)
    "logs/d/oss1-d1-read.txt": ("oss1-d1", "device", "read", "xdd", xdd7("read", ["3100.000"])),
    "logs/d/oss1-d1-write.log": (
        "oss1-d1",
        "device",
        "write",
        "fio",
        fio(
            "write",
            [
                {"write": {"io_bytes": 5, "bw_bytes": 1000000000, "iops": 953.7}},
                {"write": {"io_bytes": 5, "bw_bytes": 1050000000, "iops": 1001.4}},
            ],
            normal_text=True,
        ),
    ),
    "logs/d/oss1-d1-randread.json": (
        "oss1-d1",
        "device",
        "randread",
        "fio",
        fio("randread", [{"read": {"io_bytes": 5, "bw_bytes": 1966080000, "iops": 480000.0}}]),
    ),
    "logs/d/oss1-d1-randwrite.json": (
        "oss1-d1",
        "device",
        "randwrite",
        "fio",
        fio("randwrite", [{"write": {"io_bytes": 5, "bw_bytes": 368640000, "iops": 90000.0}}]),
    ),
    "logs/d/oss1-d2-read.json": (
        "oss1-d2",
        "device",
        "read",
        "fio",
        fio("read", [{"read": {"io_bytes": 5, "bw_bytes": 2900000000, "iops": 2765.7}}]),
    ),
    "logs/d/oss2-d1-read.txt": ("oss2-d1", "device", "read", "xdd", xdd65("read", "3000.000")),
    "logs/d/oss2-d2-read.txt": ("oss2-d2", "device", "read", "xdd", xdd65("read", "1500.000")),
    "logs/d/bench-d1-read.json": (
        "bench-d1",
        "device",
        "read",
        "fio",
        fio("read", [{"read": {"io_bytes": 5, "bw_bytes": 3050000000, "iops": 2908.7}}]),
    ),
    "logs/g/oss1-g-read.txt": (
        "oss1-g",
        "device_group",
        "read",
        "xdd",
        xdd7("read", ["2900.000", "2950.000"], combined="5800.000"),
    ),
    "logs/fs/oss1-pool.txt": ("oss1-pool", "local_fs", "write", "iozone", iozone3471("3000000.00", "5500000.00")),
    "logs/net/oss1-from-client.txt": (
        "oss1-ib",
        "network",
        "write",
        "ib_write_bw",
        perftest("Gb/sec", "190.00", message_rate=True),
    ),
    "logs/net/oss1-to-client.txt": (
        "oss1-ib",
        "network",
        "read",
        "ib_write_bw",
        perftest("MB/sec", "22000.00", message_rate=False),
    ),
    "logs/net/bench-to-client.txt": (
        "bench-ib",
        "network",
        "read",
        "ib_write_bw",
        perftest("MB/sec", "21000.00", message_rate=False),
    ),
    "logs/lnet/oss1-brw-write.txt": ("oss1-lnet", "lnet", "write", "lnet_selftest", lst_stat(["20000.00", "21000.00"])),
}
EXTRA_ROWS = [("logs/fs/oss1-pool.txt", "oss1-pool", "local_fs", "read", "iozone")]
IOR_LOGS = {"logs/ior/ssf-330.txt": "ior330-ssf-27x4m-mpiio.txt", "logs/ior/fpp-301.txt": "ior-fpp-27x1m-D60.txt"}


@pytest.fixture
def exported(tmp_path) -> dict:
    root = tmp_path / "variant"
    (root).mkdir()
    (root / "stack.yaml").write_text(STACK_YAML)
    rows = ["log,component,layer,operation,tool"]
    for path, (component, layer, operation, tool, content) in LOGS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
        rows.append(f"{path},{component},{layer},{operation},{tool}")
    rows += [",".join(row) for row in EXTRA_ROWS]
    for path, sample in IOR_LOGS.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TOOLS_DATA / "ior" / sample, root / path)
        rows += [f"{path},vfs,file_system,write,ior", f"{path},vfs,file_system,read,ior"]
    (root / "manifest.csv").write_text("\n".join(rows) + "\n")
    call_command("ingest", "--kind", "stack", str(root), "--name", "variant")
    output = tmp_path / "variant.json"
    call_command("export_stack", "variant", "-o", str(output))
    return json.loads(output.read_text())


def row(exported, component, operation):
    return next(r for r in exported["layers"] if (r["component"], r["operation"]) == (component, operation))


def test_devices_are_held_to_their_spec_and_an_unknown_figure_stays_unknown(exported):
    assert row(exported, "oss1-d1", "read")["measured"] == pytest.approx(3100.0)  # xdd 7, TARGET_AVERAGE only
    assert row(exported, "oss1-d1", "write")["measured"] == pytest.approx(2050.0)  # fio numjobs 2: 1000 + 1050
    assert row(exported, "oss1-d1", "write")["efficiency"] == pytest.approx(2050 / 2000)
    assert row(exported, "oss1-d1", "randread")["efficiency"] == pytest.approx(480000 / 500000)
    randwrite = row(exported, "oss1-d1", "randwrite")
    assert (randwrite["unit"], randwrite["expected"], randwrite["efficiency"]) == ("IOPS", None, None)


def test_a_missing_log_falls_back_to_the_spec_below(exported):
    # oss1-g read: both drives measured, 3100 + 2900
    assert row(exported, "oss1-g", "read")["expected"] == pytest.approx(6000.0)
    # oss1-pool write: oss1-g has no write log, so its own expected: oss1-d1 measured 2050 + oss1-d2's spec 2000
    pool_write = row(exported, "oss1-pool", "write")
    assert pool_write["measured"] == pytest.approx(3000000.00 * 1024 / 1e6)  # IOzone 3.471, kB = 1024 bytes
    assert pool_write["expected"] == pytest.approx(4050.0)
    assert row(exported, "oss1-pool", "read")["expected"] == pytest.approx(5800.0)  # oss1-g's measured read
    # LNet write expected = the measured network write of its server: 190 Gb/s x 125
    lnet = row(exported, "oss1-lnet", "write")
    assert lnet["expected"] == pytest.approx(23750.0)
    assert lnet["measured"] == pytest.approx((20000 + 21000) / 2 * MIB)


def test_the_ceiling_uses_each_servers_highest_measured_layer_and_falls_back_when_none_is(exported):
    # storage read: oss1 counts with its pool (5500000 kB/s = 5632 MB/s); oss2 has nothing measured above
    # its drives, so its OST's expected: 3000 + 1500 measured. Write: 3072 + oss2's specs 2000 + 2000.
    storage = {"read": 5632.0 + 4500.0, "write": 3072.0 + 4000.0}
    # network read: oss1's link (22000 MB/sec x 1.048576), oss2's link figure; write: oss1's LNet, oss2's link
    network = {"read": 22000 * MIB + 25000, "write": 20500 * MIB + 25000}
    for operation in ("read", "write"):
        assert exported["ceiling"][operation] == pytest.approx(min(storage[operation], network[operation]))
    assert exported["ceiling"]["limited_by"] == {"read": "storage", "write": "storage"}


def test_file_system_runs_are_judged_against_the_ceiling(exported):
    flags = {(r["source"], r["operation"]): r for r in exported["file_system"]}
    ssf_write = flags[("logs/ior/ssf-330.txt", "write")]
    assert ssf_write["measured"] == pytest.approx(6945.47 * MIB)
    assert ssf_write["efficiency"] == pytest.approx(6945.47 * MIB / 7072.0)
    assert not ssf_write["over_ceiling"]
    assert not flags[("logs/ior/ssf-330.txt", "read")]["over_ceiling"]  # 9864 MB/s against 10132
    assert flags[("logs/ior/fpp-301.txt", "write")]["over_ceiling"]  # 12200 MB/s > 1.10 x 7072
    assert flags[("logs/ior/fpp-301.txt", "read")]["over_ceiling"]  # 12100 MB/s > 1.10 x 10132


def test_the_slow_drive_is_an_outlier_among_all_peers_including_the_test_node(exported):
    # device / read / nvme-x: 3100, 2900, 3000, 1500, 3050 -> median 3000; 1500 < 0.8 x 3000
    assert exported["outliers"] == [
        {"layer": "device", "component": "oss2-d2", "operation": "read", "measured": 1500.0, "peer_median": 3000.0}
    ]
