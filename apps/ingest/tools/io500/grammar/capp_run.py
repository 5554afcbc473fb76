"""Building an ``IO500RunRecord`` from a C-application result directory.

``result.txt`` is authoritative (it carries the verifiable score hash); ``result_summary.txt`` is
cross-checked against it and only used alone when ``result.txt`` is absent. A ``result.txt`` that
cannot be parsed or stops before its ``[SCORE]`` values is a ``ParseError``: a damaged
authoritative file is reported, not papered over with the unverifiable summary.
"""

from __future__ import annotations

import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.capp import (
    CappSummary,
    ResultTxt,
    SummaryPhase,
    parse_capp_summary,
    parse_ini,
    parse_result_txt,
)
from apps.ingest.tools.io500.grammar.common import (
    ResultSetFiles,
    parse_timestamp,
    printed_score_fact,
    to_float,
    to_int,
)
from apps.ingest.tools.io500.grammar.hashes import SCORE_HASH_SCOPES, config_hash, same_hash, score_hash
from apps.ingest.tools.io500.grammar.phases import (
    STANDARD_PHASES,
    hash_group,
    normalise_phase_name,
    score_group,
    unit_for,
)
from apps.ingest.tools.io500.grammar.rank_csv import rank_tables
from apps.ingest.tools.io500.records import IO500RunRecord, PhaseRecord
from apps.results.judgements.scoring import Score
from apps.results.judgements.scoring.generations import (
    ERA_CAPP,
    GENERATION_CAPP_G1,
    GENERATION_CAPP_G2,
    GENERATION_CAPP_G3,
)

VERSION = re.compile(
    r"^(?P<tag>io500-(?:isc|sc)\d\d(?:_v\d+)?|dev)"  # the git tag
    r"(?:-(?P<commits>\d{1,9})-g(?P<commit>[0-9a-f]+))?"  # git describe: commits after the tag
    r"(?:-(?P<modified>\d{1,9}))?$"  # lines of local modification
)
# result.txt keys that have their own PhaseRecord field; the others go to ``details``
FIELD_KEYS = {"exe", "score", "t_delta"}


def parse_version(version: str) -> dict:
    """Split a C-app version string: tag, commits after the tag, commit, lines of local modification."""
    text = version.strip()
    match = VERSION.match(text)
    if not match:
        return {"raw": text, "tag": "", "custom": bool(text)}
    parts = {"raw": text, "tag": match.group("tag"), "custom": False}
    if match.group("commits"):
        parts["commits_after_tag"] = int(match.group("commits"))
        parts["commit"] = match.group("commit")
    if match.group("modified"):
        parts["modified_lines"] = int(match.group("modified"))
    return parts


def generation_of(result: ResultTxt | None, summary: CappSummary | None, version: str) -> str:
    """capp-g1 / capp-g2 / capp-g3 (docs/io500-formats.md 2.1), from the summary grammar when present."""
    if summary is not None and summary.score is not None:
        if summary.mode or summary.score.tag in ("SCORE ", "SCOREX"):
            return GENERATION_CAPP_G3
        return GENERATION_CAPP_G1 if summary.score.bw_unit == "GB/s" else GENERATION_CAPP_G2
    if result is not None and (result.has_run_section or "mode" in result.header):
        return GENERATION_CAPP_G3
    return GENERATION_CAPP_G1 if re.search(r"isc20|sc20_v[12]", version) else GENERATION_CAPP_G2


def build_capp_record(files: ResultSetFiles) -> IO500RunRecord:
    result_path = files.get("result.txt")
    summary_path = files.get("result_summary.txt")
    result = parse_result_txt(result_path, files.rel_of(result_path)) if result_path else None
    summary = None
    summary_error = None
    if summary_path is not None:
        try:
            summary = parse_capp_summary(summary_path, files.rel_of(summary_path))
        except ParseError as exc:
            if result is None:
                raise
            summary_error = exc
    if result is not None:
        version = result.header_value("version")
    elif summary is not None:
        version = summary.version or ""
    else:
        raise ParseError(files.rel, None, "no result.txt or result_summary.txt in this folder")
    record = IO500RunRecord(source_path=files.rel, era=ERA_CAPP, benchmark_version=version)
    record.generation = generation_of(result, summary, version)
    record.evidence.version = parse_version(version)
    record.evidence.mode = (result.header_value("mode") if result else "") or (summary.mode if summary else "")
    if summary_error is not None:
        record.warnings.append(f"result_summary.txt not usable: {summary_error}")
        record.evidence.summary_cross_check = {"error": str(summary_error)}
    if result is not None:
        _from_result_txt(record, files, result, summary)
    elif summary is not None:
        _from_summary_only(record, files, summary)
        record.warnings.append("no result.txt: numbers from result_summary.txt, score hash not verifiable")
    _validity(record, result, summary)
    _check_complete(record, files)
    record.rank_tables = rank_tables(files.files, files.rel_of)
    _config(record, files, result)
    return record


