"""Distil a parsed IO500 run into the ``RunFacts`` the anomaly rules read.

This is the only place that knows both sides: the parser's ``IO500RunRecord`` (with the extra
evidence its builders leave in ``record.evidence``) and the rules' plain facts. Ingest imports
results here, never the reverse, so the rules stay independent of how files are parsed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from apps.ingest.core.metadata import from_info, memory_gib, network_gbit
from apps.ingest.parsers.json_values import json_safe
from apps.ingest.tools.io500.grammar.eras import score_formula_for
from apps.ingest.tools.io500.grammar.sysinfo import declared_client_nodes
from apps.ingest.tools.io500.records import IO500RunRecord, PhaseRecord
from apps.results.judgements.anomalies.facts import PhaseFacts, RunFacts, ScoreFacts
from apps.results.judgements.rank_stats import summarise_ranks
from apps.results.judgements.scoring import compute_io500_score


def facts_from_record(record: IO500RunRecord, metadata: Mapping[str, Any] | None = None) -> RunFacts:
    """The facts of one run; values the record does not have stay empty, and rules then stay silent.

    ``metadata`` is the run's resolved metadata (sidecar and upload fields first); without it the
    system description inside the result files is read.
    """
    declared = _declared_nodes(record)
    described = dict(metadata) if metadata is not None else from_info(record.info)
    network, memory = described.get("client_network"), described.get("client_memory")
    return RunFacts(
        source_path=record.source_path,
        era=record.era,
        generation=record.generation,
        benchmark_version=record.benchmark_version,
        run_date=record.run_timestamp.date().isoformat() if record.run_timestamp else "",
        rules_mode=_rules_mode(record),
        phases={phase.name: _phase_facts(phase) for phase in record.phases},
        reported_score=_reported_score(record),
        computed_score=_computed_score(record),
        score_formula=record.score_formula,
        verification=record.verification,
        valid=record.valid,
        invalid_reasons=list(record.invalid_reasons),
        client_nodes_declared=declared[0] if declared else None,
        client_nodes_declared_source=declared[1] if declared else "",
        tool_node_counts=_tool_node_counts(record),
        hostfile_node_counts=_hostfile_node_counts(record),
        summary_conflicts=_summary_conflicts(record),
        stonewall_inflation=_stonewall_inflation(record),
        content_hash=record.content_hash,
        stonewall_seconds=record.evidence.stonewall_seconds,
        included_files=sorted(record.raw_files),
        rank_stats=_rank_stats(record),
        client_network_gbit=network_gbit(network),
        client_network_source=f"client_network: {network}" if network_gbit(network) else "",
        client_memory_gib=memory_gib(memory),
        client_memory_source=f"client_memory: {memory}" if memory_gib(memory) else "",
    )


def _rank_stats(record: IO500RunRecord) -> dict[str, dict[str, Any]]:
    """Per phase with a per-rank CSV: how evenly its ranks worked (``apps.results.judgements.rank_stats``)."""
    stats = {}
    for phase, table in sorted(record.rank_tables.items()):
        summary = summarise_ranks((s.rank, s.runtime, s.throughput) for s in table.samples).to_dict()
        stats[phase] = {**summary, "stonewall_pairs": table.stonewall_pairs, "source_file": table.source_file}
    return stats


def _phase_facts(phase: PhaseRecord) -> PhaseFacts:
    return PhaseFacts(
        value=phase.value,
        unit=phase.unit,
        seconds=phase.seconds,
        printed_value=phase.printed_value,
        command=phase.command,
        invalid=phase.invalid,
        source_file=phase.source_file,
        source_line=phase.source_line,
        rank_shift=phase.rank_shift,
        task_reordering=phase.task_reordering,
        details=json_safe(phase.details),
    )


def _rules_mode(record: IO500RunRecord) -> str:
    """``scc`` when the run used the student-competition rules (C ``[global] scc``, bash ``io500_rules``)."""
    rules = str(record.evidence.rules or record.config.get("rules") or "").strip().lower()
    return "scc" if rules == "scc" or record.evidence.scc is True else "regular"


def _reported_score(record: IO500RunRecord) -> ScoreFacts:
    """The printed score; the summary holding the phases is named as its source file."""
    score = record.reported_score
    source = record.phases[0].source_file if record.phases else ""
    return ScoreFacts(bw=score.bw, md=score.md, total=score.total, source_file=source)


def _computed_score(record: IO500RunRecord) -> ScoreFacts:
    """The comparable (sqrt) score from the phase values; the record's own when it has one."""
    score = record.computed_score
    if score.total is None and record.phases:
        phases = {phase.name: phase.value for phase in record.phases}
        score = compute_io500_score(phases, formula=score_formula_for(record))
    return ScoreFacts(bw=score.bw, md=score.md, total=score.total)


