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
# A sidecar is a few lines of hand-written keys (the samples: under 2 KB); anything far larger is not one.
SIDECAR_MAX_BYTES = 64 * 1024
# Who ran it, on what: the keys every source may give (an option, a sidecar, the result files, the archive layout).
METADATA_KEYS = (
    "institution",
    "system",
    "filesystem",
    "storage_vendor",
    "client_nodes",
    "server_count",
    "year",
    "submission_id",
    "series",
    "notes",
    "client_network",
    "client_memory",
)
# What each known sidecar key holds; a value of another shape is refused naming the file, key and line.
SIDECAR_SHAPES = {
    **dict.fromkeys(METADATA_KEYS, "scalar"),
    "lustre": "mapping",
    "reproducibility": "mapping",
    "tunables": "list",
    "striping": "list",
}
_NODE_SHAPES = {"scalar": yaml.ScalarNode, "mapping": yaml.MappingNode, "list": yaml.SequenceNode}
_SHAPE_WORDS = {"scalar": "a single value", "mapping": "a mapping of keys", "list": "a list"}
# A submission folder of the public archive; the bound keeps the number an id, not a denial of service.
SUBMISSION_DIR = re.compile(r"^submission-(\d{1,12})$")
YEAR_DIR = re.compile(r"^(19|20)\d\d$")
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
LINK_GBIT = {
    "sdr": 10,
    "ddr": 20,
    "qdr": 40,
    "fdr": 56,
    "edr": 100,
    "hdr": 200,
    "ndr": 400,
    "xdr": 800,
    "omnipath": 100,
    "opa": 100,
}
# Numbers are bounded in length and may not start inside a longer one: "\d+" searched through a long
# run of digits is quadratic (every start, every length), and no link or memory size has more digits.
_COUNT = r"(?:(?<![\d.])(?P<count>\d{1,6})\s*[x×*]\s*)?"
_SPEED = re.compile(
    r"(?=\d)" + _COUNT + r"(?<![\d.])(?P<value>\d{1,9}(?:\.\d{1,9})?)\s*(?P<unit>gbe|gb/s|gbit/s|gbit|gbps|g\b)",
    re.IGNORECASE,
)
_LINK = re.compile(
    _COUNT + r"(?:ib[- ]?|infiniband[- ]?)?(?P<link>sdr|ddr|qdr|fdr|edr|hdr|ndr|xdr|omnipath|omni-path|opa)\b",
    re.IGNORECASE,
)
_MEMORY = re.compile(r"(?<![\d.])(?P<value>\d{1,9}(?:\.\d{1,9})?)\s*(?P<unit>[kmgtp])i?b?\b", re.IGNORECASE)
_MEMORY_UNITS = {"k": 2.0**-20, "m": 2.0**-10, "g": 1.0, "t": 2.0**10, "p": 2.0**20}


class SidecarError(ValueError):
    """An ioboard.yaml that cannot be read; the message names the file and line."""


def clean_value(value) -> str:
    text = str(value if value is not None else "").strip().strip("'\"").strip()
    return "" if text.casefold() in PLACEHOLDERS else text


def yaml_alias_line(text: str) -> int | None:
    """The 1-based line of the first YAML anchor or alias in ``text``, or None (also for text that is not YAML).

    Read from the parser's event stream, before any node is composed: nested aliases (the "billion
    laughs") make a few hundred bytes stand for gigabytes once anything walks or copies the result.
    ioboard's YAML files never need them, so they are refused rather than budgeted.
    """
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                return event.start_mark.line + 1
    except yaml.YAMLError:
        return None
    return None


def read_sidecar(path: Path) -> dict:
    """The keys of one ``ioboard.yaml``; a SidecarError names the file and line of anything refused:
    more than ``SIDECAR_MAX_BYTES``, anchors or aliases, YAML that does not parse, a known key of the
    wrong shape (``SIDECAR_SHAPES``)."""
    try:
        size = path.stat().st_size
        if size > SIDECAR_MAX_BYTES:
            raise SidecarError(f"{path}: {size} bytes is over the sidecar limit of {SIDECAR_MAX_BYTES} bytes")
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise SidecarError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    alias_line = yaml_alias_line(text)
    if alias_line is not None:
        raise SidecarError(f"{path}:{alias_line}: YAML anchors and aliases (& and *) are not accepted in a sidecar")
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise SidecarError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise SidecarError(f"{path}:1: expected a mapping of keys (institution, system, ...)")
    check_sidecar_text(root, path, key="")
    check_sidecar_shapes(root, path)
    return loaded


def check_sidecar_text(node: yaml.Node, path: Path, key: str) -> None:
    """Every key and value is text a database column can store: YAML's escapes (``\\0``, ``\\x00``,
    ``\\ud800``) can write a NUL or a lone surrogate, which PostgreSQL refuses when the run is written, long
    after the file and line are known. Refused here, naming the key (the enclosing one for a list item)."""
    if isinstance(node, yaml.ScalarNode):
        if not storable_text(node.value):
            raise SidecarError(
                f"{path}:{node.start_mark.line + 1}: {key!r} holds a NUL or an unpaired surrogate character "
                "(a \\0, \\x00 or \\uD800 escape?), which no stored text may"
            )
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            check_sidecar_text(item, path, key)
    elif isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            name = key_node.value if isinstance(key_node, yaml.ScalarNode) else key
            check_sidecar_text(key_node, path, name)
            check_sidecar_text(value_node, path, name)


def storable_text(text: str) -> bool:
    return "\x00" not in text and not any("\ud800" <= char <= "\udfff" for char in text)


def check_sidecar_shapes(root: yaml.MappingNode, path: Path) -> None:
    """Each known key of the sidecar's top mapping holds its shape (``SIDECAR_SHAPES``); a list holds single values."""
    for key_node, value_node in root.value:
        shape = SIDECAR_SHAPES.get(key_node.value) if isinstance(key_node, yaml.ScalarNode) else None
        if shape is None:
            continue
        where = f"{path}:{value_node.start_mark.line + 1}"
        if not isinstance(value_node, _NODE_SHAPES[shape]):
            raise SidecarError(f"{where}: {key_node.value!r} must be {_SHAPE_WORDS[shape]}")
        if shape == "list":
            for item in value_node.value:
                if not isinstance(item, yaml.ScalarNode):
                    raise SidecarError(
                        f"{path}:{item.start_mark.line + 1}: each item of {key_node.value!r} "
                        "must be a single command line"
                    )


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


def resolve_metadata(
    *,
    overrides: dict | None,
    sidecar: dict | None,
    info: dict | None,
    record_metadata: dict | None,
    layout: dict | None,
) -> dict:
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
