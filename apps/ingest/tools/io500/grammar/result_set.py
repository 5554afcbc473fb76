"""``parse_result_set`` and ``parse_tree``: one IO500 result directory in, one ``IO500RunRecord`` out.

Contract: for any bytes in any file the result is a record or a ``ParseError`` naming the file (and
the line, when one is to blame). Nothing else escapes.

What the record holds beyond the numbers:

``config``
    C app: the sections of the effective ``config.ini`` as top-level keys (``global``, ``debug``,
    ``ior-easy`` ...: {option: value}) and ``ini_original`` (the sections of ``config-orig.ini``);
    bash: ``variables`` (the ``io500_*`` dump of the stdout copy, else the assignments of
    ``io500.sh``) and ``variables_source``; SC17: ``variables`` (the job-script settings). Always
    ``rules`` ("regular"/"scc"), ``scc`` (bool) and ``stonewall_time`` (seconds or None).
``info``
    ``io500_info_*`` values without the prefix, from ``io500.sh`` files, ``system-information.txt``
    and the stdout variable dump (nearer folders and the run's own dump win; template placeholders
    such as ``xxx`` dropped); ``system_information_json`` holds a parsed ``system-information.json``.
``metadata``
    From the archive layout ``Institution/System/Filesystem/Year/submission-N`` (``institution``,
    ``system``, ``filesystem``, ``year``, ``submission_id``) and from ``info`` (``storage_vendor``,
    ``filesystem_type``, ``filesystem_version``, ``lustre_version`` when the file system is Lustre or
    EXAScaler; ``institution``/``system``/``filesystem`` only when the layout gave none).
``raw_files``
    Verbatim text of small configuration and job files (``*.ini``, ``*.sh``, ``system-information.*``,
    job scripts, READMEs) of the result folder and of the folders above it up to the submission
    folder; keys are paths relative to the result folder (``io500.sh``, ``../io500.sh``).
``content_hash``
    sha256 over the sorted (name, sha256 of bytes) of the files directly in the result folder, junk
    (AppleDouble, swap files, archives) excluded: identical for the same files from a folder, a
    .tar.gz or a .zip; duplicate submissions with identical files share it.

``evidence``
    a ``RunEvidence`` (``apps.ingest.tools.io500.records``): typed evidence for the anomaly rules, each
    field documented there.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from apps.ingest.core.metadata import from_layout
from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.json_values import json_safe
from apps.ingest.tools.io500.grammar.capp import parse_capp_summary
from apps.ingest.tools.io500.grammar.common import ResultSetFiles, to_float
from apps.ingest.tools.io500.grammar.discovery import (
    classify_folder,
    find_unscoreable_submissions,
    folders_above,
    scan_tree,
    select_result_sets,
    summary_copies_above,
)
from apps.ingest.tools.io500.grammar.eras import Era, era_for_folder
from apps.ingest.tools.io500.grammar.files import (
    file_size,
    iter_lines,
    list_files,
    looks_binary,
    read_bytes,
    relative_posix,
    storable,
)
from apps.ingest.tools.io500.grammar.phases import normalise_phase_name
from apps.ingest.tools.io500.grammar.raw_facts import attach_raw_outputs
from apps.ingest.tools.io500.grammar.script import parse_script_summary
from apps.ingest.tools.io500.grammar.sysinfo import (
    declared_client_nodes,
    iter_assignments,
    parse_system_information_json,
    split_info,
)
from apps.ingest.tools.io500.records import IO500RunRecord
from apps.results.judgements.reproducibility import is_find_source
from apps.results.judgements.scoring import WRITE_PHASES, compute_extended_score, compute_io500_score
from apps.results.judgements.scoring.generations import ERA_SCRIPT

logger = logging.getLogger(__name__)

MAX_RAW_FILE_BYTES = 256 * 1024
CONFIG_FILE = re.compile(
    r"(\.ini|\.cfg|\.conf|\.sh|\.bash|\.sbatch|\.slurm|\.pbs|\.lsf|\.job|\.ya?ml|\.json)$"
    r"|^system-information|^readme|^slurm_script|^job[-_ ]?script|^jobscript|^run(it)?$|^submit",
    re.IGNORECASE,
)
JOB_SCRIPT_MARKERS = (b"#!/", b"#SBATCH", b"#PBS", b"#BSUB", b"mpirun", b"srun ")
# info keys that carry the file-system software version (client side and both server kinds)
FILESYSTEM_VERSION_KEYS = ("filesystem_version", "ds_software_version", "md_software_version")


#: What a grammar's own bug raises: the parser's safety net turns these into a ParseError naming the result set.
#: Anything else is not about the files and passes through untouched, above all an interruption from the host,
#: such as a Celery worker's soft time limit (an Exception too), which the task retries as a starved ingest:
#: reported as an internal parser error, a starved upload would fail as bad content.
GRAMMAR_BUGS = (
    ArithmeticError,
    AssertionError,
    AttributeError,
    LookupError,
    OSError,
    RuntimeError,
    TypeError,
    ValueError,
    re.error,
)


def parse_result_set(root: Path, result_dir: Path) -> IO500RunRecord:
    """Parse one result directory (as found by ``find_result_sets``) into a record."""
    root, result_dir = Path(root), Path(result_dir)
    rel = relative_posix(result_dir, root)
    try:
        return _parse(root, result_dir)
    except ParseError:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ParseError(rel, None, f"file too complex to parse ({type(exc).__name__})") from exc
    except GRAMMAR_BUGS as exc:
        # The exception's own words go to the log: they may quote scratch paths or internals.
        logger.exception("internal parser error in %s", rel)
        raise ParseError(rel, None, "internal parser error (logged for the administrators)") from exc


def parse_tree(root: Path) -> Iterator[IO500RunRecord | ParseError]:
    """Every result set below ``root`` as a record or a ParseError, then one ParseError per
    ``submission-<N>`` folder that holds nothing scoreable (io-500-gen output, scripts only)."""
    root = Path(root)
    folders, submissions = scan_tree(root) if root.is_dir() else ([], [])
    result_sets = select_result_sets(folders, root)
    for result_dir in result_sets:
        try:
            yield parse_result_set(root, result_dir)
        except ParseError as exc:
            yield exc
    for submission, reason in find_unscoreable_submissions(root, submissions, result_sets):
        yield ParseError(relative_posix(submission, root), None, reason)


def _parse(root: Path, result_dir: Path) -> IO500RunRecord:
    files = ResultSetFiles.scan(root, result_dir)
    kind = classify_folder(result_dir, list(files.files))
    if kind is None:
        raise ParseError(files.rel, None, "no IO500 result files (result.txt, result_summary.txt, io-500-summary)")
    era = era_for_folder(kind, files)
    record = era.build(files)
    _write_phase_evidence(record)
    if era.reads_raw_outputs:
        attach_raw_outputs(files, record, command_from_raw=era.commands_from_raw_outputs)
    nearby = _nearby_files(files)
    _info_and_config(record, files, nearby)
    _raw_files(record, files, nearby)
    record.content_hash = content_hash(list(files.files.values()))
    record.metadata = _metadata(record, root, result_dir)
    _compare_summary_copies(record, files)
    _scores(record, era)
    _make_json_safe(record)
    return record


def _make_json_safe(record: IO500RunRecord) -> None:
    """Non-finite floats (``inf``/``nan`` printed in damaged files) as text in the JSON-stored parts:
    JSON has no such numbers and PostgreSQL's jsonb rejects them."""
    record.evidence = replace(record.evidence, **json_safe(record.evidence.to_dict()))
    record.config = json_safe(record.config)
    record.info = json_safe(record.info)
    record.metadata = json_safe(record.metadata)
    for phase in record.phases:
        phase.details = json_safe(phase.details)


