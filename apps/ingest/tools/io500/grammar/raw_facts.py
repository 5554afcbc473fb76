"""Attaching the raw IOR/mdtest/find outputs to the phases of a record, and the facts they give.

Both eras leave one raw output per phase next to the summary (``ior_easy_write.txt`` in the bash
era, ``ior-easy-write.txt`` from the C app). They tell how many nodes and tasks really ran, the
exact command, the stonewall figures and the value the tool itself measured, which the summaries
only echo (rounded) or leave out.
"""

from __future__ import annotations

import re
from collections import Counter

from apps.ingest.tools.io500.grammar.common import ResultSetFiles, relative_difference, to_float, to_int
from apps.ingest.tools.io500.grammar.phases import MDTEST_READBACK_PHASES, STANDARD_PHASES, mdtest_operation
from apps.ingest.tools.io500.grammar.raw import (
    MdtestOutput,
    parse_find_csv,
    parse_ior_output,
    parse_mdtest_output,
)
from apps.ingest.tools.io500.records import IO500RunRecord, PhaseRecord
from apps.ingest.tools.ior.grammar import IorRun, IorTest
from apps.ingest.tools.mdtest.grammar import rank_shift_option

# An mdtest write rate is "inflated" (SC18 IOR-bundled mdtest with -W) when rate x phase time
# exceeds the items the ranks can have created by more than this factor (docs/io500-formats.md 6.16).
INFLATION_THRESHOLD = 1.5


def raw_output_candidates(phase: PhaseRecord, phase_names: set[str]) -> list[str]:
    """File names the raw tool output of a phase may have, most specific first."""
    names = []
    result_file = phase.details.get("result_file")
    if result_file:
        names.append(re.split(r"[\\/]", result_file)[-1])
    printed_name = phase.details.get("printed_name", phase.name)
    names += [f"{printed_name}.txt", f"{phase.name}.txt", f"{phase.name.replace('_', '-')}.txt"]
    # io500-isc25_v1 and sc24_v1-11 builds wrote the rnd4K-easy-read output to ior-rnd4K-read.txt.
    if phase.name == "ior_rnd4k_easy_read" and "ior_rnd4k_read" not in phase_names:
        names.append("ior-rnd4K-read.txt")
    return names


def attach_raw_outputs(files: ResultSetFiles, record: IO500RunRecord, *, command_from_raw: bool) -> None:
    """Read each phase's raw output into ``phase.details`` and derive node counts and facts.

    ``command_from_raw``: take the command line from the raw output (bash era) instead of keeping
    the one already set (the C app's ``exe =``, which is what the app ran).
    """
    phase_names = {p.name for p in record.phases}
    nodes: dict[str, int] = {}
    procs: dict[str, int] = {}
    per_node: list[int] = []
    missing = []
    for phase in record.phases:
        path = files.get(*raw_output_candidates(phase, phase_names))
        if path is None:
            if phase.name in STANDARD_PHASES and phase.name != "find":
                missing.append(phase.name)
            continue
        rel = files.rel_of(path)
        if phase.name.startswith("ior"):
            ior = parse_ior_output(path, rel)
            if ior:
                test = _attach_ior(phase, ior, rel, command_from_raw)
                _count(nodes, procs, phase.name, test.nodes, test.tasks)
                clients_per_node = to_int(test.options.get("clients_per_node"))
                if clients_per_node:
                    per_node.append(clients_per_node)
        elif phase.name.startswith("mdtest"):
            mdtest = parse_mdtest_output(path, rel)
            if mdtest:
                _attach_mdtest(phase, mdtest, rel, command_from_raw)
                _count(nodes, procs, phase.name, mdtest.nnodes, mdtest.ntasks)
    find_csv = files.get("find.csv")
    find = next((p for p in record.phases if p.name == "find"), None)
    if find_csv is not None and find is not None:
        parsed = parse_find_csv(find_csv, files.rel_of(find_csv))
        if parsed:
            find.details["find_csv"] = parsed
            find.details["raw_value"] = parsed["rate"] / 1000
    _set_client_counts(record, nodes, procs, per_node)
    _derive_facts(record, missing)


