"""Building an ``IO500RunRecord`` from a bash-era (``io500.sh``) or SC17 result directory.

bash: ``result_summary.txt`` is authoritative; the ``io-500-summary`` stdout copy that prints the same
``[SCORE]`` line supplies the variable dump, ``[Exec]`` commands and the ``[FIND]`` counts. Without a
usable ``result_summary.txt`` the last complete run of the newest ``io-500-summary`` is used. Other
attempts in the folder (aborted runs, earlier scores) are listed in ``RunEvidence.other_summary_attempts``.

The printed TOTAL is BW x MD for the Oct 2017 - May 2018 scripts; that is detected from the printed
numbers (``score_formula = "product"``) and the comparable sqrt score is what ``computed_score`` holds.
"""

from __future__ import annotations

import math
from datetime import datetime
from pathlib import Path

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.common import (
    ResultSetFiles,
    parse_timestamp,
    printed_score_fact,
    to_float,
    to_int,
)
from apps.ingest.tools.io500.grammar.phases import score_group, unit_for
from apps.ingest.tools.io500.grammar.script import (
    SC17_RESULTS_FILE,
    ScriptBlock,
    ScriptSummary,
    is_sc17_stdout,
    parse_sc17,
    parse_script_summary,
)
from apps.ingest.tools.io500.grammar.sysinfo import split_info
from apps.ingest.tools.io500.records import IO500RunRecord, PhaseRecord
from apps.results.judgements.scoring import BW_PHASES, MD_PHASES, SC17_MD_PHASES, Score
from apps.results.judgements.scoring.generations import (
    ERA_SCRIPT,
    GENERATION_BASH_PRODUCT,
    GENERATION_BASH_SQRT,
    GENERATION_SC17,
)

MIB_PER_MB = 1e6 / 2**30  # SC17 printed decimal MB/s; phases are stored in GiB/s


def _io500_summaries(files: ResultSetFiles) -> list[tuple[str, ScriptSummary]]:
    summaries = []
    for name in sorted(files.files):
        if name.startswith("io-500-summary") and name.endswith(".txt"):
            path = files.files[name]
            summaries.append((name, parse_script_summary(path, files.rel_of(path), strict=False)))
    return summaries


def _same_score(a: str, b: str) -> bool:
    return " ".join(a.split()).lower() == " ".join(b.split()).lower()


def build_script_record(files: ResultSetFiles) -> IO500RunRecord:
    primary_path = files.get("result_summary.txt")
    primary = parse_script_summary(primary_path, files.rel_of(primary_path), strict=True) if primary_path else None
    stdouts = _io500_summaries(files)
    record = IO500RunRecord(source_path=files.rel, era=ERA_SCRIPT)
    block, source_path, stdout = _choose_run(files, record, primary, primary_path, stdouts)
    source_rel = files.rel_of(source_path)
    score = block.score
    record.reported_score = Score(bw=to_float(score.bw), md=to_float(score.md), total=to_float(score.total))
    record.evidence.printed_bw_unit = score.bw_unit
    record.evidence.reported_score_printed = printed_score_fact(score.bw, score.md, score.total, source_rel, score.line)
    for phase_line in sorted(block.phases.values(), key=lambda p: p.line):
        name = phase_line.name
        command = block.commands.get(name) or (stdout.run.commands.get(name) if stdout and stdout.run else None)
        phase = PhaseRecord(
            name=name,
            value=to_float(phase_line.value),
            unit=unit_for(name),
            seconds=to_float(phase_line.seconds),
            printed_value=phase_line.value,
            printed_unit=phase_line.unit,
            score_group=score_group(name),
            command=command[0] if command else "",
            invalid=phase_line.invalid,
            source_file=source_rel,
            source_line=phase_line.line,
            details={
                "printed_seconds": phase_line.seconds,
                "phase_number": phase_line.number,
                "kind": phase_line.kind,
            },
        )
        if command:
            phase.details["exec_line"] = command[1]
        record.phases.append(phase)
    _find_details(record, block, stdout)
    _require_phases(record, source_rel, score.line, BW_PHASES + MD_PHASES, score.invalid)
    _formula(record)
    _validity(record, block, source_rel, stdout)
    _variables(record, stdout)
    record.run_timestamp = _timestamp(files, stdout)
    return record