def _write_phase_evidence(record: IO500RunRecord) -> None:
    """Seconds of every write phase with the line that printed them (result.txt: the t_delta line)."""
    record.evidence.write_phases = {
        phase.name: {
            "seconds": phase.seconds,
            "printed_seconds": phase.details.get("printed_seconds", ""),
            "source_file": phase.source_file,
            "source_line": phase.details.get("seconds_line", phase.source_line),
        }
        for phase in record.phases
        if phase.name in WRITE_PHASES
    }


def _nearby_files(files: ResultSetFiles) -> list[tuple[Path, list[Path]]]:
    """The result folder and each folder above it up to its submission folder, nearest first, with their files
    (``list_files``): listed once for the readers of info and of raw files."""
    return [(files.folder, list(files.files.values()))] + [
        (folder, list_files(folder)) for folder in folders_above(files.folder, files.root)
    ]


def _info_and_config(record: IO500RunRecord, files: ResultSetFiles, nearby: list[tuple[Path, list[Path]]]) -> None:
    """io500_info_* from every source, farthest and least specific first so nearer ones win."""
    sources: list[Path] = []
    for _, listed in reversed(nearby):
        names = {p.name: p for p in listed}
        sources += [
            names[n]
            for n in sorted(names)
            if n.lower().endswith(".sh") and 0 < file_size(names[n]) <= MAX_RAW_FILE_BYTES
        ]
        sources += [names[n] for n in sorted(names) if n.lower() == "system-information.txt"]
    collected: dict[str, object] = {}  # system-information.json adds a structured value
    variables_from_script: dict[str, str] = {}
    used = []
    for path in sources:
        info, variables = split_info(iter_assignments(iter_lines(path, files.rel_of(path))))
        if info or variables:
            used.append(files.rel_of(path))
        collected.update(info)
        if path.suffix.lower() == ".sh":
            variables_from_script.update(variables)
    collected.update(record.info)  # the stdout variable dump of the run itself wins
    record.info = collected
    json_path = files.get("system-information.json")
    if json_path is not None and 0 < file_size(json_path) <= MAX_RAW_FILE_BYTES:
        parsed = parse_system_information_json(
            read_bytes(json_path, files.rel_of(json_path)).decode("utf-8", "replace")
        )
        if parsed is not None:
            record.info["system_information_json"] = parsed
            used.append(files.rel_of(json_path))
    if used:
        record.evidence.info_sources = used
    if record.era == ERA_SCRIPT and "variables" not in record.config and variables_from_script:
        record.config["variables"] = variables_from_script
        record.config["variables_source"] = "io500.sh assignments"
    declared = declared_client_nodes(record.info)
    if declared:
        record.evidence.declared_client_nodes = {"value": declared[0], "source": f"io500_info_{declared[1]}"}