def _declared_nodes(record: IO500RunRecord) -> tuple[int, str] | None:
    """Client nodes the submitter declared: what the parser found, else the system description."""
    declared = record.evidence.declared_client_nodes
    if isinstance(declared, dict) and isinstance(declared.get("value"), int):
        return declared["value"], str(declared.get("source", ""))
    return declared_client_nodes(record.info)


def _tool_node_counts(record: IO500RunRecord) -> list[dict[str, Any]]:
    """Node and task counts each raw IOR/mdtest output reports (what the tools say they ran on)."""
    nodes = record.evidence.tool_client_nodes or {}
    tasks = record.evidence.tool_client_procs or {}
    phases = {phase.name: phase for phase in record.phases}
    counts = []
    for name, node_count in nodes.items():
        details = phases[name].details if name in phases else {}
        count = {
            "phase": name,
            "tool": details.get("tool", ""),
            "nodes": node_count,
            "tasks": tasks.get(name),
            "source_file": details.get("raw_file", ""),
        }
        if details.get("nodemap_nodes"):
            count["nodemap_nodes"] = details["nodemap_nodes"]
        counts.append(count)
    return counts


#: An MPI launcher's hostfile option and its value (mpirun/mpiexec/orterun spellings).
_HOSTFILE = re.compile(r"(?:^|\s)-{1,2}(?:hostfile|machinefile|hosts?file)[=\s]+(\S+)")
#: A count at the end of a hostfile's name: cli_hosts_10, hosts.16, nodes-32 (not a date or a job id: at most 5 digits).
_COUNT_IN_NAME = re.compile(r"(?:^|[_.-])(\d{1,5})(?:\.(?:txt|list|hosts?))?$")


def _hostfile_node_counts(record: IO500RunRecord) -> list[dict[str, Any]]:
    """The node count a phase's MPI hostfile is named for, where its name ends in one (`--hostfile cli_hosts_10`).

    The file itself is not submitted; its name is the submitter's own label of the host list, weak evidence beside
    the tools' counts (apps.results.judgements.anomalies.node_counts weighs it so)."""
    found = []
    for phase in record.phases:
        match = _HOSTFILE.search(phase.command or "")
        if not match:
            continue
        name = match.group(1).strip("'\"").rsplit("/", 1)[-1]
        count = _COUNT_IN_NAME.search(name)
        if count and int(count.group(1)) > 0:
            found.append({"phase": phase.name, "hostfile": name, "nodes": int(count.group(1))})
    return found


def _summary_conflicts(record: IO500RunRecord) -> list[dict[str, Any]]:
    """A result_summary.txt copy above the run (submission root) whose numbers are not this run's."""
    differs = record.evidence.summary_differs_from_run
    if not isinstance(differs, dict):
        return []
    differences = differs.get("differences") or []
    totals = (differs.get("toplevel_total"), differs.get("run_total"))
    summary = f"TOTAL {totals[0]} there vs {totals[1]} here" if totals[0] is not None else "unreadable copy"
    return [
        json_safe(
            {
                "source_file": differs.get("source_file", ""),
                "run_file": differs.get("run_file", ""),
                "difference": f"{summary}, {len(differences)} value(s) differ",
                "differences": differences,
            }
        )
    ]


def _stonewall_inflation(record: IO500RunRecord) -> list[dict[str, Any]]:
    """Per mdtest write phase: the rate, the time it covers and the items really (or at most) created.

    mdtest's own SUMMARY time is preferred to the phase's wall time, which also holds start-up and
    barriers: rate x wall time overstates the items of perfectly sound C-era runs by up to 1.5x.
    """
    evidence = record.evidence.mdtest_stonewall_inflation or {}
    entries = []
    phases = {phase.name: phase for phase in record.phases}
    for name, item in evidence.items():
        created = item.get("created_items") or item.get("created_items_upper_bound")
        tool_seconds = phases[name].details.get("raw_seconds") if name in phases else None
        entries.append(
            {
                "phase": name,
                "rate_per_second": item.get("rate_ops"),
                "seconds": tool_seconds or item.get("phase_seconds"),
                "seconds_source": "mdtest SUMMARY time" if tool_seconds else "phase wall time",
                "items_created": created,
                "items_created_is_upper_bound": not item.get("created_items"),
                "items_planned": item.get("items_planned"),
                "tasks": item.get("tasks"),
                "source_file": item.get("source", ""),
            }
        )
    return entries
