"""The Lustre a run used: build, tunables and striping, gathered from every place they are written.

Sources: the `ioboard.yaml` sidecar (`lustre`, `tunables`, `striping`), the system description
(`io500_info_*`, system-information.txt), and the scripts and Ansible inventories shipped with the
run (`io500.sh`, job scripts, `*.yml` inventories) in the result directory or the folders above it
up to the ingested root. Plain Python: the modules of apps.ingest.parsers.lustre do the reading.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from apps.ingest.core.metadata import SIDECAR_NAMES
from apps.ingest.parsers.lustre.inventory import parse_ansible_inventory
from apps.ingest.parsers.lustre.sidecar import parse_sidecar_lustre
from apps.ingest.parsers.lustre.striping import StripingInfo, parse_striping
from apps.ingest.parsers.lustre.tunables import TunableInfo, parse_tunables
from apps.ingest.parsers.lustre.versions import LustreBuildInfo, build_info_from_system_information
from apps.ingest.tools.io500.records import IO500RunRecord

SCRIPT_SUFFIXES = {".sh", ".bash", ".slurm", ".pbs", ".lsf", ".job", ".sbatch"}
INVENTORY_SUFFIXES = {".yml", ".yaml"}
INVENTORY_NAMES = {"inventory", "hosts", "inventory.ini"}
MAX_SCRIPT_BYTES = 1024 * 1024


@dataclass
class Provenance:
    lustre: LustreBuildInfo | None = None
    tunables: list[TunableInfo] = field(default_factory=list)
    stripings: list[StripingInfo] = field(default_factory=list)

    @property
    def lustre_fingerprint(self) -> str:
        """Same versions, base and patches -> same fingerprint -> one shared LustreBuild row."""
        build = self.lustre or LustreBuildInfo()
        identity = {
            "server": build.server_version,
            "client": build.client_version,
            "tag": build.base_tag,
            "commit": build.base_commit,
            "patches": [[p.commit, p.ticket, p.status] for p in build.patches],
        }
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()


def collect_provenance(record: IO500RunRecord, sidecar: dict, result_dir: Path, root: Path) -> Provenance:
    from_sidecar = parse_sidecar_lustre(sidecar) if sidecar else None
    tunables = list(from_sidecar.tunables) if from_sidecar else []
    stripings = list(from_sidecar.striping) if from_sidecar else []
    for path, text in _nearby_files(result_dir, root):
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        if path.suffix.lower() in INVENTORY_SUFFIXES or path.name.lower() in INVENTORY_NAMES:
            tunables.extend(parse_ansible_inventory(text, name))
        else:
            tunables.extend(parse_tunables(text, name))
            stripings.extend(parse_striping(text, name))
    build = _merge_builds(
        from_sidecar.build if from_sidecar else None,
        build_info_from_system_information(record.info) if _describes_lustre(record, sidecar) else None,
    )
    return Provenance(lustre=build, tunables=_unique_tunables(tunables), stripings=stripings)


def _describes_lustre(record: IO500RunRecord, sidecar: dict) -> bool:
    values = [str(v) for k, v in record.info.items() if "filesystem" in k.lower() or "software" in k.lower()]
    values += [str(record.metadata.get("filesystem", "")), str(sidecar.get("filesystem", ""))]
    return any("lustre" in value.lower() for value in values)


def _merge_builds(explicit: LustreBuildInfo | None, described: LustreBuildInfo | None) -> LustreBuildInfo | None:
    """Sidecar values win field by field; a build that says nothing at all is no build."""
    merged = explicit or LustreBuildInfo()
    if described:
        merged.server_version = merged.server_version or described.server_version
        merged.client_version = merged.client_version or described.client_version
    if not any([merged.server_version, merged.client_version, merged.base_commit, merged.base_tag, merged.patches]):
        return None
    return merged


def _nearby_files(result_dir: Path, root: Path):
    """Scripts and inventories in the result directory and each folder above it, up to root."""
    folder, root = result_dir.resolve(), root.resolve()
    while True:
        for name in _script_names(os.fspath(folder), folder.stat().st_mtime_ns):
            path = folder / name
            if path.is_file() and path.stat().st_size <= MAX_SCRIPT_BYTES:
                yield path, path.read_text(encoding="utf-8", errors="replace")
        if folder == root or not folder.is_relative_to(root):
            return
        folder = folder.parent


@functools.lru_cache(maxsize=256)
def _script_names(folder: str, modified_ns: int) -> tuple[str, ...]:
    """The names in `folder` that name a job script or an inventory, sorted, as of the folder's modification time.

    Every run walks up to the tree's root, and the folders near an archive's root hold every institution's or
    submission's folder: listed and stat-ed for each run, they were 18 % of ingesting ten times the public corpus.
    A folder's listing is read once while it stays unchanged (adding or removing an entry changes its mtime), and
    names are judged before anything is asked of the file system.
    """
    with os.scandir(folder) as entries:
        return tuple(sorted(entry.name for entry in entries if _names_a_script(entry.name)))


def _names_a_script(name: str) -> bool:
    """A job script or an inventory by its name alone (not a macOS resource fork, not the sidecar)."""
    if name.startswith("._") or name in SIDECAR_NAMES:
        return False
    suffix = os.path.splitext(name)[1].lower()
    return suffix in SCRIPT_SUFFIXES or suffix in INVENTORY_SUFFIXES or name.lower() in INVENTORY_NAMES


def _unique_tunables(tunables: list[TunableInfo]) -> list[TunableInfo]:
    """The same setting written in two places (script and sidecar) is one tunable: keep the first."""
    unique: dict[tuple[str, str, str], TunableInfo] = {}
    for tunable in tunables:
        unique.setdefault((tunable.parameter, tunable.value, tunable.scope), tunable)
    return list(unique.values())
