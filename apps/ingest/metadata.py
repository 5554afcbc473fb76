"""Who ran it, on what: resolving institution, system and file system for a result directory.

Sources, highest priority first (the README documents them):
1. explicit options (command line `--institution`..., API upload fields);
2. an `ioboard.yaml` sidecar in the result directory or any folder above it, up to the ingested root;
3. values inside the result files (`io500_info_*` variables, `system-information.txt`);
4. the public IO500 archive layout `Institution/System/Filesystem/Year/submission-N`.

Plain Python: no Django imports, so the rules can be tested without a database.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml

SIDECAR_NAMES = ("ioboard.yaml", "ioboard.yml")
SUBMISSION_DIR = re.compile(r"^submission-(\d+)$")
YEAR_DIR = re.compile(r"^(19|20)\d\d$")
METADATA_KEYS = (
    "institution", "system", "filesystem", "storage_vendor", "client_nodes", "server_count", "year",
    "submission_id", "series", "notes",
)
# Values the info-creator templates ship with, which mean "not filled in".
PLACEHOLDERS = {"", "xxx", "xx", "x", "none", "null", "n/a", "na", "unknown", "whatever", "todo", "tbd", "-"}

INFO_KEYS = {
    "institution": ("institution", "institute_name", "institute"),
    "system": ("system", "system_name"),
    "filesystem": ("filesystem_name", "filesystem_type", "filesystem"),
    "storage_vendor": ("storage_vendor", "vendor"),
    "server_count": ("ds_nodes", "num_data_server_nodes"),
}


class SidecarError(ValueError):
    """An ioboard.yaml that cannot be read; the message names the file and line."""


def clean_value(value) -> str:
    text = str(value if value is not None else "").strip().strip("'\"").strip()
    return "" if text.casefold() in PLACEHOLDERS else text


def read_sidecar(path: Path) -> dict:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise SidecarError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise SidecarError(f"{path}:1: expected a mapping of keys (institution, system, ...)")
    return loaded


def find_sidecar(result_dir: Path, root: Path) -> dict:
    """The nearest sidecar at or above the result directory, not above the ingested root.

    Keys of nearer sidecars win over keys of farther ones, so a campaign folder can set the system
    once and a run folder can still add its own Lustre notes.
    """
    merged: dict = {}
    root = root.resolve()
    folder = result_dir.resolve()
    chain = []
    while True:
        chain.append(folder)
        if folder == root or folder.parent == folder:
            break
        folder = folder.parent
    for folder in reversed(chain):
        for name in SIDECAR_NAMES:
            candidate = folder / name
            if candidate.is_file():
                merged.update(read_sidecar(candidate))
    return merged


def from_layout(result_dir: Path, root: Path) -> dict:
    """Institution/System/Filesystem/Year/submission-N, read from the path (relative first)."""
    resolved = result_dir.resolve()
    try:
        relative_parts = PurePosixPath(resolved.relative_to(root.resolve()).as_posix()).parts
    except ValueError:
        relative_parts = ()
    for parts, trust_depth in ((relative_parts, True), (resolved.parts, False)):
        found = _layout_from_parts(list(parts), trust_depth)
        if found:
            return found
    return {}


def _layout_from_parts(parts: list[str], trust_depth: bool) -> dict:
    submission_index = next((i for i in range(len(parts) - 1, -1, -1) if SUBMISSION_DIR.match(parts[i])), None)
    if submission_index is None or submission_index < 4 or not YEAR_DIR.match(parts[submission_index - 1]):
        return {}
    year_index = submission_index - 1
    if trust_depth:
        institution, system, *filesystem = parts[:year_index]
    else:
        institution, system, *filesystem = parts[year_index - 3:year_index]
    if not filesystem:
        return {}
    return {
        "institution": institution,
        "system": system,
        "filesystem": " / ".join(filesystem),
        "year": int(parts[year_index]),
        "submission_id": SUBMISSION_DIR.match(parts[submission_index]).group(1),
    }


def from_info(info: dict) -> dict:
    """System description values from io500_info_* variables (prefix optional)."""
    normalised = {}
    for key, value in (info or {}).items():
        short = key.removeprefix("io500_info_").lower().replace("-", "_")
        normalised.setdefault(short, value)
    found = {}
    for field, candidates in INFO_KEYS.items():
        for candidate in candidates:
            value = clean_value(normalised.get(candidate))
            if value:
                found[field] = value
                break
    if "server_count" in found:
        digits = re.match(r"\d+", found["server_count"])
        if digits:
            found["server_count"] = int(digits.group())
        else:
            del found["server_count"]
    return found


def resolve_metadata(*, overrides: dict | None, sidecar: dict | None, info: dict | None,
                     record_metadata: dict | None, layout: dict | None) -> dict:
    """Merge the four sources, highest priority first, dropping empty and placeholder values."""
    merged: dict = {}
    for source in (overrides, sidecar, from_info(info or {}), record_metadata, layout):
        for key in METADATA_KEYS:
            value = (source or {}).get(key)
            if key not in merged and value not in (None, "") and (not isinstance(value, str) or clean_value(value)):
                merged[key] = clean_value(value) if isinstance(value, str) else value
    return merged
