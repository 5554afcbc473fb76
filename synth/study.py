"""Synthetic IOR parameter studies with known effects, written as real IOR-3.3 text output.

Used as the held-out check of the study analysis: other file systems, APIs, node counts, repetition
counts (3-5), noise levels and effect sizes than ``../shared/ior-study-sample``. Each study crosses
file systems x APIs x hint configs x node counts; within a (file system, API, nodes) cell the configs
fall into one to three levels whose true means differ by ``effect`` (>= 2x between levels, as the
sample's ``different`` pairs) or are equal. Repetitions add log-normal noise. ``truth`` lists the
pairs of configs whose true means differ (``different``) or are equal (``same``), per operation, and
``ratios`` each pair's true ratio.

**Jobs.** With ``jobs`` > 1 each configuration is run as that many jobs (one log each,
``<config>-<nodes>n-job<j>.txt``), and each job multiplies all its iterations, write and read alike,
by its own log-normal factor (``job_noise``): the node placement, striping and cache state a job's
iterations share. That is the noise the shared sample lacks and the study analysis must not mistake
for an effect. ``study_points`` gives the same study as in-memory points (the fields ingest stores),
for measuring the verdicts over thousands of pairs without the database (``python -m bench study_verdicts``).
"""

from __future__ import annotations

import csv
import math
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path

API_FLAGS = {"POSIX": "POSIX", "MPIIO": "MPIIO", "HDF5": "HDF5", "PNETCDF": "NCMPI"}


@dataclass
class StudySpec:
    seed: int
    filesystems: dict[str, float]  # name -> noise (log-normal sigma)
    apis: list[str]
    nodes: list[int]
    configs: list[str]
    repetitions: int
    effect_range: tuple[float, float] = (2.0, 4.0)
    tasks_per_node: int = 16
    jobs: int = 1
    job_noise: float = 0.0  # log-normal sigma of a job's factor
    levels: list[float] | None = None  # the configs' true levels in every cell (default: drawn per cell)
    truth: dict[str, list] = field(default_factory=lambda: {"different": [], "same": [], "cells": [], "ratios": []})


@dataclass
class GeneratedJob:
    log: str
    filesystem: str
    api: str
    nodes: int
    config: str
    values: dict[str, list[float]]  # operation -> per-iteration MiB/s


@dataclass
class GeneratedPoint:
    """A study point as ingest stores it (the attributes the analysis reads)."""

    axes: dict
    operation: str
    mean: str
    iterations: list[str]
    source: str
    log_hash: str


def generate_jobs(spec: StudySpec) -> list[GeneratedJob]:
    """Every job of the study with its iteration values; fills ``spec.truth`` (pairs and true ratios)."""
    rng = random.Random(spec.seed)
    jobs = []
    for filesystem, noise in spec.filesystems.items():
        for api in spec.apis:
            for nodes in spec.nodes:
                base = rng.uniform(500, 20000) * nodes**0.5
                levels = spec.levels or _levels(rng, spec)
                for config, level in zip(spec.configs, levels, strict=True):
                    true_mean = base * level
                    for job in range(spec.jobs):
                        suffix = f"-job{job}" if spec.jobs > 1 else ""
                        job_factor = math.exp(rng.gauss(0, spec.job_noise)) if spec.job_noise else 1.0
                        values = {
                            op: [
                                true_mean * factor * job_factor * math.exp(rng.gauss(0, noise))
                                for _ in range(spec.repetitions)
                            ]
                            for op, factor in (("write", 1.0), ("read", 1.3))
                        }
                        jobs.append(
                            GeneratedJob(
                                f"{filesystem}/{api}/{config}-{nodes}n{suffix}.txt",
                                filesystem,
                                api,
                                nodes,
                                config,
                                values,
                            )
                        )
                for op in ("write", "read"):
                    for i, a in enumerate(spec.configs):
                        for j in range(i + 1, len(spec.configs)):
                            pair = [filesystem, api, nodes, op, a, spec.configs[j]]
                            spec.truth["same" if levels[i] == levels[j] else "different"].append(pair)
                            spec.truth["ratios"].append([*pair, levels[i] / levels[j]])
    return jobs