def _summary_phases(summary: CappSummary | None) -> dict[str, SummaryPhase]:
    return {normalise_phase_name(p.name): p for p in summary.phases} if summary else {}


def _from_result_txt(
    record: IO500RunRecord, files: ResultSetFiles, result: ResultTxt, summary: CappSummary | None
) -> None:
    rel = files.rel_of_present("result.txt")
    printed = _summary_phases(summary)
    record.evidence.result_txt_run_section = result.has_run_section
    record.evidence.result_txt_end_marker = result.has_end
    if result.repeated_sections:
        record.warnings.append(f"result.txt repeats sections {sorted(set(result.repeated_sections))}; last kept")
    record.client_procs = to_int(result.header_value("procs"))
    record.run_timestamp = (
        parse_timestamp(result.start)
        or next(
            (parse_timestamp(keys["t_start"].value) for keys in result.phases.values() if "t_start" in keys),
            None,
        )
        or parse_timestamp(result.header_value("result-dir"))
        or parse_timestamp(files.folder.name)
    )
    if "t_start" in result.timestamp_step:
        record.evidence.timestamp_step = {
            "t_start": result.timestamp_step["t_start"].value.strip(),
            "source_file": rel,
            "source_line": result.timestamp_step_line,
        }
    for raw_name, keys in result.phases.items():
        name = normalise_phase_name(raw_name)
        line = printed.get(name)
        score = keys.get("score")
        t_delta = keys.get("t_delta")
        value = to_float(score.value.split()[0]) if score and score.value.split() else None
        if value is None and line is not None:
            value = to_float(line.value)
        phase = PhaseRecord(
            name=name,
            value=value,
            unit=unit_for(name),
            seconds=to_float(t_delta.value) if t_delta else (to_float(line.seconds) if line else None),
            printed_value=score.value if score else (line.value if line else ""),
            printed_unit=line.unit if line else unit_for(name),
            score_group=score_group(name),
            command=keys["exe"].value.strip() if "exe" in keys else "",
            invalid=bool(line and line.invalid),
            source_file=rel,
            source_line=score.line if score else result.phase_lines.get(raw_name),
            details=_phase_details(raw_name, keys, line),
        )
        record.phases.append(phase)
    record.reported_score = _score(result.score)
    score_tokens = result.score["SCORE"].value.split()
    record.evidence.reported_score_printed = printed_score_fact(
        result.score["BW"].value,
        result.score["MD"].value,
        score_tokens[0] if score_tokens else "",
        rel,
        result.score["SCORE"].line,
    )
    if result.scorex:
        record.reported_extended = _score(result.scorex)
    record.evidence.validation_messages = [
        {"source_file": rel, "source_line": c.line, "text": c.value}
        for c in result.comments
        if c.value.startswith(("ERROR", "WARNING"))
    ]
    _verify_score_hash(record, result)
    if summary is not None:
        _cross_check(record, result, summary, files.rel_of_present("result_summary.txt"))


def _phase_details(raw_name: str, keys: dict, line: SummaryPhase | None) -> dict:
    details: dict = {"printed_name": raw_name}
    for key, entry in keys.items():
        if key not in FIELD_KEYS:
            details[key.replace("-", "_")] = _detail_value(entry.value)
    t_delta = keys.get("t_delta")
    if t_delta is not None:
        details["seconds_line"] = t_delta.line
    if line is not None:
        details["summary_line"] = line.line
    details["printed_seconds"] = line.seconds if line else (t_delta.value if t_delta else "")
    return details


def _detail_value(text: str) -> int | float | str:
    """Integers and decimals of result.txt keys as numbers, anything else (paths, quotes) as text."""
    stripped = text.strip()
    number = to_int(stripped)
    if number is not None:
        return number
    if re.fullmatch(r"[-+]?\d+\.\d*(?:[eE][-+]?\d+)?", stripped):
        return float(stripped)
    return stripped


def _score(section: dict) -> Score:
    score = section.get("SCORE")
    tokens = score.value.split() if score else []
    return Score(
        bw=to_float(section["BW"].value) if "BW" in section else None,
        md=to_float(section["MD"].value) if "MD" in section else None,
        total=to_float(tokens[0]) if tokens else None,
    )


