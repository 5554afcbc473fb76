"""Lustre provenance: build (versions, base commit, patches), tunables and striping, as plain data.

Two Lustre runs are only comparable when one knows what differed: the Cambridge ISC19 run
was not "Lustre 2.12" but a master snapshot plus five patches and a revert, with client lock
caches set to 4 million entries. These functions turn the places where submitters record
that (release-note style text, ``lctl set_param`` / ``lfs setstripe`` lines in io500.sh or a
job script, an Ansible inventory, ``io500_info_*`` fields, an ``ioboard.yaml`` sidecar) into
dataclasses that can be stored and diffed. They never raise on odd input: provenance is
best-effort and an unparsable line is simply not a tunable.
"""

from __future__ import annotations

import ast
import operator
import re
import shlex
from dataclasses import dataclass, field

import yaml

from apps.ingest.parsers.records import ParseError

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

_VERSION = (
    r"(?:v?\d+\.\d+(?:\.\d+)*(?:[-_][\w.]+)?"
    r"|'[^'\n]+'(?:\s*branch)?(?:\s*\+\s*patches)?"
    r"|master(?:\s*branch)?(?:\s*\+\s*patches)?)"
)
_SERVER_VERSION = re.compile(rf"\bservers?\b[^:\n]{{0,40}}:\s*(?:lustre\s+)?(?P<version>{_VERSION})", re.I)
_CLIENT_VERSION = re.compile(rf"\bclients?\b[^:\n]{{0,40}}:\s*(?:lustre\s+)?(?P<version>{_VERSION})", re.I)
_LUSTRE_VERSION = re.compile(rf"\blustre\s+(?P<version>{_VERSION})", re.I)
_BASE_COMMIT = re.compile(r"base\s+commit\s*[:=]?\s*(?P<commit>[0-9a-f]{7,40})\b(?:\s*-\s*(?P<text>[^\n]*))?", re.I)
_TAG_IN_PARENS = re.compile(r"\(\s*tag:\s*(?P<tag>[^)]+?)\s*\)", re.I)
_TAG_WORD = re.compile(r"\btag\s+(?P<tag>v?\d[\w.]*)", re.I)
_PATCH_HEAD = re.compile(
    r"(?<![\w/#])(?P<commit>[0-9a-f]{7,40})\s+(?P<revert>Revert\s+\"?)?(?P<ticket>LU-\d+)\b\s*", re.I
)
_REVIEW_URL = re.compile(r"https?://review\.whamcloud\.com/[^\s)\]>,]*\d+/?")
_APPLIED_HEADER = re.compile(r"^\s*patch(?:es)?\s+applied\b", re.I)
_REVERTED_HEADER = re.compile(r"^\s*(?:commits?\s+reverted|reverted(?:\s+commits?)?|reverts?)\b", re.I)

_LCTL = re.compile(r"\blctl\s+(?P<verb>set_param|conf_param)(?=\s|$)")
_LFS = re.compile(r"\blfs\s+(?P<verb>setstripe|setdirstripe|mkdir)(?=\s|$)")
_JINJA = re.compile(r"\{\{\s*(.*?)\s*\}\}")
_COMMAND_END = {";", "&&", "||", "|", "&"}
_SHELL_ARITHMETIC = re.compile(r"\$\(\((.*?)\)\)")
_BRACES = re.compile(r"\{([^{},]*,[^{}]*)\}")

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

_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.floordiv,
}


@dataclass
class PatchInfo:
    """One patch on top of the base commit (or one commit taken out of it)."""

    commit: str
    ticket: str  # "LU-12043"
    component: str  # "llite", "llite, readahead", "mdt" ...
    summary: str
    review_url: str = ""
    status: str = "applied"  # "applied" or "reverted"


@dataclass
class LustreBuildInfo:
    """What Lustre was running: released versions, or a base commit plus patches."""

    server_version: str = ""
    client_version: str = ""
    base_tag: str = ""
    base_commit: str = ""
    patches: list[PatchInfo] = field(default_factory=list)
    notes: str = ""
    base_description: str = ""  # "New tag 2.12.54", as written after the base commit
    unmatched_review_urls: list[str] = field(default_factory=list)


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