def _choose_run(
    files: ResultSetFiles,
    record: IO500RunRecord,
    primary: ScriptSummary | None,
    primary_path: Path | None,
    stdouts: list[tuple[str, ScriptSummary]],
) -> tuple[ScriptBlock, Path, ScriptSummary | None]:
    """(run block, file it came from, matching io-500-summary) and the other attempts as facts."""
    chosen_stdout: tuple[str, ScriptSummary] | None = None
    block = primary.run if primary else None
    if block is not None and primary_path is not None:
        chosen_stdout = next(
            (
                item
                for item in reversed(stdouts)
                if item[1].run and _same_score(item[1].run.score.text, block.score.text)
            ),
            None,
        )
        source = primary_path
    else:
        if primary_path is not None:
            record.warnings.append("result_summary.txt has no [SCORE] line; using the io-500-summary output")
        chosen_stdout = next((item for item in reversed(stdouts) if item[1].run), None)
        if chosen_stdout is None:
            where = files.rel_of(primary_path) if primary_path else files.rel
            raise ParseError(where, None, "truncated summary: no [SCORE] line in result_summary.txt or io-500-summary")
        block = chosen_stdout[1].run
        assert block is not None  # the summary was chosen for having a run
        source = files.files[chosen_stdout[0]]
    if primary is not None and len(primary.blocks) > 1:
        record.evidence.score_blocks_in_summary = len(primary.blocks)
    attempts = []
    for name, parsed in stdouts:
        rel = files.rel_of(files.files[name])
        for candidate in parsed.blocks:
            if chosen_stdout and name == chosen_stdout[0] and candidate is parsed.run:
                continue
            attempts.append(
                {
                    "source_file": rel,
                    "source_line": candidate.score.line,
                    "score_line": candidate.score.text,
                    "same_score_as_run": _same_score(candidate.score.text, block.score.text),
                }
            )
        if parsed.open_phases:
            attempts.append(
                {
                    "source_file": rel,
                    "source_line": None,
                    "score_line": None,
                    "phases_without_score": sorted(parsed.open_phases),
                }
            )
    if attempts:
        record.evidence.other_summary_attempts = attempts
    if chosen_stdout is not None:
        record.evidence.stdout_summary = files.rel_of(files.files[chosen_stdout[0]])
        for line, text in chosen_stdout[1].bad_lines:
            record.warnings.append(f"{record.evidence.stdout_summary}:{line}: garbled result line {text[:80]!r}")
    return block, source, chosen_stdout[1] if chosen_stdout else None


def _find_details(record: IO500RunRecord, block: ScriptBlock, stdout: ScriptSummary | None) -> None:
    find_phase = next((p for p in record.phases if p.name == "find"), None)
    find = block.find or (stdout.run.find if stdout and stdout.run else None)
    if find_phase is None or not find:
        return
    find_phase.details.update(
        {
            "found": find["found"],
            "scanned": find["scanned"],
            "find_seconds": find["seconds"],
            "find_line": find["line"],
        }
    )
    rate = find["scanned"] / find["seconds"] / 1000 if find["seconds"] > 0 else math.nan
    if math.isfinite(rate):
        # io500.sh computed it with bc, scale=2: truncated to 0.01 kIOPS
        find_phase.details["raw_value"] = math.floor(rate * 100) / 100


def _require_phases(
    record: IO500RunRecord, rel: str, line: int | None, required: tuple[str, ...], marked_invalid: bool
) -> None:
    present = {p.name for p in record.phases}
    missing = [name for name in required if name not in present]
    if missing and not marked_invalid and (record.reported_score.total or 0) > 0:
        raise ParseError(
            rel,
            line,
            f"missing phases {', '.join(missing)} although the score is not marked "
            "invalid (truncated or edited summary)",
        )
    if missing:
        record.evidence.missing_phases = missing


def _formula(record: IO500RunRecord) -> None:
    """Product (early scripts) or sqrt, judged by which one reproduces the printed TOTAL."""
    bw, md, total = record.reported_score.bw, record.reported_score.md, record.reported_score.total
    record.generation, record.score_formula = GENERATION_BASH_SQRT, "sqrt"
    if bw is None or md is None or not total or not all(map(math.isfinite, (bw, md, total))):
        return
    product_error = abs(total - bw * md) / abs(total)
    sqrt_error = abs(total - math.sqrt(abs(bw * md))) / abs(total)
    if product_error < 0.01 and product_error < sqrt_error:
        record.generation, record.score_formula = GENERATION_BASH_PRODUCT, "product"
        record.evidence.product_score = {
            "printed_total": total,
            "bw_times_md": bw * md,
            "sqrt_bw_md": math.sqrt(abs(bw * md)),
        }


def _validity(record: IO500RunRecord, block: ScriptBlock, rel: str, stdout: ScriptSummary | None) -> None:
    reasons = []
    if block.score.invalid:
        record.valid = False
        reasons.append(f"{rel}:{block.score.line}: [SCORE-invalid]")
    for phase in record.phases:
        if phase.invalid:
            seconds = phase.details["printed_seconds"]
            reasons.append(f"{rel}:{phase.source_line}: [RESULT-invalid] {phase.name} (time {seconds} s)")
    if stdout is not None:
        reasons += [f"{record.evidence.stdout_summary}:{line}: {text}" for line, text in stdout.notes]
    record.invalid_reasons = reasons