def write_study(spec: StudySpec, root: Path) -> dict[str, list]:
    """Write the logs and ``manifest.csv`` under ``root``; return the truth."""
    rows = []
    for job in generate_jobs(spec):
        path = root / job.log
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_ior_text(spec, job.api, job.nodes, job.config, job.values))
        rows.append(
            {"log": job.log, "filesystem": job.filesystem, "config": job.config, "label": f"{job.config} settings"}
        )
        for op, series in job.values.items():
            printed = [f"{v:.2f}" for v in series]
            spec.truth["cells"].append({"log": job.log, "operation": op, "iterations": printed})
    with (root / "manifest.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["log", "filesystem", "config", "label"])
        writer.writeheader()
        writer.writerows(rows)
    return spec.truth


def study_points(spec: StudySpec) -> list[GeneratedPoint]:
    """The study's points in memory, with the printed values and the axes ingest would store."""
    points = []
    for job in generate_jobs(spec):
        axes = {
            "filesystem": job.filesystem,
            "config": job.config,
            "label": f"{job.config} settings",
            "api": job.api,
            "nodes": job.nodes,
            "tasks": job.nodes * spec.tasks_per_node,
        }
        for op, series in job.values.items():
            printed = [float(f"{v:.2f}") for v in series]
            points.append(
                GeneratedPoint(
                    axes, op, f"{statistics.fmean(printed):.2f}", [f"{v:.2f}" for v in printed], job.log, job.log
                )
            )
    return points


def _levels(rng: random.Random, spec: StudySpec) -> list[float]:
    """One to three performance levels, assigned to consecutive configs, >= effect_range[0] apart."""
    count = rng.choice([1, 2, 2, 3])
    levels, level = [], 1.0
    for _ in range(count):
        levels.append(level)
        level *= rng.uniform(*spec.effect_range)
    sizes = [len(spec.configs) // count] * count
    sizes[-1] += len(spec.configs) - sum(sizes)
    assigned = [lv for lv, size in zip(levels, sizes, strict=True) for _ in range(size)]
    return assigned


def _ior_text(spec: StudySpec, api: str, nodes: int, config: str, values: dict[str, list[float]]) -> str:
    tasks = nodes * spec.tasks_per_node
    reps = spec.repetitions
    lines = [
        "IOR-3.3.0: MPI Coordinated Test of Parallel I/O",
        "Began               : Tue Mar 03 10:00:00 2020",
        f"Command line        : ior -a {API_FLAGS[api]} -w -r -i {reps} -t 4m -b 256m -C -Q 1 "
        f"-U /home/bench/hints/{config} -o /mnt/fs/ior/testfile",
        "Machine             : Linux cn001",
        "TestID              : 0",
        "StartTime           : Tue Mar 03 10:00:00 2020",
        "Path                : /mnt/fs/ior",
        "FS                  : 500.0 TiB   Used FS: 12.0%   Inodes: 100.0 Mi   Used Inodes: 1.0%",
        "",
        "Options: ",
        f"api                 : {API_FLAGS[api]}",
        "apiVersion          : ",
        "test filename       : /mnt/fs/ior/testfile",
        "access              : single-shared-file",
        "type                : independent",
        "segments            : 1",
        "ordering in a file  : sequential",
        "ordering inter file : constant task offset",
        "task offset         : 1",
        f"nodes               : {nodes}",
        f"tasks               : {tasks}",
        f"clients per node    : {spec.tasks_per_node}",
        f"repetitions         : {reps}",
        "xfersize            : 4 MiB",
        "blocksize           : 256 MiB",
        f"aggregate filesize  : {tasks * 256 / 1024:.2f} GiB",
        "",
        "Results: ",
        "",
        "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   "
        "total(s)   iter",
        "------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   "
        "--------   ----",
    ]
    mib = tasks * 256
    for iteration in range(reps):
        for op in ("write", "read"):
            bw = values[op][iteration]
            total = mib / bw
            lines.append(
                f"{op:<10}{bw:<11.2f}{bw / 4:<11.2f}{0.01:<12.4f}{262144:<11}{4096.00:<11.2f}"
                f"{0.01:<11.4f}{total:<11.2f}{0.001:<11.4f}{total:<11.2f}{iteration}"
            )
    summary = []
    for op in ("write", "read"):
        printed = [float(f"{v:.2f}") for v in values[op]]
        mean, sd = statistics.fmean(printed), statistics.pstdev(printed)
        lines.append(f"Max {op.capitalize()}: {max(printed):.2f} MiB/sec ({max(printed) * 1.048576:.2f} MB/sec)")
        summary.append(
            f"{op:<10}{max(printed):>11.2f}{min(printed):>11.2f}{mean:>11.2f}{sd:>11.2f}"
            f"{max(printed) / 4:>11.2f}{min(printed) / 4:>11.2f}{mean / 4:>11.2f}{sd / 4:>11.2f}"
            f"{mib / mean:>11.5f}         NA            NA     0 {tasks:>6} {spec.tasks_per_node:>3} {reps:>4}   0"
            f"     1        1         0    0      1  268435456  4194304 {mib:>9.1f} {API_FLAGS[api]:>5}      0"
        )
    lines += [
        "",
        "Summary of all tests:",
        "Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev"
        "    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed"
        " segcnt   blksiz    xsize aggs(MiB)   API RefNum",
        *summary,
        "Finished            : Tue Mar 03 10:09:00 2020",
        "",
    ]
    return "\n".join(lines)