def _from_summary_only(record: IO500RunRecord, files: ResultSetFiles, summary: CappSummary) -> None:
    rel = files.rel_of_present("result_summary.txt")
    record.run_timestamp = parse_timestamp(files.folder.name)
    for line in summary.phases:
        name = normalise_phase_name(line.name)
        record.phases.append(
            PhaseRecord(
                name=name,
                value=to_float(line.value),
                unit=unit_for(name),
                seconds=to_float(line.seconds),
                printed_value=line.value,
                printed_unit=line.unit,
                score_group=score_group(name),
                invalid=line.invalid,
                source_file=rel,
                source_line=line.line,
                details={"printed_name": line.name, "printed_seconds": line.seconds},
            )
        )
    score = summary.score
    assert score is not None  # parse_capp_summary refuses a summary without one
    record.reported_score = Score(bw=to_float(score.bw), md=to_float(score.md), total=to_float(score.total))
    record.evidence.reported_score_printed = printed_score_fact(score.bw, score.md, score.total, rel, score.line)
    if summary.scorex is not None:
        x = summary.scorex
        record.reported_extended = Score(bw=to_float(x.bw), md=to_float(x.md), total=to_float(x.total))


def _verify_score_hash(record: IO500RunRecord, result: ResultTxt) -> None:
    """Recompute the ``[SCORE]`` (and ``[SCOREX]``) hash; verified if any known build's hash scope matches.

    The scope that matched (``SCORE_HASH_SCOPES``) is kept in the evidence (under its stored key ``rule``): it
    tells an a69cf60-or-later build from an older one.
    """
    printed = result.score.get("hash")
    if printed is None:
        record.verification = "not_verifiable"
        return
    names = {normalise_phase_name(raw): raw for raw in result.phases}
    tokens = result.score["SCORE"].value.split()
    marked_invalid = "[INVALID]" in tokens[1:]
    # The hash includes valid=NO for invalid runs; io500-verify accepts either ("[OK] But this is an
    # invalid run!"), so both are tried after the one the marker suggests.
    candidates = [(scope, valid) for scope in SCORE_HASH_SCOPES for valid in (not marked_invalid, marked_invalid)]
    computed: dict[tuple[str, bool], str] = {}
    for scope, valid in candidates:
        hashed = [
            (raw, score)
            for raw, score in _phase_scores(result, list(result.phases))
            if scope.hashes_phase(hash_group(normalise_phase_name(raw)), score)
        ]
        computed[scope.name, valid] = score_hash(
            version=result.header_value("version"),
            phase_scores=hashed,
            md=result.score["MD"].value if scope.hashes_md_bw else None,
            bw=result.score["BW"].value if scope.hashes_md_bw else None,
            score=tokens[0],
            valid=valid,
        )
    match = next(
        ((scope.name, valid) for scope, valid in candidates if same_hash(printed.value, computed[scope.name, valid])),
        None,
    )
    record.verification = "verified" if match else "hash_mismatch"
    first = (candidates[0][0].name, candidates[0][1])
    record.evidence.score_hash = {
        "printed": printed.value.strip(),
        "computed": computed[match or first],
        "rule": match[0] if match else None,
        "hashed_as_valid": match[1] if match else None,
        "rules_tried": [scope.name for scope in SCORE_HASH_SCOPES],
        "source_line": printed.line,
    }
    if result.scorex.get("hash") and all(k in result.scorex for k in ("MD", "BW", "SCORE")):
        optional = [names[n] for n in names if score_group(n) in ("bw_ext", "md_ext")]
        x_tokens = result.scorex["SCORE"].value.split()
        computed_extended = score_hash(
            version=None,
            phase_scores=_phase_scores(result, optional),
            md=result.scorex["MD"].value,
            bw=result.scorex["BW"].value,
            score=x_tokens[0],
            valid="[INVALID]" not in x_tokens[1:],
        )
        record.evidence.extended_score_hash = {
            "printed": result.scorex["hash"].value.strip(),
            "computed": computed_extended,
            "verified": same_hash(result.scorex["hash"].value, computed_extended),
        }


