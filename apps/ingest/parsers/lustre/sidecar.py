"""The Lustre part of an ``ioboard.yaml`` sidecar: notes, versions, tunables and striping in one place."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lustre.striping import LFS_COMMAND, StripingInfo, parse_striping
from apps.ingest.parsers.lustre.tunables import TunableInfo, parse_bare_tunable
from apps.ingest.parsers.lustre.versions import LustreBuildInfo, parse_release_notes


@dataclass
class LustreProvenance:
    """Everything a sidecar (or a whole submission) says about Lustre."""

    build: LustreBuildInfo = field(default_factory=LustreBuildInfo)
    tunables: list[TunableInfo] = field(default_factory=list)
    striping: list[StripingInfo] = field(default_factory=list)


def parse_sidecar_lustre(sidecar: dict, source_file: str = "ioboard.yaml") -> LustreProvenance:
    """The Lustre part of an ``ioboard.yaml`` sidecar.

    ``lustre.notes`` is read as release notes (base commit, patches, versions); explicit
    ``server_version`` / ``client_version`` keys win over versions found in the notes.
    ``tunables`` and ``striping`` are lists of command lines (or bare ``param=value``).
    """
    lustre = sidecar.get("lustre") or {}
    if not isinstance(lustre, dict):
        raise ParseError(
            source_file, None, f"'lustre' must be a mapping (notes, server_version, ...), not {type(lustre).__name__}"
        )
    for key in ("tunables", "striping"):
        if not isinstance(sidecar.get(key) or [], list):
            raise ParseError(
                source_file, None, f"{key!r} must be a list of command lines, not {type(sidecar[key]).__name__}"
            )
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
        if not LFS_COMMAND.search(text):
            verb_given = re.match(r"(setstripe|setdirstripe|mkdir)\b", text)
            text = f"lfs {text}" if verb_given else f"lfs setstripe {text}"
        for layout in parse_striping(text, source_file):
            layout.source_line = None
            striping.append(layout)
    return LustreProvenance(build=build, tunables=tunables, striping=striping)