def _raw_files(record: IO500RunRecord, files: ResultSetFiles, nearby: list[tuple[Path, list[Path]]]) -> None:
    for folder, listed in nearby:
        prefix = os.path.relpath(folder, files.folder).replace(os.sep, "/")
        for path in listed:
            key = storable(path.name if prefix == "." else f"{prefix}/{path.name}")
            if key in record.raw_files:
                continue
            data = _config_like(path)
            if data is not None:
                record.raw_files[key] = storable(data.decode("utf-8", errors="replace"))


def _config_like(path: Path) -> bytes | None:
    """The bytes of a configuration or job file of at most ``MAX_RAW_FILE_BYTES``, None for results, raw outputs,
    binaries and empty or larger files. Judged by the name first: most files of a result folder are raw outputs,
    never stat-ed or read."""
    name = path.name
    named = bool(CONFIG_FILE.search(name)) or is_find_source(name)
    if not named and "." in name and not name.lower().endswith(".txt"):
        return None
    if not is_find_source(name) and name.lower().startswith(
        ("result", "io-500-summary", "ior", "mdtest", "find", "mdworkbench")
    ):
        return None
    if not 0 < file_size(path) <= MAX_RAW_FILE_BYTES:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if looks_binary(data):
        return None
    if named or any(marker in data[:4096] for marker in JOB_SCRIPT_MARKERS):
        return data
    return None


def content_hash(paths: list[Path]) -> str:
    """sha256 over the sorted (name, sha256(bytes)) pairs: the identity of a result set's files."""
    digest = hashlib.sha256()
    for path in sorted(paths, key=lambda p: p.name):
        file_digest = hashlib.sha256()
        try:
            with path.open("rb") as handle:
                for chunk in iter(functools.partial(handle.read, 1 << 20), b""):
                    file_digest.update(chunk)
        except OSError:
            continue
        name = path.name.encode("utf-8", errors="surrogateescape")
        digest.update(len(name).to_bytes(4, "big") + name + file_digest.digest())
    return digest.hexdigest()


def _metadata(record: IO500RunRecord, root: Path, result_dir: Path) -> dict:
    metadata = from_layout(result_dir, root)
    info = record.info
    for key, candidates in (
        ("institution", ("institution", "institute_name")),
        ("system", ("system", "system_name")),
        ("filesystem", ("filesystem_name", "filesystem", "filesysem", "filesystem_type")),
        ("storage_vendor", ("storage_vendor", "filesystem_vendor")),
        ("filesystem_type", ("filesystem_type", "filesysem", "filesystem")),
        ("filesystem_version", ("filesystem_version",)),
    ):
        value = next((info[c].strip() for c in candidates if isinstance(info.get(c), str) and info[c].strip()), "")
        if value and key not in metadata:
            metadata[key] = value
    described = " ".join(str(metadata.get(k, "")) for k in ("filesystem", "filesystem_type", "filesystem_version"))
    if "lustre" in described.lower() or "exascaler" in described.lower():
        versions = {
            k: v
            for k, v in info.items()
            if isinstance(v, str) and v.strip() and ("lustre" in k.lower() or k in FILESYSTEM_VERSION_KEYS)
        }
        if versions:
            metadata["lustre_version"] = "; ".join(f"{k}={v}" for k, v in sorted(versions.items()))
    return metadata


