"""Synthetic DNE scaling campaigns with known knees, for held-out checks of saturation detection.

Laid out and printed like ``shared/dne-campaign-sample`` (OLCF's job-script layout
``dne2_<MDTs>_mds/<unique|shared>_<K>k_<threads>/mdtest.out``, a manifest and a ``truth.json``),
but with knees, MDT counts, client counts and striping modes of the caller's choosing, and in
either the mdtest 1.8.3 format of the sample or the IOR-bundled 4.1 format (rate and time tables,
rows without a colon).

The rate model makes the knee unambiguous under the iteration noise: up to the knee each step in
MDT count gains at least ~20 % in peak rate, after it at most ~4 % (or the rate collapses, as
directory operations do with inherited striping), and iterations carry ``noise`` (1.5 %) of
Gaussian jitter. The truth written is the knee the model was built with, never a re-detection.
"""

from __future__ import annotations

import csv
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

OPERATION_LABELS = {
    "directory_creation": "Directory creation",
    "directory_stat": "Directory stat",
    "directory_removal": "Directory removal",
    "file_creation": "File creation",
    "file_stat": "File stat",
    "file_removal": "File removal",
}
BASE_RATES = {
    "directory_creation": 11000.0,
    "directory_stat": 120000.0,
    "directory_removal": 30000.0,
    "file_creation": 35000.0,
    "file_stat": 26000.0,
    "file_removal": 16000.0,
}


@dataclass
class CampaignSpec:
    """What to generate. ``knees`` maps (operation, files_per_dir, striping) to the saturation MDT
    count; a knee equal to the smallest MDT count with ``collapse`` set models a rate that falls."""

    knees: dict[tuple[str, int, str], int]
    mdt_counts: tuple[int, ...] = (1, 2, 4, 8, 16)
    threads: tuple[int, ...] = (1, 20, 40, 80, 160, 240, 320, 400)
    iterations: int = 5
    noise: float = 0.015
    seed: int = 7
    mdtest_format: str = "1.8"
    collapse: set[tuple[str, int, str]] = field(default_factory=set)

    @property
    def groups(self) -> list[tuple[int, str]]:
        return sorted({(files, striping) for (_, files, striping) in self.knees})


def peak_rate(spec: CampaignSpec, key: tuple[str, int, str], mdt_count: int) -> float:
    operation, _, _ = key
    knee_count = spec.knees[key]
    base = BASE_RATES[operation]
    if key in spec.collapse:
        return base * (1 - 0.12 * math.log2(mdt_count / spec.mdt_counts[0]))
    if mdt_count <= knee_count:
        return base * (mdt_count / spec.mdt_counts[0]) ** 0.9
    return base * (knee_count / spec.mdt_counts[0]) ** 0.9 * (1 + 0.03 * math.log2(mdt_count / knee_count))


def client_rate(spec: CampaignSpec, key: tuple[str, int, str], mdt_count: int, threads: int) -> float:
    """Rates grow with client threads until the clients saturate the MDTs, then stay flat."""
    saturating_threads = min(max(spec.threads) / 2, 20.0 * min(mdt_count, spec.knees[key]))
    return peak_rate(spec, key, mdt_count) * min(1.0, threads / saturating_threads) ** 0.8