@dataclass
class LustreProvenance:
    """Everything a sidecar (or a whole submission) says about Lustre."""

    build: LustreBuildInfo = field(default_factory=LustreBuildInfo)
    tunables: list[TunableInfo] = field(default_factory=list)
    striping: list[StripingInfo] = field(default_factory=list)


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


def parse_version_text(text: str) -> LustreBuildInfo:
    """Server and client versions from prose like ``Servers: Lustre 2.12.2  Clients: Lustre 2.10.7``.

    A single ``Lustre 2.x`` without a role is taken as the server version: that is what a file
    system's version usually means in a system description.
    """
    info = LustreBuildInfo()
    server = _SERVER_VERSION.search(text)
    client = _CLIENT_VERSION.search(text)
    if server:
        info.server_version = _clean_version(server.group("version"))
    if client:
        info.client_version = _clean_version(client.group("version"))
    if not server and not client:
        lone = _LUSTRE_VERSION.search(text)
        if lone:
            info.server_version = _clean_version(lone.group("version"))
    return info


def _clean_version(version: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"['\"]", "", version)).strip()


def build_info_from_system_information(info: dict[str, str]) -> LustreBuildInfo:
    """Versions from ``io500_info_*`` fields (system-information.txt or the bash variable dump).

    ``filesystem_version`` describes the file system, i.e. the servers; explicit client or
    server software fields win when present. Values are kept as written except that a
    ``... Lustre 2.11-56 ...`` phrase is reduced to its version.
    """
    fields = {key.lower().removeprefix("io500_info_"): str(value).strip().strip("'\"") for key, value in info.items()}
    build = LustreBuildInfo()
    for key, value in fields.items():
        if not value or value.lower() in {"xxx", "unknown", "n/a"}:
            continue
        if "client" in key and "software_version" in key:
            build.client_version = build.client_version or _lustre_version_in(value)
        elif ("server" in key or key.startswith(("md_", "ds_", "mds_", "oss_"))) and "software_version" in key:
            build.server_version = build.server_version or _lustre_version_in(value)
    if not build.server_version and fields.get("filesystem_version"):
        build.server_version = _lustre_version_in(fields["filesystem_version"])
    return build


def _lustre_version_in(value: str) -> str:
    match = _LUSTRE_VERSION.search(value)
    return _clean_version(match.group("version")) if match else value


def parse_release_notes(text: str) -> LustreBuildInfo:
    """Base commit, tag, applied and reverted patches and Gerrit links from release-note prose.

    Patch entries are ``<hash> LU-<n> <component>: <summary>``; several may share a line (text
    pasted from slides does that). A review URL inside an entry belongs to it; URLs listed on
    their own are given, in order, to the patches still without one only when the counts
    agree, otherwise they are kept in ``unmatched_review_urls``.
    """
    build = parse_version_text(text)
    build.notes = text
    base = _BASE_COMMIT.search(text)
    if base:
        build.base_commit = base.group("commit")
        build.base_description = (base.group("text") or "").strip()
        build.base_tag = _base_tag(build.base_description)
    status = "applied"
    orphan_urls: list[str] = []
    for line in text.splitlines():
        if _APPLIED_HEADER.search(line):
            status = "applied"
        elif _REVERTED_HEADER.search(line):
            status = "reverted"
        if base and base.group("commit") in line:
            continue
        heads = list(_PATCH_HEAD.finditer(line))
        if not heads:
            orphan_urls.extend(url.rstrip("/") for url in _REVIEW_URL.findall(line))
            continue
        for index, head in enumerate(heads):
            end = heads[index + 1].start() if index + 1 < len(heads) else len(line)
            build.patches.append(_patch_from_segment(head, line[head.end() : end], status))
    _assign_orphan_urls(build, orphan_urls)
    return build