def _phase_scores(result: ResultTxt, raw_names: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for raw in raw_names:
        score = result.phases[raw].get("score")
        tokens = score.value.split() if score else []
        pairs.append((raw, tokens[0] if tokens else ""))
    return pairs


def _cross_check(record: IO500RunRecord, result: ResultTxt, summary: CappSummary, rel: str) -> None:
    """result_summary.txt should repeat result.txt's numbers as the same strings; record what differs."""
    differences: list[dict[str, object]] = []
    printed = _summary_phases(summary)
    for phase in record.phases:
        line = printed.get(phase.name)
        score = phase.printed_value.split()[0] if phase.printed_value.split() else ""
        if line is None:
            if phase.score_group != "none":
                differences.append({"phase": phase.name, "result_txt": score, "summary": None})
        elif score and to_float(line.value) != to_float(score):
            differences.append({"phase": phase.name, "result_txt": score, "summary": line.value, "line": line.line})
    for name, line in printed.items():
        if not any(p.name == name for p in record.phases):
            differences.append({"phase": name, "result_txt": None, "summary": line.value, "line": line.line})
    summary_score = summary.score
    assert summary_score is not None  # parse_capp_summary refuses a summary without one
    for key, attribute in (("BW", "bw"), ("MD", "md"), ("SCORE", "total")):
        ours = result.score[key].value.split()[0] if result.score[key].value.split() else ""
        theirs = getattr(summary_score, attribute)
        if to_float(ours) != to_float(theirs):
            differences.append({"score": key, "result_txt": ours, "summary": theirs, "line": summary_score.line})
    record.evidence.summary_cross_check = {
        "source_file": rel,
        "identical": not differences,
        "differences": differences,
    }
    if differences:
        record.warnings.append(f"{rel} differs from result.txt in {len(differences)} value(s)")


def _validity(record: IO500RunRecord, result: ResultTxt | None, summary: CappSummary | None) -> None:
    """valid = what the benchmark marked; every marker and ERROR comment is kept as a reason."""
    reasons = []
    if result is not None:
        tokens = result.score["SCORE"].value.split()
        if "[INVALID]" in tokens[1:]:
            record.valid = False
            reasons.append("result.txt: [SCORE] SCORE marked [INVALID]")
        reasons += [f"result.txt:{c.line}: ; {c.value}" for c in result.comments if c.value.upper().startswith("ERROR")]
    if summary is not None:
        for score in summary.scores:
            if score.invalid:
                if not score.extended:
                    record.valid = False
                reasons.append(f"result_summary.txt:{score.line}: [{score.tag.strip()}] marked invalid")
        reasons += [f"result_summary.txt:{p.line}: phase {p.name} marked invalid" for p in summary.phases if p.invalid]
    record.invalid_reasons = reasons


def _check_complete(record: IO500RunRecord, files: ResultSetFiles) -> None:
    """A score claimed valid needs all 12 scored phases; a file without them was cut or edited."""
    present = {p.name for p in record.phases}
    missing = [name for name in STANDARD_PHASES if name not in present]
    if missing and record.valid and (record.reported_score.total or 0) > 0:
        source = "result.txt" if files.get("result.txt") else "result_summary.txt"
        raise ParseError(
            files.rel_of_present(source),
            None,
            f"missing phases {', '.join(missing)} although the score is not marked invalid (truncated or edited file)",
        )
    if missing:
        record.evidence.missing_phases = missing


def _config(record: IO500RunRecord, files: ResultSetFiles, result: ResultTxt | None) -> None:
    config_path = files.get("config.ini")
    original_path = files.get("config-orig.ini")
    effective = parse_ini(config_path, files.rel_of(config_path)) if config_path is not None else {}
    original = parse_ini(original_path, files.rel_of(original_path)) if original_path is not None else {}
    record.config.update(effective)
    if original:
        record.config["ini_original"] = original
    sections = effective or original
    global_section = next((v for k, v in sections.items() if k.lower() == "global"), {})
    debug_section = next((v for k, v in sections.items() if k.lower() == "debug"), {})
    scc = str(global_section.get("scc", "")).strip().upper() in ("TRUE", "1")
    record.config["scc"] = scc
    record.config["rules"] = "scc" if scc else "regular"
    record.config["stonewall_time"] = to_int(debug_section.get("stonewall-time"))
    record.evidence.rules = record.config["rules"]
    record.evidence.scc = scc
    record.evidence.min_write_seconds = 30 if scc else 300
    record.evidence.stonewall_seconds = record.config["stonewall_time"]
    printed = result.header_value("config-hash") if result else ""
    if not printed or config_path is None:
        record.config_hash_status = "not_verifiable"
        return
    computed = config_hash(effective)
    record.config_hash_status = "verified" if same_hash(printed, computed) else "hash_mismatch"
    record.evidence.config_hash = {
        "printed": printed,
        "computed": computed,
        "source_file": files.rel_of(config_path),
    }