def _summary_values(path: Path, rel: str) -> tuple[dict[str, tuple[str, int]], dict[str, str], int] | None:
    """Printed numbers of a summary of either grammar.

    Returns ({phase: (value, line)}, {bw, md, total}, line of the score), or None if unreadable.
    """
    try:
        summary = parse_capp_summary(path, rel)
    except ParseError:
        summary = None
    if summary is not None:
        score = summary.score
        assert score is not None  # parse_capp_summary refuses a summary without one
        phases = {normalise_phase_name(p.name): (p.value, p.line) for p in summary.phases}
        return phases, {"bw": score.bw, "md": score.md, "total": score.total}, score.line
    try:
        run = parse_script_summary(path, rel, strict=True).run
    except ParseError:
        return None
    if run is None:
        return None
    phases = {name: (p.value, p.line) for name, p in run.phases.items()}
    return phases, {"bw": run.score.bw, "md": run.score.md, "total": run.score.total}, run.score.line


def _compare_summary_copies(record: IO500RunRecord, files: ResultSetFiles) -> None:
    """Compare submission-root result_summary.txt copies above this run with the run's own numbers."""
    run_phases = {p.name: p.printed_value.split()[0] if p.printed_value.split() else "" for p in record.phases}
    run_score = record.reported_score
    run_file = (record.evidence.reported_score_printed or {}).get("source_file", files.rel)
    for copy in summary_copies_above(files.root, files.folder):
        rel = files.rel_of(copy)
        values = _summary_values(copy, rel)
        if values is None:
            record.evidence.summary_differs_from_run = {
                "source_file": rel,
                "run_file": run_file,
                "differences": [{"error": "the copy is not a readable IO500 summary"}],
            }
            record.warnings.append(f"{rel}: unreadable result_summary.txt above the run")
            continue
        phases, score, score_line = values
        differences = [
            {
                "phase": name,
                "toplevel": phases.get(name, (None, None))[0],
                "run": run_phases.get(name),
                "line": phases.get(name, (None, None))[1],
            }
            for name in sorted(set(phases) | set(run_phases))
            if to_float(phases.get(name, (None, None))[0]) != to_float(run_phases.get(name))
        ]
        differences += [
            {"score": key, "toplevel": score[key], "run": getattr(run_score, key), "line": score_line}
            for key in ("bw", "md", "total")
            if to_float(score[key]) != getattr(run_score, key)
        ]
        other_run = _run_with_same_numbers(copy, values, files) if differences else None
        if other_run:
            record.evidence.toplevel_summary = {"source_file": rel, "identical": False, "copy_of": other_run}
        elif differences:
            record.evidence.summary_differs_from_run = {
                "source_file": rel,
                "run_file": run_file,
                "toplevel_total": score["total"],
                "run_total": run_score.total,
                "differences": differences,
            }
            record.warnings.append(f"{rel} is not this run: {len(differences)} value(s) differ")
        else:
            record.evidence.toplevel_summary = {"source_file": rel, "identical": True}


def _run_with_same_numbers(copy: Path, values: tuple, files: ResultSetFiles) -> str | None:
    """Another result set of the same submission whose own summary the copy repeats (bundles)."""
    numbers = ({name: value for name, (value, _) in values[0].items()}, values[1])
    folders, _ = scan_tree(copy.parent)
    for other in select_result_sets(folders, copy.parent):
        summary = other / "result_summary.txt"
        if other == files.folder or other == copy.parent or not summary.is_file():
            continue
        found = _summary_values(summary, files.rel_of(summary))
        if found and ({name: value for name, (value, _) in found[0].items()}, found[1]) == numbers:
            return files.rel_of(other)
    return None


def _scores(record: IO500RunRecord, era: Era) -> None:
    formula = era.score_formula(record)
    record.evidence.score_rule = formula  # stored under its earlier name
    values = {p.name: p.value for p in record.phases}
    record.computed_score = compute_io500_score(values, formula=formula)
    if era.product_score_evidence is not None:
        era.product_score_evidence(record, values)
    if record.reported_extended is not None or record.evidence.mode == "extended":
        record.computed_extended = compute_extended_score(values, formula=formula)
