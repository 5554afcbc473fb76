"""Which Lustre ran: released versions, or a base commit plus patches, from prose and release notes.

The Cambridge ISC19 run was not "Lustre 2.12" but a master snapshot plus five patches and a revert;
``parse_release_notes`` reads that kind of note, ``parse_version_text`` the one-line kind
(``Servers: Lustre 2.12.2  Clients: Lustre 2.10.7``) that system descriptions hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.ingest.parsers.lines import capped_lines

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
    for line in capped_lines(text.splitlines(), strict=False):
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
