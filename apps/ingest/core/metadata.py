"""Who ran it, on what: resolving institution, system and file system for a result directory.

Sources, highest priority first (the README documents them):
1. explicit options (command line `--institution`..., API upload fields);
2. an `ioboard.yaml` sidecar in the result directory or any folder above it, up to the ingested root;
3. values inside the result files (`io500_info_*` variables, `system-information.txt`);
4. the public IO500 archive layout `Institution/System/Filesystem/Year/submission-N` below the ingested root.

Plain Python: no Django imports, so the rules can be tested without a database.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import yaml

SIDECAR_NAMES = ("ioboard.yaml", "ioboard.yml")
# A submission folder of the public archive; the bound keeps the number an id, not a denial of service.
SUBMISSION_DIR = re.compile(r"^submission-(\d{1,12})$")
YEAR_DIR = re.compile(r"^(19|20)\d\d$")
METADATA_KEYS = (
    "institution", "system", "filesystem", "storage_vendor", "client_nodes", "server_count", "year",
    "submission_id", "series", "notes", "client_network", "client_memory",
)
# Values the info-creator templates ship with, which mean "not filled in".
PLACEHOLDERS = {"", "xxx", "xx", "x", "none", "null", "n/a", "na", "unknown", "whatever", "todo", "tbd", "-"}

INFO_KEYS = {
    "institution": ("institution", "institute_name", "institute"),
    "system": ("system", "system_name"),
    "filesystem": ("filesystem_name", "filesystem_type", "filesystem"),
    "storage_vendor": ("storage_vendor", "vendor"),
    "server_count": ("ds_nodes", "num_data_server_nodes"),
    "client_network": ("client_network",),
    "client_memory": ("client_memory", "client_memory_capacity", "client_volatile_memory_capacity"),
}
# Link speeds per port of the InfiniBand generations (4x links) and Omni-Path, in Gbit/s
LINK_GBIT = {"sdr": 10, "ddr": 20, "qdr": 40, "fdr": 56, "edr": 100, "hdr": 200, "ndr": 400, "xdr": 800,
             "omnipath": 100, "opa": 100}
_COUNT = r"(?:(?P<count>\d+)\s*[x×*]\s*)?"
_SPEED = re.compile(_COUNT + r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>gbe|gb/s|gbit/s|gbit|gbps|g\b)", re.IGNORECASE)
_LINK = re.compile(
    _COUNT + r"(?:ib[- ]?|infiniband[- ]?)?(?P<link>sdr|ddr|qdr|fdr|edr|hdr|ndr|xdr|omnipath|omni-path|opa)\b",
    re.IGNORECASE,
)
_MEMORY = re.compile(r"(?P<value>\d+(?:\.\d+)?)\s*(?P<unit>[kmgtp])i?b?\b", re.IGNORECASE)
_MEMORY_UNITS = {"k": 2.0**-20, "m": 2.0**-10, "g": 1.0, "t": 2.0**10, "p": 2.0**20}


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
    """``Institution/System/Filesystem/Year/submission-N``, read from the path below the ingested root.

    Only folders below ``root`` count: folders above it were named by whoever stored the upload, not
    by the submitter, so they never name an institution. The year and submission number are read
    whenever the path ends in ``Year/submission-N``; institution, system and file system only when
    at least three folders stand above the year (the file system may itself span folders,
    ``EPCC/Archer/work/fs2``, and is joined back with "/"). The submission id is text, as
    ``Run.submission_id`` stores it.
    """
    try:
        parts = PurePosixPath(result_dir.resolve().relative_to(root.resolve()).as_posix()).parts
    except ValueError:
        return {}
    submission_index = next((i for i in range(len(parts) - 1, -1, -1) if SUBMISSION_DIR.match(parts[i])), None)
    if submission_index is None:
        return {}
    found: dict = {"submission_id": SUBMISSION_DIR.match(parts[submission_index]).group(1)}
    if submission_index >= 1 and YEAR_DIR.match(parts[submission_index - 1]):
        found["year"] = int(parts[submission_index - 1])
        head = parts[: submission_index - 1]
        if len(head) >= 3:
            found.update(institution=head[0], system=head[1], filesystem="/".join(head[2:]))
    return found


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


def network_gbit(text) -> float | None:
    """Client network bandwidth per node in Gbit/s: ``100GbE``, ``2x HDR``, ``200 Gb/s``, ``IB-EDR``.

    None for names without a speed (``Ethernet``, ``InfiniBand``): a bandwidth must be declared, not guessed.
    """
    value = clean_value(text)
    speed = _SPEED.search(value)
    if speed:
        return float(speed.group("value")) * int(speed.group("count") or 1)
    link = _LINK.search(value)
    if link:
        name = link.group("link").lower().replace("-", "")
        return float(LINK_GBIT[name]) * int(link.group("count") or 1)
    return None


def memory_gib(text) -> float | None:
    """Client memory per node in GiB: ``512GiB``, ``384 GB``, ``1.5T`` (GB read as GiB, as vendors mean it)."""
    match = _MEMORY.search(clean_value(text))
    if not match:
        return None
    return float(match.group("value")) * _MEMORY_UNITS[match.group("unit").lower()]