def _count(nodes: dict, procs: dict, name: str, node_count: int | None, tasks: int | None) -> None:
    if node_count:
        nodes[name] = node_count
    if tasks:
        procs[name] = tasks


def _attach_ior(phase: PhaseRecord, ior: IorRun, rel: str, command_from_raw: bool) -> IorTest:
    """Copy the first test of an IOR run into the phase; returns that test."""
    access = "write" if phase.name.endswith("write") else "read"
    test = ior.tests[0] if ior.tests else IorTest(index=0, line=ior.line)
    details = phase.details
    details.update({"tool": "ior", "tool_version": ior.version, "raw_file": rel})
    for key in ("api", "access", "xfersize", "blocksize", "aggregate_filesize", "ordering"):
        if key in test.options:
            details[f"ior_{key}" if key in ("access", "api") else key] = test.options[key]
    if ior.began:
        details["began"] = ior.began
    for key in ("tasks", "clients_per_node", "repetitions", "stonewalling_time", "stonewall_wearout", "segments"):
        number = to_int(test.options.get(key))
        if number is not None:
            details[key] = number
    if test.nodes:
        details["nodes"] = test.nodes
    phase.task_reordering = ior.reordering_of(test)
    stonewall = {key: to_float(value) for key, value in test.stonewall.items()}
    for row in test.summary:
        for column in ("Stonewall(s)", "Stonewall(MiB)"):
            value = to_float(row.cells.get(column))
            if value is not None:
                stonewall.setdefault(f"{row.operation}_{column.lower()}", value)
    if stonewall:
        details["stonewall"] = stonewall
    rows = test.iterations(access)
    bandwidth = to_float(rows[0].cells.get("bw(MiB/s)")) if rows else None
    if bandwidth is None and access in test.max:
        bandwidth = to_float(test.max[access].printed)
    if bandwidth is not None:
        details["raw_bandwidth_mib"] = bandwidth
        details["raw_value"] = bandwidth / 1024
    total = to_float(rows[0].cells.get("total(s)")) if rows else None
    if total is not None:
        details["raw_seconds"] = total
    if test.warnings:
        details["tool_warnings"] = test.warnings
    if ior.command:
        details["raw_command"] = ior.command
        details["raw_command_source"] = f"{rel}:{ior.command_line_number}"
        if command_from_raw or not phase.command:
            phase.command = ior.command
    return test


def _attach_mdtest(phase: PhaseRecord, mdtest: MdtestOutput, rel: str, command_from_raw: bool) -> None:
    details = phase.details
    details.update(
        {
            "tool": "mdtest",
            "tool_version": mdtest.version,
            "raw_file": rel,
            "tasks": mdtest.ntasks,
            "nodes": mdtest.nnodes,
            "launches": mdtest.launches,
        }
    )
    if mdtest.nodemap_nodes is not None:
        details["nodemap_nodes"] = mdtest.nodemap_nodes
    if mdtest.items is not None:
        details["items"] = {"tasks": mdtest.items_tasks, "count": mdtest.items, "kind": mdtest.item_kind}
    for key in ("iterations", "rank_shift", "stonewall_rank_done_max", "stonewall_rank_planned"):
        value = getattr(mdtest, key)
        if value is not None:
            details[key] = value
    if mdtest.stonewall_hit:
        details["stonewall_hit"] = dict(mdtest.stonewall_hit)
    if mdtest.stonewall_rank_lines:
        details["stonewall_rank_lines"] = mdtest.stonewall_rank_lines
        details["stonewall_rank_done_sum"] = mdtest.stonewall_rank_done_sum
    if mdtest.rate_label:
        details["rate_table"] = mdtest.rate_label
    if mdtest.time_label:
        details["time_table"] = mdtest.time_label
    operation = mdtest_operation(phase.name)
    if operation:
        rate = mdtest.rate(operation)
        if rate is not None:
            details["raw_rate_ops"] = rate
            details["raw_value"] = rate / 1000
            details["raw_rate_source"] = f"{rel}:{mdtest.rate_lines.get(f'File {operation}')}"
        seconds = mdtest.seconds(operation)
        if seconds is not None:
            details["raw_seconds"] = seconds
    if mdtest.command:
        details["raw_command"] = mdtest.command
        details["raw_command_source"] = f"{rel}:{mdtest.command_line}"
        if command_from_raw or not phase.command:
            phase.command = mdtest.command