def _variables(record: IO500RunRecord, stdout: ScriptSummary | None) -> None:
    """The io500_* settings the run used (variable dump of the stdout copy) and the rules mode."""
    if stdout is not None and stdout.assignments:
        info, variables = split_info(stdout.assignments)
        record.config["variables"] = variables
        record.config["variables_source"] = record.evidence.stdout_summary
        record.info.update(info)
    variables = record.config.get("variables", {})
    rules = variables.get("io500_rules", "regular").strip().lower() or "regular"
    record.config["rules"] = rules
    record.config["scc"] = rules == "scc"
    record.config["stonewall_time"] = to_int(variables.get("io500_stonewall_timer"))
    record.evidence.rules = rules
    record.evidence.scc = rules == "scc"
    record.evidence.min_write_seconds = 30 if rules == "scc" else 300
    record.evidence.stonewall_seconds = record.config["stonewall_time"]


def _timestamp(files: ResultSetFiles, stdout: ScriptSummary | None) -> datetime | None:
    candidates = [stdout.date if stdout else ""]
    candidates += [name for name in sorted(files.files) if name.startswith("io-500-summary")]
    candidates.append(files.folder.name)
    for candidate in candidates:
        found = parse_timestamp(candidate)
        if found:
            return found
    return None


def sc17_sources(files: ResultSetFiles) -> list[tuple[Path, str]]:
    """The SC17 job stdout(s) of a folder first, then the per-family ``*-results.txt`` files below it."""
    stdouts = [p for _, p in sorted(files.files.items()) if is_sc17_stdout(p, files.rel_of(p))]
    family = [p for name, p in sorted(files.files.items()) if SC17_RESULTS_FILE.match(name)]
    try:
        children = sorted(child for child in files.folder.iterdir() if child.is_dir())
    except OSError:
        children = []
    for child in children:
        try:
            family += sorted(p for p in child.iterdir() if SC17_RESULTS_FILE.match(p.name) and p.is_file())
        except OSError:
            continue
    return [(p, files.rel_of(p)) for p in stdouts + family]


def build_sc17_record(files: ResultSetFiles) -> IO500RunRecord:
    """SC17 job output: MB/s and ops/s converted to GiB/s and kIOPS, the printed product kept as printed."""
    sources = sc17_sources(files)
    if not sources:
        raise ParseError(files.rel, None, "no SC17 job output or *-results.txt files")
    parsed = parse_sc17(sources)
    if not parsed.phases:
        raise ParseError(sources[0][1], None, "no SC17 phase lines (N/<phase> BW:... or IOPs:...)")
    record = IO500RunRecord(source_path=files.rel, era=ERA_SCRIPT, generation=GENERATION_SC17, score_formula="product")
    for phase_line in sorted(parsed.phases.values(), key=lambda p: (p.file, p.line)):
        name = phase_line.name
        printed = to_float(phase_line.value)
        is_bw = phase_line.kind.upper() == "BW"
        value = None if printed is None else (printed * MIB_PER_MB if is_bw else printed / 1000)
        record.phases.append(
            PhaseRecord(
                name=name,
                value=value,
                unit=unit_for(name),
                seconds=to_float(phase_line.seconds),
                printed_value=phase_line.value,
                printed_unit="MB/s" if is_bw else "IOPs",
                score_group=score_group(name),
                source_file=phase_line.file,
                source_line=phase_line.line,
                details={"printed_name": phase_line.raw_name, "printed_seconds": phase_line.seconds},
            )
        )
    bw = to_float(parsed.bw_score[0]) if parsed.bw_score else None
    md = to_float(parsed.md_score[0]) if parsed.md_score else None
    record.reported_score = Score(
        bw=None if bw is None else bw * MIB_PER_MB,
        md=None if md is None else md / 1000,
        total=to_float(parsed.score[0]) if parsed.score else None,
    )
    if parsed.score:
        record.evidence.reported_score_printed = printed_score_fact(
            parsed.bw_score[0] if parsed.bw_score else "",
            parsed.md_score[0] if parsed.md_score else "",
            parsed.score[0],
            sources[0][1],
            parsed.score[1],
        )
    record.evidence.sc17_printed = {
        "bw_mb_s": parsed.bw_score[0] if parsed.bw_score else None,
        "md_iops": parsed.md_score[0] if parsed.md_score else None,
        "score_bw_times_md": parsed.score[0] if parsed.score else None,
        "source": sources[0][1],
    }
    score_line = parsed.score[1] if parsed.score else None
    _require_phases(record, sources[0][1], score_line, BW_PHASES + SC17_MD_PHASES, False)
    nodes = to_float(parsed.variables.get("nodes"))
    per_node = to_float(parsed.variables.get("ppn"))
    if nodes and nodes.is_integer():
        record.client_nodes = int(nodes)
        record.evidence.client_nodes_source = f"{sources[0][1]}: nodes= of the job script"
        if per_node and per_node.is_integer():
            record.procs_per_node = int(per_node)
            record.client_procs = int(nodes * per_node)
    record.config["variables"] = dict(parsed.variables)
    record.config["rules"] = "regular"
    record.evidence.rules = "regular"
    record.evidence.scc = False
    record.evidence.min_write_seconds = 300
    record.run_timestamp = parse_timestamp(parsed.variables.get("date"))
    return record