def write_campaign(root: Path, spec: CampaignSpec) -> dict:
    """Write logs, ``manifest.csv`` and ``truth.json`` under ``root``; return the truth."""
    rng = random.Random(spec.seed)
    manifest_rows = []
    for mdt_count in spec.mdt_counts:
        for files_per_dir, striping in spec.groups:
            layout = "unique" if striping == "non-inherited" else "shared"
            for threads in spec.threads:
                relative = f"dne2_{mdt_count}_mds/{layout}_{files_per_dir // 1000}k_{threads}/mdtest.out"
                nodes = min(20, (threads + 19) // 20)
                measurements = {
                    operation: _iterations(
                        rng, spec, client_rate(spec, (operation, files_per_dir, striping), mdt_count, threads)
                    )
                    for operation in OPERATION_LABELS
                    if (operation, files_per_dir, striping) in spec.knees
                }
                text = render_log(spec, relative, mdt_count, threads, nodes, files_per_dir, layout, measurements)
                path = root / relative
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                manifest_rows.append([relative, mdt_count, nodes, threads, files_per_dir, striping])
    with open(root / "manifest.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["log", "mdt_count", "client_nodes", "tasks", "files_per_dir", "striping"])
        writer.writerows(manifest_rows)
    truth = {
        "threshold": 0.1,
        "mdt_counts": list(spec.mdt_counts),
        "knees": [
            {
                "operation": OPERATION_LABELS[operation],
                "files_per_dir": files_per_dir,
                "striping": striping,
                "saturation_mdt_count": knee_count,
            }
            for (operation, files_per_dir, striping), knee_count in sorted(spec.knees.items())
        ],
    }
    (root / "truth.json").write_text(json.dumps(truth, indent=1))
    return truth


def _iterations(rng: random.Random, spec: CampaignSpec, rate: float) -> list[float]:
    return [rate * (1 + rng.gauss(0, spec.noise)) for _ in range(spec.iterations)]


def _statistics(values: list[float], population: bool) -> tuple[float, float, float, float]:
    mean = sum(values) / len(values)
    divisor = len(values) if population else max(1, len(values) - 1)
    stddev = math.sqrt(sum((value - mean) ** 2 for value in values) / divisor)
    return max(values), min(values), mean, stddev


def render_log(
    spec: CampaignSpec,
    relative: str,
    mdt_count: int,
    threads: int,
    nodes: int,
    files_per_dir: int,
    layout: str,
    measurements: dict[str, list[float]],
) -> str:
    items_per_task = files_per_dir // threads
    test_dir = f"/lustre/atlas/scratch/user/dne2_{mdt_count}_mds_md_test/{relative.split('/')[1]}"
    unique = ["-u"] if layout == "unique" else []
    if spec.mdtest_format == "1.8":
        return _render_18(spec, threads, nodes, items_per_task, test_dir, unique, measurements)
    return _render_41(spec, threads, nodes, items_per_task, test_dir, unique, measurements)


def _render_18(spec, threads, nodes, items_per_task, test_dir, unique, measurements) -> str:
    arguments = " ".join(["-I", str(items_per_task), "-i", str(spec.iterations), *unique, "-d", test_dir])
    lines = [
        "-- started at 10/21/2014 14:22:23 --",
        "",
        f"mdtest-1.8.3 was launched with {threads} total task(s) on {nodes} nodes",
        f"Command line used: /lustre/atlas/scratch/user/mdtest {arguments}",
        "Path: /lustre/atlas/scratch/user",
        "FS: 797.1 TiB   Used FS: 0.0%   Inodes: 398.7 Mi   Used Inodes: 0.0%",
        "",
        f"{threads} tasks, {items_per_task * threads} files/directories",
        "",
        "   Operation               Duration              Rate",
        "   ---------               --------              ----",
    ]
    items = items_per_task * threads
    for iteration in range(spec.iterations):
        lines.append(f" * iteration {iteration + 1} *")
        for operation, values in measurements.items():
            label = f"{OPERATION_LABELS[operation]:<18}:"
            lines.append(f"   {label} {items / values[iteration]:10.3f} sec, {values[iteration]:10.3f} ops/sec")
        lines.append("")
    lines += [
        f"SUMMARY: (of {spec.iterations} iterations)",
        "   Operation                  Max        Min       Mean    Std Dev",
        "   ---------                  ---        ---       ----    -------",
    ]
    for operation, values in measurements.items():
        label = f"{OPERATION_LABELS[operation]:<18}:"
        lines.append(f"   {label} " + " ".join(f"{number:10.3f}" for number in _statistics(values, True)))
    lines += ["", "-- finished at 10/21/2014 14:22:23 --", ""]
    return "\n".join(lines)


def _render_41(spec, threads, nodes, items_per_task, test_dir, unique, measurements) -> str:
    arguments = " ".join(
        f"'{argument}'"
        for argument in ["-I", str(items_per_task), "-i", str(spec.iterations), *unique, "-P", "-d", test_dir]
    )
    items = items_per_task * threads
    lines = [
        "-- started at 05/03/2024 09:32:15 --",
        "",
        f"mdtest-4.1.0+dev was launched with {threads} total task(s) on {nodes} node(s)",
        f"Command line used: ./mdtest {arguments}",
        "Nodemap: " + "1" * min(threads, 64),
        "Path                : /lustre/atlas/scratch/user",
        "FS                  : 797.1 TiB   Used FS: 0.0%   Inodes: 398.7 Mi   Used Inodes: 0.0%",
        f"{threads} tasks, {items} files/directories",
    ]
    for kind, header in (("rate", "SUMMARY rate (in ops/sec)"), ("time", "SUMMARY time (in ms/op)")):
        lines += [
            "",
            f"{header}: (of {spec.iterations} iterations)",
            "   Operation                     Max            Min           Mean        Std Dev",
            "   ---------                     ---            ---           ----        -------",
        ]
        for operation, values in measurements.items():
            series = values if kind == "rate" else [items / value for value in values]
            numbers = _statistics(series, False)
            lines.append(
                f"   {OPERATION_LABELS[operation]:<18}     " + " ".join(f"{number:14.3f}" for number in numbers)
            )
        for tree in ("Tree creation", "Tree removal"):
            lines.append(f"   {tree:<22} " + " ".join(f"{number:14.3f}" for number in (0, 0, 0, 0)))
    lines += ["-- finished at 05/03/2024 09:38:29 --", ""]
    return "\n".join(lines)