def _most_common(values: dict[str, int]) -> int | None:
    if not values:
        return None
    counts = Counter(values.values())
    best = max(counts.values())
    return next(v for v in values.values() if counts[v] == best)


def _set_client_counts(
    record: IO500RunRecord, nodes: dict[str, int], procs: dict[str, int], per_node: list[int]
) -> None:
    if nodes:
        record.evidence.tool_client_nodes = nodes
        record.client_nodes = record.client_nodes or _most_common(nodes)
        record.evidence.client_nodes_source = "raw IOR/mdtest outputs (mdtest launch line, IOR nodes/tasks)"
    if procs:
        record.evidence.tool_client_procs = procs
        record.client_procs = record.client_procs or _most_common(procs)
    if per_node and record.procs_per_node is None:
        record.procs_per_node = Counter(per_node).most_common(1)[0][0]
    nodes_count, procs_count = record.client_nodes, record.client_procs
    if record.procs_per_node is None and nodes_count and procs_count and procs_count % nodes_count == 0:
        record.procs_per_node = procs_count // nodes_count


def _derive_facts(record: IO500RunRecord, missing: list[str]) -> None:
    shift: dict[str, bool | None] = {}
    inflation: dict[str, dict] = {}
    cross_check: dict[str, dict] = {}
    for phase in record.phases:
        if phase.name.startswith("mdtest"):
            phase.rank_shift = _rank_shift(phase)
        if phase.name in MDTEST_READBACK_PHASES:
            shift[phase.name] = None if phase.rank_shift is None else phase.rank_shift > 0
        if phase.name.startswith("mdtest") and phase.name.endswith("write"):
            evidence = _stonewall_inflation(phase)
            if evidence:
                inflation[phase.name] = evidence
        raw = phase.details.get("raw_value")
        if raw is not None and phase.value is not None:
            cross_check[phase.name] = {
                "reported": phase.value,
                "raw": raw,
                "relative_difference": relative_difference(phase.value, raw),
            }
    if shift:
        record.evidence.mdtest_rank_shift = shift
    if inflation:
        record.evidence.mdtest_stonewall_inflation = inflation
    if cross_check:
        record.evidence.raw_value_check = cross_check
    if missing:
        record.evidence.missing_raw_files = missing


def _rank_shift(phase: PhaseRecord) -> int | None:
    """mdtest's own "Shifting ranks by k" line of the raw output, else the ``-N`` of the command the
    phase ran (the raw output's, or result.txt's ``exe =`` in the C era)."""
    printed = phase.details.get("rank_shift")
    return printed if isinstance(printed, int) else rank_shift_option(phase.command)


def _stonewall_inflation(phase: PhaseRecord) -> dict | None:
    """Evidence of an mdtest create rate computed from planned items (SC18 stonewall bug)."""
    details = phase.details
    done_max = details.get("stonewall_hit", {}).get("max") or details.get("stonewall_rank_done_max")
    tasks = details.get("tasks")
    rate = details.get("raw_rate_ops")
    if not done_max or not tasks or rate is None or phase.seconds is None:
        return None
    implied = rate * phase.seconds
    created_at_most = done_max * tasks
    ratio = implied / created_at_most if created_at_most else None
    planned = details.get("items", {}).get("count")
    # With one "stonewall rank r: x of y" line per rank the created items are known exactly.
    created = details.get("stonewall_rank_done_sum") if details.get("stonewall_rank_lines") == tasks else None
    average = details.get("stonewall_hit", {}).get("avg")
    return {
        "rate_ops": rate,
        "phase_seconds": phase.seconds,
        "tasks": tasks,
        "items_done_max_per_rank": done_max,
        "items_planned": planned,
        "implied_items": implied,
        "created_items_upper_bound": created_at_most,
        "created_items": created,
        "created_items_estimate": average * tasks if average else None,  # "stonewall hit ... avg" x tasks
        "ratio": ratio,
        "inflated": ratio is not None and ratio > INFLATION_THRESHOLD,
        "source": details.get("raw_rate_source", details.get("raw_file", "")),
    }
