"""A tree of IO500 submissions N times the size of a real one, for benchmarks of bulk ingest at scale.

The public corpus holds 142 submissions; the issue asks for the ingest on a tree ten times that (issue 39). Copy k
of the tree (k = 1 .. N-1; copy 0 is the source as it is) renames every institution folder ``<name> (copy k)`` and
every ``submission-<id>`` folder ``submission-<id + k * SUBMISSION_ID_STEP>``: the archive layout
(``Institution/System/Filesystem/Year/submission-N``) gives each copy its own institutions, systems and submission
ids, so its runs are distinct runs of distinct systems (their identities hold their paths), with the same files,
so the same parse work, as the source. A file's bytes are not changed: what the generator returns (the counts)
is the truth a benchmark checks the ingest against. Each run is therefore the same result as its copies (same
content hash, same scores): the duplicate_result rule flags them all and each new copy re-checks the others, a
heavier ingest than as many distinct results would be.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

SUBMISSION = re.compile(r"^submission-(\d+)$")
#: Added to a submission id per copy: above every id the public archive has used.
SUBMISSION_ID_STEP = 1_000_000


@dataclass(frozen=True)
class ScaledTree:
    root: Path
    copies: int
    files: int
    bytes: int
    submissions: int


def copy_name(name: str, copy: int, *, top_level: bool) -> str:
    """The name of one path part in copy ``copy``: institutions and submission folders renamed, the rest kept."""
    if copy == 0:
        return name
    if top_level:
        return f"{name} (copy {copy})"
    match = SUBMISSION.match(name)
    return f"submission-{int(match.group(1)) + copy * SUBMISSION_ID_STEP}" if match else name


def write_scaled_tree(source: Path, target: Path, times: int) -> ScaledTree:
    """Write ``times`` copies of the tree ``source`` into ``target`` (which must not exist yet)."""
    if times < 1:
        raise ValueError("times must be at least 1")
    source, target = Path(source), Path(target)
    target.mkdir(parents=True)
    files = size = submissions = 0
    sources = sorted(path for path in source.rglob("*") if path.is_file())
    for copy in range(times):
        for path in sources:
            parts = path.relative_to(source).parts
            renamed = [copy_name(part, copy, top_level=index == 0) for index, part in enumerate(parts)]
            destination = target.joinpath(*renamed)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
            files += 1
            size += destination.stat().st_size
        submissions += sum(1 for path in source.rglob("submission-*") if path.is_dir() and SUBMISSION.match(path.name))
    return ScaledTree(root=target, copies=times, files=files, bytes=size, submissions=submissions)