def _base_tag(description: str) -> str:
    """``(tag: v2 12 54)`` -> ``v2_12_54``: git tags hold no blanks, so blanks are lost underscores."""
    match = _TAG_IN_PARENS.search(description) or _TAG_WORD.search(description)
    if not match:
        return ""
    return re.sub(r"\s+", "_", match.group("tag").strip())


def _patch_from_segment(head: re.Match, rest: str, status: str) -> PatchInfo:
    urls = _REVIEW_URL.findall(rest)
    for url in urls:
        rest = rest.replace(url, " ")
    rest = re.sub(r"[\s\-–—]+$", "", rest).strip()
    component, _, summary = rest.partition(":") if ":" in rest else ("", "", rest)
    if head.group("revert"):
        status = "reverted"
        summary = summary.rstrip('"')
    return PatchInfo(
        commit=head.group("commit"),
        ticket=head.group("ticket").upper(),
        component=component.strip(),
        summary=summary.strip(),
        review_url=urls[0].rstrip("/") if urls else "",
        status=status,
    )


def _assign_orphan_urls(build: LustreBuildInfo, urls: list[str]) -> None:
    known = {patch.review_url for patch in build.patches}
    urls = [url for url in dict.fromkeys(urls) if url not in known]
    waiting = [patch for patch in build.patches if not patch.review_url and patch.status == "applied"]
    if urls and len(urls) == len(waiting):
        for patch, url in zip(waiting, urls, strict=True):
            patch.review_url = url
    else:
        build.unmatched_review_urls = urls


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash-continued lines; each logical line keeps the number of its first line."""
    result: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        result.append((start, pending + line))
        pending = ""
    if pending:
        result.append((start, pending))
    return result


def _without_shell_comment(line: str) -> str:
    """Drop a ``# ...`` comment: a ``#`` at a word start and outside quotes, as the shell reads it.

    Comment text is full of command-like prose (``#e.g., -E to keep precreated files using
    lfs setstripe``) and commented-out examples that were never run.
    """
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def _command_tail(line: str, start: int) -> str:
    """The text of a command starting at ``start``, cut at the closing quote when it sits inside one."""
    before = line[:start]
    for quote in ('"', "'"):
        if before.count(quote) % 2 == 1:
            end = line.find(quote, start)
            return line[start:end] if end != -1 else line[start:]
    return line[start:]


def _tokens(command: str) -> list[str]:
    """Shell words of one command, stopping at ``;``, ``&&``, ``||``, pipes and redirections."""
    command = _JINJA.sub(lambda match: "{{" + match.group(1).replace(" ", "") + "}}", command)
    command = _SHELL_ARITHMETIC.sub(lambda match: "$((" + re.sub(r"\s+", "", match.group(1)) + "))", command)
    try:
        words = shlex.split(command, posix=True)
    except ValueError:
        words = [word.strip("'\"") for word in command.split()]
    tokens = []
    for word in words:
        if word in _COMMAND_END:
            break
        if re.match(r"^\d*[<>]", word):
            break
        tokens.append(word)
    return tokens


def parse_tunables(text: str, source_file: str = "") -> list[TunableInfo]:
    """Every ``lctl set_param`` / ``lctl conf_param`` setting in a script, playbook or prose.

    Commented-out lines are skipped (io500.sh templates are full of ``#lctl ...`` examples that
    were never run); several ``param=value`` pairs on one command give several tunables.
    """
    tunables: list[TunableInfo] = []
    for number, raw_line in _logical_lines(text):
        line = _without_shell_comment(raw_line)
        for match in _LCTL.finditer(line):
            command = _command_tail(line, match.start())
            tokens = _tokens(command)[2:]
            persistent = match.group("verb") == "conf_param" or any(_is_permanent_flag(token) for token in tokens)
            for parameter, value in _parameter_assignments(tokens):
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


def _parameter_assignments(tokens: list[str]) -> list[tuple[str, str]]:
    """``a.b=c`` words; the old two-word form ``set_param a.b c`` is accepted for a single pair."""
    words = [token for token in tokens if not token.startswith("-")]
    pairs = [tuple(word.split("=", 1)) for word in words if "=" in word and not word.startswith("=")]
    if not pairs and len(words) == 2 and "." in words[0]:
        pairs = [(words[0], words[1])]
    return [(name.strip(), value.strip()) for name, value in pairs if name.strip()]


def parse_bare_tunable(line: str, source_file: str = "", source_line: int | None = None) -> list[TunableInfo]:
    """A sidecar entry: either an ``lctl set_param`` command or a bare ``param=value``."""
    if _LCTL.search(line):
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
        for name, value in _parameter_assignments(_tokens(line))
    ]


def parse_striping(text: str, source_file: str = "") -> list[StripingInfo]:
    """Every ``lfs setstripe`` / ``setdirstripe`` / ``mkdir`` command that was not commented out."""
    layouts: list[StripingInfo] = []
    for number, raw_line in _logical_lines(text):
        line = _without_shell_comment(raw_line)
        for match in _LFS.finditer(line):
            command = _command_tail(line, match.start())
            layouts.extend(_striping_from_command(command.strip(), match.group("verb"), source_file, number))
    return layouts


def _striping_from_command(command: str, verb: str, source_file: str, source_line: int) -> list[StripingInfo]:
    tokens = _tokens(command)[2:]
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
        elif token.startswith("-") and not _is_number(token):
            options[token.lstrip("-")] = "true"
        else:
            paths.append(token)
        index += 1
    return [
        _striping_info(path, command, directory_layout, inherited, options, components, source_file, source_line)
        for path in _expand_braces(paths[-1] if paths else "")
    ]


def _split_option(token: str, value_options: dict[str, str]) -> tuple[str, str | None]:
    """``--stripe-count=4`` -> ("--stripe-count", "4"); ``-c4`` -> ("-c", "4"); ``-c`` -> ("-c", None)."""
    if token.startswith("--"):
        name, sep, value = token.partition("=")
        return name, value if sep else None
    if token.startswith("-") and len(token) > 2 and token[:2] in value_options and not _is_number(token):
        return token[:2], token[2:]
    return token, None


def _is_number(token: str) -> bool:
    return bool(re.fullmatch(r"-?\d+", token))


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


def _expand_braces(path: str) -> list[str]:
    """Shell brace expansion of one level, as in ``$workdir/mdtest-{easy,hard}``."""
    match = _BRACES.search(path)
    if not match or "{{" in path:
        return [path]
    expanded = []
    for choice in match.group(1).split(","):
        expanded.extend(_expand_braces(path[: match.start()] + choice + path[match.end() :]))
    return expanded


def shell_integer(text: str) -> int | None:
    """An integer option value, including shell arithmetic on literals such as ``$((288*5))``."""
    text = text.strip()
    arithmetic = re.fullmatch(r"\$\(\((.*)\)\)", text)
    if arithmetic:
        return _evaluate_integer_expression(arithmetic.group(1))
    return int(text) if _is_number(text) else None


def _evaluate_integer_expression(expression: str) -> int | None:
    """+ - * / on integer literals only; anything with a variable (or absurdly long) stays unknown."""
    if not re.fullmatch(r"[\d\s+\-*/()]{1,64}", expression):
        return None
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return None

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        raise ValueError("not an integer literal expression")

    try:
        return value(tree.body)
    except (ValueError, ZeroDivisionError):
        return None


def size_in_bytes(text: str) -> int | None:
    """lfs sizes: ``16M``, ``47104k``, ``1G``, ``65536`` (binary multiples, as lfs reads them)."""
    match = re.fullmatch(r"(\d+)\s*([kKmMgGtT]?)(?:i?[bB])?", text.strip())
    if not match:
        return None
    power = " kmgt".index(match.group(2).lower() or " ")
    return int(match.group(1)) * 1024**power


def parse_ansible_inventory(text: str, source_file: str = "") -> list[TunableInfo]:
    """``lustre_*`` variables of an Ansible inventory, at any level (all, group, host vars).

    YAML inventories are walked node by node to keep line numbers; INI inventories
    (``[group:vars]`` sections, ``host key=value`` lines) are read when the text is not YAML.
    """
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        root = None
    if isinstance(root, yaml.MappingNode):
        tunables: list[TunableInfo] = []
        _walk_inventory(root, "all", None, tunables, source_file)
        return tunables
    return _parse_ini_inventory(text, source_file)


def _walk_inventory(
    node: yaml.MappingNode, applies_to: str, parent_key: str | None, found: list[TunableInfo], source_file: str
) -> None:
    for key_node, value_node in node.value:
        key = str(key_node.value)
        if key.startswith("lustre_") and isinstance(value_node, yaml.ScalarNode):
            found.append(
                TunableInfo(
                    parameter=key,
                    value=str(value_node.value),
                    scope=tunable_scope(key),
                    source_file=source_file,
                    source_line=key_node.start_mark.line + 1,
                    command=f"{key}: {value_node.value}",
                    applies_to=applies_to,
                )
            )
        elif isinstance(value_node, yaml.MappingNode):
            if parent_key == "hosts":
                target = f"host:{key}"
            elif parent_key in (None, "children") and key not in ("vars", "hosts", "children"):
                target = "all" if key == "all" else f"group:{key}"
            else:
                target = applies_to
            _walk_inventory(value_node, target, key, found, source_file)


def _parse_ini_inventory(text: str, source_file: str) -> list[TunableInfo]:
    found: list[TunableInfo] = []
    section = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        header = re.fullmatch(r"\[([^\]]+)\]", line)
        if header:
            section = header.group(1)
            continue
        if not line:
            continue
        group = section.removesuffix(":vars")
        if section.endswith(":vars"):
            applies_to = "all" if group == "all" else f"group:{group}"
            assignments = [line]
        else:
            host, _, rest = line.partition(" ")
            applies_to = f"host:{host}"
            assignments = _tokens(rest)
        for assignment in assignments:
            key, sep, value = assignment.partition("=")
            key = key.strip()
            if sep and key.startswith("lustre_"):
                found.append(
                    TunableInfo(
                        parameter=key,
                        value=value.strip().strip("'\""),
                        scope=tunable_scope(key),
                        source_file=source_file,
                        source_line=number,
                        command=assignment.strip(),
                        applies_to=applies_to,
                    )
                )
    return found


def parse_sidecar_lustre(sidecar: dict, source_file: str = "ioboard.yaml") -> LustreProvenance:
    """The Lustre part of an ``ioboard.yaml`` sidecar.

    ``lustre.notes`` is read as release notes (base commit, patches, versions); explicit
    ``server_version`` / ``client_version`` keys win over versions found in the notes.
    ``tunables`` and ``striping`` are lists of command lines (or bare ``param=value``).
    """
    lustre = sidecar.get("lustre") or {}
    if not isinstance(lustre, dict):
        raise ParseError(source_file, None, f"'lustre' must be a mapping (notes, server_version, ...), "
                                            f"not {type(lustre).__name__}")
    for key in ("tunables", "striping"):
        if not isinstance(sidecar.get(key) or [], list):
            raise ParseError(source_file, None, f"{key!r} must be a list of command lines, "
                                                f"not {type(sidecar[key]).__name__}")
    notes = str(lustre.get("notes") or "")
    build = parse_release_notes(notes) if notes else LustreBuildInfo()
    build.server_version = str(lustre.get("server_version") or build.server_version)
    build.client_version = str(lustre.get("client_version") or build.client_version)
    tunables: list[TunableInfo] = []
    for line in sidecar.get("tunables") or []:
        tunables.extend(parse_bare_tunable(str(line), source_file))
    striping: list[StripingInfo] = []
    for line in sidecar.get("striping") or []:
        text = str(line).strip()
        if not _LFS.search(text):
            verb_given = re.match(r"(setstripe|setdirstripe|mkdir)\b", text)
            text = f"lfs {text}" if verb_given else f"lfs setstripe {text}"
        for layout in parse_striping(text, source_file):
            layout.source_line = None
            striping.append(layout)
    return LustreProvenance(build=build, tunables=tunables, striping=striping)
