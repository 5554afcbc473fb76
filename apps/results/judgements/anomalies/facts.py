"""What the anomaly rules read about one run, as plain JSON-friendly data.

Rules never see parser records or database rows: ingest distils a ``RunFacts`` from each parsed
run (``apps.ingest.tools.io500.anomaly_facts``) and stores ``to_dict()`` next to the run, so the rules can be
re-run later (new thresholds, new rules) without re-reading the submission files.
``from_dict`` ignores keys it does not know, so facts stored by a newer version still load.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any


def plain_data(value: Any) -> Any:
    """``dataclasses.asdict`` without its deep copy of every leaf: the facts of a run are built once and stored,
    never changed after, and copying their tens of thousands of numbers and strings cost a bulk ingest more than
    storing them (issue 39). Dataclasses become dicts, dicts and lists new containers; leaves are shared."""
    if is_dataclass(value) and not isinstance(value, type):
        return {item.name: plain_data(getattr(value, item.name)) for item in fields(value)}
    if isinstance(value, dict):
        return {key: plain_data(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(plain_data(item) for item in value)
    return value


def _known_keys(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {item.name for item in fields(cls)}
    return {key: value for key, value in data.items() if key in names}


@dataclass(frozen=True)
class TaskReordering:
    """How IOR reassigned tasks before reading back (``-C``, ``-Z``, ``-Q``), as its reader extracted it.

    Without reordering each task reads the data it wrote itself, from its own node's page cache.
    Filled by the IOR reader (``apps.ingest.tools.ior.grammar``); rules read it, never the command line.
    """

    constant: bool = False  # -C: read back with a constant shift of offset x tasks per node (IO500 default)
    random: bool = False  # -Z: read back with a random task order
    # -Q (taskPerNodeOffset): the shift of -C in *nodes*, not tasks: each task reads what the task
    # offset x tasks-per-node ranks away wrote, i.e. the data of the node `offset` nodes away (1 when not given)
    offset: int | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TaskReordering:
        return cls(**_known_keys(cls, data))


@dataclass
class PhaseFacts:
    """One benchmark phase: the measured value, its wall time and where it was read."""

    value: float | None = None  # GiB/s for IOR phases, kIOPS otherwise
    unit: str = ""
    seconds: float | None = None
    printed_value: str = ""  # exactly as printed: its number of decimals is its precision
    command: str = ""  # the IOR/mdtest command line, for people: rules read the typed fields below
    invalid: bool = False  # marked invalid by the benchmark itself
    source_file: str = ""
    source_line: int | None = None
    rank_shift: int | None = None
    """mdtest phases: the ``-N`` rank shift the phase ran with, as the mdtest parser extracted it
    (mdtest's own "Shifting ranks by" line, else its command line); 0 = none, None = unknown."""
    task_reordering: TaskReordering | None = None
    """IOR phases: the read-back task reordering (``-C``/``-Z``/``-Q``); None = unknown."""
    details: dict[str, Any] = field(default_factory=dict)  # tool-reported tasks, nodes, stonewall figures...

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PhaseFacts:
        known = _known_keys(cls, data)
        if "rank_shift" not in data:
            known["rank_shift"] = _stored_rank_shift(data.get("details") or {}, bool(data.get("command")))
        if isinstance(data.get("task_reordering"), dict):
            known["task_reordering"] = TaskReordering.from_dict(data["task_reordering"])
        return cls(**known)


def _stored_rank_shift(details: dict[str, Any], has_command: bool) -> int | None:
    """The rank shift of facts stored before it was a field of its own.

    Those kept mdtest's "Shifting ranks by" value as ``details["rank_shift"]`` and the parsed
    ``-N`` of the command line as ``details["rank_shift_option"]`` (None both when the command
    line had no ``-N`` and when there was no command line).
    """
    for key in ("rank_shift", "rank_shift_option"):
        if isinstance(details.get(key), int):
            return details[key]
    return 0 if has_command and "rank_shift_option" in details else None


@dataclass
class ScoreFacts:
    """A bandwidth / metadata / total triple, with the strings printed for it when it was printed."""

    bw: float | None = None
    md: float | None = None
    total: float | None = None
    printed_bw: str = ""
    printed_md: str = ""
    printed_total: str = ""
    source_file: str = ""
    source_line: int | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreFacts:
        return cls(**_known_keys(cls, data))


@dataclass
class RunFacts:
    """Everything the anomaly rules need to judge one run, and nothing they would have to parse."""

    source_path: str = ""
    era: str = ""  # "script" (io500.sh) or "capp" (C application)
    generation: str = ""  # one of apps.results.judgements.scoring.generations.GENERATIONS
    benchmark_version: str = ""
    run_date: str = ""  # ISO date of the run, when known
    rules_mode: str = "regular"  # "regular" or "scc" (student cluster competition: 30 s writes)
    phases: dict[str, PhaseFacts] = field(default_factory=dict)
    reported_score: ScoreFacts = field(default_factory=ScoreFacts)
    computed_score: ScoreFacts = field(default_factory=ScoreFacts)  # sqrt rule, from the phase values
    score_formula: str = "sqrt"  # what the tool printed as TOTAL: "sqrt" or "product" (2017-18 scripts)
    verification: str = "not_verifiable"  # score hash: "verified", "hash_mismatch", "not_verifiable"
    valid: bool = True
    invalid_reasons: list[str] = field(default_factory=list)
    client_nodes_declared: int | None = None
    client_nodes: int | None = None  # the count the run is listed with (Run.client_nodes), when the caller knows it
    client_nodes_declared_source: str = ""  # "system-information.txt:12", "ioboard.yaml" ...
    # {phase, tool, nodes, tasks, source_file, nodemap_nodes}: what each raw IOR/mdtest output says it ran on
    tool_node_counts: list[dict[str, Any]] = field(default_factory=list)
    # {phase, hostfile, nodes}: a count in the name of the MPI hostfile a phase was launched with (cli_hosts_10)
    hostfile_node_counts: list[dict[str, Any]] = field(default_factory=list)
    summary_conflicts: list[dict[str, Any]] = field(default_factory=list)  # a second summary that differs
    stonewall_inflation: list[dict[str, Any]] = field(default_factory=list)  # SC18 mdtest planned-item rates
    content_hash: str = ""
    stonewall_seconds: float | None = None  # C app [debug] stonewall-time
    included_files: list[str] = field(default_factory=list)  # configuration and job files submitted with the run
    # {files (the first names), count, budget: {files, bytes}}: files past the site's budget per run, not kept
    files_not_kept: dict[str, Any] = field(default_factory=dict)
    client_network_gbit: float | None = None  # declared client network bandwidth per node (sidecar, system info)
    client_network_source: str = ""
    client_memory_gib: float | None = None  # declared memory per client node
    client_memory_source: str = ""
    # phase -> rank_stats.RankSummary.to_dict() (+ "stonewall_pairs", "source_file"), from per-rank CSVs
    rank_stats: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return plain_data(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunFacts:
        known = _known_keys(cls, data)
        known["phases"] = {name: PhaseFacts.from_dict(phase) for name, phase in (data.get("phases") or {}).items()}
        known["reported_score"] = ScoreFacts.from_dict(data.get("reported_score") or {})
        known["computed_score"] = ScoreFacts.from_dict(data.get("computed_score") or {})
        return cls(**known)

    def phase_value(self, name: str) -> float | None:
        phase = self.phases.get(name)
        return phase.value if phase else None
