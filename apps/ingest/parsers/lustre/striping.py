"""Lustre layouts: ``lfs setstripe`` / ``setdirstripe`` / ``mkdir`` commands decoded, and which IO500
directory each one targets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.ingest.parsers.lustre.shell import (
    command_tail,
    expand_braces,
    is_integer_literal,
    logical_lines,
    shell_integer,
    shell_words,
    size_in_bytes,
    without_shell_comment,
)

LFS_COMMAND = re.compile(r"\blfs\s+(?P<verb>setstripe|setdirstripe|mkdir)(?=\s|$)")
_SETSTRIPE_VALUE_OPTIONS = {
    "-c": "stripe_count",
    "--stripe-count": "stripe_count",
    "--stripe_count": "stripe_count",
    "-S": "stripe_size",
    "-s": "stripe_size",
    "--stripe-size": "stripe_size",
    "--stripe_size": "stripe_size",
    "--size": "stripe_size",
    "-i": "start_index",
    "--stripe-index": "start_index",
    "--stripe_index": "start_index",
    "--index": "start_index",
    "-o": "ost_list",
    "--ost": "ost_list",
    "--ost-list": "ost_list",
    "-p": "pool",
    "--pool": "pool",
    "-C": "overstripe_count",
    "--overstripe-count": "overstripe_count",
    "-E": "component_end",
    "--component-end": "component_end",
    "-L": "layout",
    "--layout": "layout",
    "-z": "extension_size",
    "--extension-size": "extension_size",
    "-N": "mirror_count",
    "--mirror-count": "mirror_count",
    "-y": "yaml",
    "--yaml": "yaml",
    "-I": "component_id",
    "--comp-id": "component_id",
    "-F": "component_flags",
    "--comp-flags": "component_flags",
}
_SETDIRSTRIPE_VALUE_OPTIONS = {
    "-c": "dir_stripe_count",
    "--mdt-count": "dir_stripe_count",
    "--count": "dir_stripe_count",
    "-C": "dir_overstripe_count",
    "--mdt-overcount": "dir_overstripe_count",
    "-i": "mdt_index",
    "--mdt-index": "mdt_index",
    "--index": "mdt_index",
    "-H": "hash_type",
    "-t": "hash_type",
    "--mdt-hash": "hash_type",
    "--hash-type": "hash_type",
    "-X": "max_inherit",
    "--max-inherit": "max_inherit",
    "--max-inherit-rr": "max_inherit_rr",
    "-o": "mode",
    "--mode": "mode",
    "-T": "mdt_count_total",
}
_INHERIT_FLAGS = {"-D", "--default"}


@dataclass
class StripingInfo:
    """One ``lfs setstripe`` / ``lfs setdirstripe`` / ``lfs mkdir`` command, decoded."""

    path: str
    path_role: str  # ior_easy, ior_hard, mdtest_easy, mdtest_hard, workdir or ""
    command: str
    stripe_count: int | None = None  # -1 = all OSTs; with overstriping, the overstripe count
    stripe_size: int | None = None  # bytes
    overstriping: bool = False
    dir_stripe_count: int | None = None  # -1 = all MDTs
    inherited: bool = False  # -D: a default layout for what is created below
    start_index: str = ""  # -i of setstripe (OST) or of setdirstripe (MDT list)
    hash_type: str = ""
    pool: str = ""
    data_on_mdt_bytes: int | None = None  # size of a "-L mdt" component (DoM)
    options: dict[str, str] = field(default_factory=dict)
    source_file: str = ""
    source_line: int | None = None


def parse_striping(text: str, source_file: str = "") -> list[StripingInfo]:
    """Every ``lfs setstripe`` / ``setdirstripe`` / ``mkdir`` command that was not commented out.

    Only lines that name ``lfs`` can hold one (``LFS_COMMAND``): the others are not read further, and a text
    without the word is not split into lines at all."""
    layouts: list[StripingInfo] = []
    if "lfs" not in text:
        return layouts
    for number, raw_line in logical_lines(text):
        if "lfs" not in raw_line:
            continue
        line = without_shell_comment(raw_line)
        for match in LFS_COMMAND.finditer(line):
            command = command_tail(line, match.start())
            layouts.extend(_striping_from_command(command.strip(), match.group("verb"), source_file, number))
    return layouts


def _striping_from_command(command: str, verb: str, source_file: str, source_line: int) -> list[StripingInfo]:
    tokens = shell_words(command)[2:]
    directory_layout = verb != "setstripe"
    value_options = _SETDIRSTRIPE_VALUE_OPTIONS if directory_layout else _SETSTRIPE_VALUE_OPTIONS
    options: dict[str, str] = {}
    components: list[dict[str, str]] = [{}]
    paths: list[str] = []
    inherited = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        name, attached = _split_option(token, value_options)
        if name in _INHERIT_FLAGS:
            inherited = True
        elif name in value_options:
            if attached is None:
                index += 1
                attached = tokens[index] if index < len(tokens) else ""
            key = value_options[name]
            if key == "component_end" and "component_end" in components[-1]:
                components.append({})
            components[-1][key] = attached
            options[key] = attached
        elif token.startswith("-") and not is_integer_literal(token):
            options[token.lstrip("-")] = "true"
        else:
            paths.append(token)
        index += 1
    return [
        _striping_info(path, command, directory_layout, inherited, options, components, source_file, source_line)
        for path in expand_braces(paths[-1] if paths else "")
    ]


def _split_option(token: str, value_options: dict[str, str]) -> tuple[str, str | None]:
    """``--stripe-count=4`` -> ("--stripe-count", "4"); ``-c4`` -> ("-c", "4"); ``-c`` -> ("-c", None)."""
    if token.startswith("--"):
        name, sep, value = token.partition("=")
        return name, value if sep else None
    if token.startswith("-") and len(token) > 2 and token[:2] in value_options and not is_integer_literal(token):
        return token[:2], token[2:]
    return token, None


def _striping_info(
    path: str,
    command: str,
    directory_layout: bool,
    inherited: bool,
    options: dict[str, str],
    components: list[dict[str, str]],
    source_file: str,
    source_line: int,
) -> StripingInfo:
    info = StripingInfo(
        path=path,
        path_role=path_role(path),
        command=command,
        inherited=inherited,
        options=dict(options),
        source_file=source_file,
        source_line=source_line,
        hash_type=options.get("hash_type", ""),
        pool=options.get("pool", ""),
    )
    if directory_layout:
        overcount = options.get("dir_overstripe_count")
        info.dir_stripe_count = shell_integer(overcount or options.get("dir_stripe_count", ""))
        info.overstriping = overcount is not None
        info.start_index = options.get("mdt_index", "")
        return info
    for component in components:
        if component.get("layout", "").lower() == "mdt":
            info.data_on_mdt_bytes = size_in_bytes(component.get("component_end", ""))
    data_components = [component for component in components if component.get("layout", "").lower() != "mdt"]
    first = data_components[0] if data_components else {}
    overcount = first.get("overstripe_count")
    info.overstriping = overcount is not None
    info.stripe_count = shell_integer(overcount or first.get("stripe_count", ""))
    info.stripe_size = size_in_bytes(first.get("stripe_size", ""))
    info.start_index = first.get("start_index", "")
    return info


def path_role(path: str) -> str:
    """Which IO500 directory a path is, from names like ``$io500_ior_hard`` or ``$workdir/mdtest-easy``.

    "workdir" is only the data directory itself; an unrecognised path below it has no role.
    """
    normalised = path.lower().replace("-", "_")
    for pattern, role in (
        (r"ior_?easy", "ior_easy"),
        (r"ior_?hard", "ior_hard"),
        (r"(?:mdtest|mdt)_?easy", "mdtest_easy"),
        (r"(?:mdtest|mdt)_?hard", "mdtest_hard"),
        (r"ior_?rnd", "ior_rnd"),
        (r"(?:mdtest|mdt)_?rnd", "mdtest_rnd"),
        (r"(?:workdir|datadir)\}?/?$", "workdir"),
    ):
        if re.search(pattern, normalised):
            return role
    return ""
