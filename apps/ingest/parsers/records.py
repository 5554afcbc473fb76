"""Plain-Python records that parsers hand to the ingest service.

Parsers never import Django: they turn files into these records (or raise
``ParseError``), and ``apps.ingest.services`` turns records into rows. Keeping the
boundary a set of dataclasses lets the parsers be tested and fuzzed without a
database, and lets the storage layer change without touching the grammars.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


class ParseError(Exception):
    """A file could not be understood. Always names the file and, when known, the line."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass
class Score:
    """A bandwidth / metadata / total triple. bw in GiB/s, md in kIOPS."""

    bw: float | None = None
    md: float | None = None
    total: float | None = None


@dataclass
class PhaseRecord:
    """One benchmark phase of an IO500 run, as measured."""

    name: str  # normalised: ior_easy_write, mdtest_hard_stat, find, ior_rnd4k_write, timestamp ...
    value: float | None  # GiB/s for IOR phases, kIOPS for metadata phases and find
    unit: str  # "GiB/s" or "kIOPS" (the true unit, whatever the file's label says)
    seconds: float | None = None
    printed_value: str = ""  # the number exactly as printed
    printed_unit: str = ""  # the label exactly as printed (may say GB/s)
    score_group: str = "none"  # "bw", "md", "bw_ext", "md_ext" or "none"
    command: str = ""  # the exact IOR/mdtest/find command line, when known
    invalid: bool = False  # marked invalid by the benchmark itself
    source_file: str = ""  # path relative to the ingested root
    source_line: int | None = None
    details: dict = field(default_factory=dict)  # tool version, tasks, nodes, stonewall figures...


@dataclass
class IO500RunRecord:
    """One IO500 result set (one benchmark execution) with everything parsed from it."""

    source_path: str  # the result directory, relative to the ingested root
    era: str  # "script" (2017-2020 io500.sh) or "capp" (C application)
    generation: str = ""  # finer grammar/rule family, e.g. "bash-sqrt", "bash-product", "sc17", "capp-g3"
    benchmark_version: str = ""
    run_timestamp: datetime | None = None
    client_nodes: int | None = None
    client_procs: int | None = None
    procs_per_node: int | None = None
    phases: list[PhaseRecord] = field(default_factory=list)
    reported_score: Score = field(default_factory=Score)
    reported_extended: Score | None = None
    computed_score: Score = field(default_factory=Score)
    computed_extended: Score | None = None
    score_formula: str = "sqrt"  # "sqrt" or "product" (early scripts printed bw x md as TOTAL)
    verification: str = "not_verifiable"  # "verified", "hash_mismatch" or "not_verifiable"
    config_hash_status: str = "not_verifiable"
    valid: bool = True
    invalid_reasons: list[str] = field(default_factory=list)
    config: dict = field(default_factory=dict)  # structured: ini sections, io500_* variables
    info: dict = field(default_factory=dict)  # io500_info_* / system-information.txt fields
    raw_files: dict[str, str] = field(default_factory=dict)  # name -> verbatim text of config/scripts
    content_hash: str = ""  # sha256 over the result files: the run's identity
    metadata: dict = field(default_factory=dict)  # institution, system, filesystem, year, submission...
    facts: dict = field(default_factory=dict)  # extra evidence for anomaly rules (see apps.results.anomalies)
    warnings: list[str] = field(default_factory=list)
