"""Lustre tunables: ``lctl set_param`` / ``conf_param`` settings, and whether they act on clients or servers."""

from __future__ import annotations

import re
from dataclasses import dataclass

from apps.ingest.parsers.lustre.shell import command_tail, logical_lines, shell_words, without_shell_comment

CLIENT_PREFIXES = frozenset({"osc", "mdc", "llite", "ldlm", "lmv", "lov", "mgc"})
SERVER_PREFIXES = frozenset(
    {"mdt", "mds", "mdd", "ost", "obdfilter", "ofd", "osd-ldiskfs", "osd-zfs", "osd", "osp", "lod", "mgs", "qmt"}
)
CLIENT_TUNABLE_NAMES = frozenset(
    {
        "checksums",
        "checksum_pages",
        "lru_size",
        "lru_max_age",
        "max_cached_mb",
        "max_dirty_mb",
        "max_mod_rpcs_in_flight",
        "max_pages_per_rpc",
        "max_read_ahead_mb",
        "max_read_ahead_per_file_mb",
        "max_read_ahead_whole_mb",
        "max_rpcs_in_flight",
        "short_io_bytes",
        "statahead_max",
    }
)
SERVER_TUNABLE_NAMES = frozenset(
    {
        "async_commit_count",
        "brw_size",
        "dom_lock",
        "dom_stripesize",
        "enable_remote_dir",
        "read_cache_enable",
        "readcache_max_filesize",
        "sync_journal",
        "writethrough_cache_enable",
    }
)
LCTL_COMMAND = re.compile(r"\blctl\s+(?P<verb>set_param|conf_param)(?=\s|$)")


@dataclass
class TunableInfo:
    """One parameter setting, with where it was found (a diff of two runs should show the line)."""

    parameter: str
    value: str
    scope: str  # "client", "server" or "unknown"
    source_file: str = ""
    source_line: int | None = None
    command: str = ""
    persistent: bool = False  # lctl set_param -P / conf_param: stored on the MGS
    applies_to: str = ""  # Ansible inventories: "all", "group:<name>" or "host:<name>"


def tunable_scope(parameter: str) -> str:
    """Client or server side, from the lctl device class (``osc.*.x`` -> client, ``mdt.*.x`` -> server).

    Bare names (Ansible variables such as ``ldlm_lru_size``) are judged by their leading word,
    then by a list of well-known parameter names; anything else is "unknown" rather than a guess.
    """
    name = parameter.strip().lower()
    if name.startswith("lustre_"):
        name = name[len("lustre_") :]
    head = re.split(r"[.]", name, maxsplit=1)[0]
    if "." in name:
        if head in CLIENT_PREFIXES:
            return "client"
        if head in SERVER_PREFIXES:
            return "server"
        return "unknown"
    word = name.split("_", 1)[0]
    if word in CLIENT_PREFIXES:
        return "client"
    if word in SERVER_PREFIXES:
        return "server"
    if name in CLIENT_TUNABLE_NAMES:
        return "client"
    if name in SERVER_TUNABLE_NAMES:
        return "server"
    return "unknown"


def parse_tunables(text: str, source_file: str = "") -> list[TunableInfo]:
    """Every ``lctl set_param`` / ``lctl conf_param`` setting in a script, playbook or prose.

    Commented-out lines are skipped (io500.sh templates are full of ``#lctl ...`` examples that
    were never run); several ``param=value`` pairs on one command give several tunables.
    Only lines that name ``lctl`` can hold one (``LCTL_COMMAND``): the others are not read further, and a
    text without the word is not split into lines at all (most scripts and every run's folders above it).
    """
    tunables: list[TunableInfo] = []
    if "lctl" not in text:
        return tunables
    for number, raw_line in logical_lines(text):
        if "lctl" not in raw_line:
            continue
        line = without_shell_comment(raw_line)
        for match in LCTL_COMMAND.finditer(line):
            command = command_tail(line, match.start())
            tokens = shell_words(command)[2:]
            persistent = match.group("verb") == "conf_param" or any(_is_permanent_flag(token) for token in tokens)
            for parameter, value in parameter_assignments(tokens):
                tunables.append(
                    TunableInfo(
                        parameter=parameter,
                        value=value,
                        scope=tunable_scope(parameter),
                        source_file=source_file,
                        source_line=number,
                        command=command.strip(),
                        persistent=persistent,
                    )
                )
    return tunables


def _is_permanent_flag(word: str) -> bool:
    """``-P`` (possibly bundled, ``-nP``) or ``--permanent``: the setting is stored on the MGS."""
    if word == "--permanent":
        return True
    return word.startswith("-") and not word.startswith("--") and "P" in word[1:]


def parameter_assignments(tokens: list[str]) -> list[tuple[str, str]]:
    """``a.b=c`` words; the old two-word form ``set_param a.b c`` is accepted for a single pair."""
    words = [token for token in tokens if not token.startswith("-")]
    pairs = [tuple(word.split("=", 1)) for word in words if "=" in word and not word.startswith("=")]
    if not pairs and len(words) == 2 and "." in words[0]:
        pairs = [(words[0], words[1])]
    return [(name.strip(), value.strip()) for name, value in pairs if name.strip()]


def parse_bare_tunable(line: str, source_file: str = "", source_line: int | None = None) -> list[TunableInfo]:
    """A sidecar entry: either an ``lctl set_param`` command or a bare ``param=value``."""
    if LCTL_COMMAND.search(line):
        found = parse_tunables(line, source_file)
        for tunable in found:
            tunable.source_line = source_line
        return found
    return [
        TunableInfo(
            parameter=name,
            value=value,
            scope=tunable_scope(name),
            source_file=source_file,
            source_line=source_line,
            command=line.strip(),
        )
        for name, value in parameter_assignments(shell_words(line))
    ]
