"""The plain-Python records the IO500 reader hands to its pipeline: a run, its phases, its evidence.

The grammar (``grammar/``) never imports Django: it turns a result directory into an ``IO500RunRecord``
(or raises ``ParseError``), and ``pipeline.py`` turns records into rows. Keeping the boundary a set of
dataclasses lets the reader be tested and fuzzed without a database, and lets the storage layer change
without touching the grammars.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any

from apps.results.judgements.anomalies.facts import plain_data
from apps.results.judgements.scoring import Score

if TYPE_CHECKING:
    from apps.results.judgements.anomalies.facts import TaskReordering


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
    rank_shift: int | None = None
    """mdtest phases: the ``-N`` rank shift, extracted once by ``tools.mdtest.grammar`` (its own "Shifting
    ranks by" line, else ``rank_shift_option`` of the command); 0 = none, None = unknown."""
    task_reordering: TaskReordering | None = None
    """IOR phases: read-back task reordering (``-C``/``-Z``/``-Q``), to be extracted by ``tools.ior.grammar``."""
    details: dict = field(default_factory=dict)  # tool version, tasks, nodes, stonewall figures...


@dataclass
class RunEvidence:
    """What the IO500 record builders found beyond the numbers: evidence for the anomaly rules.

    Every field is None when there is nothing to say. File references inside are ``source_file``
    (relative to the ingested root) and ``source_line``. ``apps.ingest.tools.io500.anomaly_facts`` turns this
    into the ``RunFacts`` the rules read; the record itself is not stored.
    """

    reported_score_printed: dict[str, Any] | None = None
    """{bw, md, total, source_file, source_line}: the reported score exactly as printed."""
    write_phases: dict[str, dict[str, Any]] | None = None
    """{phase: {seconds, printed_seconds, source_file, source_line}} for every write phase; the line
    is the ``t_delta`` line of result.txt (C) or the summary's result line (bash, SC17)."""
    rules: str | None = None
    """The rules mode of the run: "regular" or "scc" (student cluster competition)."""
    scc: bool | None = None
    """Whether the run used the scc rules (30 s minimum write time)."""
    min_write_seconds: int | None = None
    """The minimum write time of the rules mode: 300, or 30 under scc rules."""
    stonewall_seconds: float | None = None
    """The configured stonewall timer."""
    mdtest_rank_shift: dict[str, bool | None] | None = None
    """{phase: True/False/None} for the mdtest stat/read/delete phases: ran with ``-N`` (see
    ``PhaseRecord.rank_shift``), without it, or unknown."""
    tool_client_nodes: dict[str, int] | None = None
    """{phase: node count} as the raw IOR/mdtest outputs report them."""
    tool_client_procs: dict[str, int] | None = None
    """{phase: task count} as the raw IOR/mdtest outputs report them."""
    client_nodes_source: str | None = None
    """Where ``IO500RunRecord.client_nodes`` came from."""
    declared_client_nodes: dict[str, Any] | None = None
    """{value, source}: the node count the submitter declared in ``io500_info_*`` (may differ)."""
    mdtest_stonewall_inflation: dict[str, dict[str, Any]] | None = None
    """{phase: {rate_ops, phase_seconds, tasks, items_done_max_per_rank, items_planned,
    implied_items, created_items_upper_bound, created_items, created_items_estimate, ratio,
    inflated, source}} for mdtest write phases with stonewall figures: a rate computed from planned
    items (SC18 IOR-bundled mdtest) shows as ``implied_items`` (rate x phase time) far above what
    the ranks can have created (``ratio`` = implied / upper bound, ``inflated`` when > 1.5).
    ``created_items`` is exact when every rank printed a "stonewall rank" line; the estimate is the
    "stonewall hit" average x tasks."""
    raw_value_check: dict[str, dict[str, Any]] | None = None
    """{phase: {reported, raw, relative_difference}}: the phase value against the tool's own number."""
    missing_raw_files: list[str] | None = None
    """Standard phases without a raw output file."""
    missing_phases: list[str] | None = None
    """Standard phases without a result line."""
    summary_differs_from_run: dict[str, Any] | None = None
    """{source_file, run_file, toplevel_total, run_total, differences: [{phase or score, toplevel,
    run, line}]}: a ``result_summary.txt`` in a folder above (the submission-root copy) that is not
    this run."""
    toplevel_summary: dict[str, Any] | None = None
    """{source_file, identical: True} when such a copy matches this run; {source_file, identical:
    False, copy_of} when it repeats another result set of the same submission (a bundle of runs)."""
    summary_cross_check: dict[str, Any] | None = None
    """C app: {source_file, identical, differences} between result.txt and the result_summary.txt
    beside it ({error} when the summary could not be read)."""
    score_hash: dict[str, Any] | None = None
    """C app: printed and recomputed score hash; ``rule`` names the ``hashes.SCORE_HASH_SCOPES`` entry
    that matched ("standard", "isc21_v1" or "a69cf60"; None on a mismatch), ``rules_tried`` all of them."""
    extended_score_hash: dict[str, Any] | None = None
    """C app: the same for the extended score."""
    config_hash: dict[str, Any] | None = None
    """C app: printed and recomputed hash of the configuration."""
    validation_messages: list[dict[str, Any]] | None = None
    """[{source_file, source_line, text}]: ``; ERROR`` / ``; WARNING`` comments of result.txt."""
    version: dict[str, Any] | None = None
    """C app version string split: {raw, tag, custom, commits_after_tag, commit, modified_lines}."""
    mode: str | None = None
    """C app: "standard" or "extended"."""
    result_txt_run_section: bool | None = None
    """C app: whether result.txt has a ``[run]`` header (sc21 and later)."""
    result_txt_end_marker: bool | None = None
    """C app: whether result.txt ends with its ``; END`` line."""
    printed_bw_unit: str | None = None
    """bash: the BW label the script printed (GB/s or GiB/s; the value is GiB/s either way)."""
    product_score: dict[str, Any] | None = None
    """Product-formula runs: {printed_total, bw_times_md, sqrt_bw_md, recomputed_product}; SC17:
    {printed_total, recomputed_product, units: "MB/s x IOPS"}."""
    stdout_summary: str | None = None
    """bash: the io-500-summary (stdout copy) used."""
    other_summary_attempts: list[dict[str, Any]] | None = None
    """bash: the other scored or unscored attempts found in the folder."""
    score_blocks_in_summary: int | None = None
    """bash: how many runs an appended result_summary.txt holds."""
    sc17_printed: dict[str, Any] | None = None
    """SC17: the printed bw (MB/s), md (IOPS) and product score."""
    info_sources: list[str] | None = None
    """The files ``IO500RunRecord.info`` was read from."""
    score_rule: str | None = None
    """The score formula used for ``computed_score`` (see ``apps.results.judgements.scoring``; the key
    keeps its first name)."""
    timestamp_step: dict[str, Any] | None = None
    """C app: {t_start, source_file, source_line} of result.txt's ``[timestamp]`` step (when the write
    phases ended; find's reference time). It measures nothing and is never stored as a phase."""

    def to_dict(self) -> dict[str, Any]:
        """The fields that say something, as JSON-friendly data (``plain_data``: new containers, shared leaves)."""
        return {name: value for name, value in plain_data(self).items() if value is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunEvidence:
        """Tolerant: keys this version does not know are ignored."""
        names = {item.name for item in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})


@dataclass
class IO500RunRecord:
    """One IO500 result set (one benchmark execution) with everything parsed from it."""

    source_path: str  # the result directory, relative to the ingested root
    era: str  # ERA_SCRIPT (io500.sh, SC17 scripts) or ERA_CAPP (C application): see scoring.generations
    generation: str = ""  # one of apps.results.judgements.scoring.generations.GENERATIONS
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
    evidence: RunEvidence = field(default_factory=RunEvidence)  # what the anomaly rules' facts come from
    rank_tables: dict = field(default_factory=dict)  # phase -> grammar.rank_csv.RankTable (C-app CSVs)
    warnings: list[str] = field(default_factory=list)
