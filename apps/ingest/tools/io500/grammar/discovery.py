"""Finding result sets (one folder = one benchmark run) in a tree of submissions.

A folder is a result set when it holds one of the folder kinds of the era registry
(``apps.ingest.tools.io500.grammar.eras``):

* ``result.txt`` (C application), or
* one or more ``io-500-summary*.txt`` (bash ``io500.sh``), or
* ``result_summary.txt`` (either era), or
* an SC17 job stdout (``*.out``/``*.log`` with an ``IO-500 score:`` line), or the SC17 per-family
  ``*-results.txt`` files when no such stdout sits in a folder above them.

A folder whose only result file is a ``result_summary.txt`` (no ``result.txt``, no raw phase
outputs, no ``io-500-summary``) and that has a result set below it in the same submission is not a
run of its own: it is the extra copy many uploads carry at the submission root. The run below it
gets the comparison (``RunEvidence.summary_differs_from_run`` / ``toplevel_summary``).

Submissions are located by their ``submission-<N>`` folder, never by depth. Submissions with
nothing scoreable (io-500-gen ``output.txt`` without a score, or only scripts and configs) are not
result sets; :func:`find_unscoreable_submissions` lists them so ``parse_tree`` can report them.
Junk is skipped: AppleDouble ``._*``, editor swap files, archives (``.zip``, ``.tgz`` ...), VCS
folders. Symbolic links to folders are not followed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from apps.ingest.core.metadata import SUBMISSION_DIR
from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar.eras import SC17_RESULTS, SC17_STDOUT, SUMMARY_ONLY, classify_folder
from apps.ingest.tools.io500.grammar.files import (
    MAX_SNIFF_BYTES,
    file_size,
    is_junk_name,
    is_skipped_dir_name,
    iter_lines,
    relative_posix,
)

# Lines (not script text that echoes them) that only io-500-gen job output has.
GEN_OUTPUT_MARKERS = ("[IOR EASY WRITE]", "[MDTEST EASY WRITE]", "[IO-500 COMPLETED]")


@dataclass(frozen=True)
class Folder:
    path: Path
    kind: str  # the name of a folder kind of the era registry (see classify_folder)


def submission_dir_of(path: Path, root: Path) -> Path | None:
    """The nearest ``submission-<N>`` folder at or above ``path`` (not above ``root``)."""
    current = path
    while True:
        if SUBMISSION_DIR.match(current.name):
            return current
        if current == root or current.parent == current:
            return None
        current = current.parent


def scan_tree(root: Path) -> tuple[list[Folder], list[Path]]:
    """All folders holding result files, and all ``submission-<N>`` folders, below ``root``."""
    folders: list[Folder] = []
    submissions: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(name for name in dirnames if not is_skipped_dir_name(name))
        folder = Path(dirpath)
        if SUBMISSION_DIR.match(folder.name):
            submissions.append(folder)
        kind = classify_folder(folder, sorted(filenames))
        if kind:
            folders.append(Folder(folder, kind))
    return folders, submissions


def _is_below(path: Path, ancestor: Path) -> bool:
    return path != ancestor and ancestor in path.parents


def select_result_sets(folders: list[Folder], root: Path) -> list[Path]:
    """Drop the folders that are not runs of their own: submission-root summary copies, SC17 parts.

    Only folders of the same submission (or, outside any submission, of the same root) are compared.
    """
    sc17_stdouts: dict[Path | None, list[Path]] = {}
    for folder in folders:
        if folder.kind == SC17_STDOUT.name:
            sc17_stdouts.setdefault(submission_dir_of(folder.path, root), []).append(folder.path)
    selected: dict[Path | None, list[Path]] = {}
    for folder in sorted(folders, key=lambda f: len(f.path.parts), reverse=True):
        scope = submission_dir_of(folder.path, root)
        if folder.kind == SC17_RESULTS.name and any(
            _is_below(folder.path, stdout) for stdout in sc17_stdouts.get(scope, [])
        ):
            continue
        if folder.kind == SUMMARY_ONLY.name and any(_is_below(other, folder.path) for other in selected.get(scope, [])):
            continue
        selected.setdefault(scope, []).append(folder.path)
    return sorted(path for paths in selected.values() for path in paths)


def find_result_sets(root: Path) -> list[Path]:
    """Every result directory (one folder = one run) below ``root``, sorted."""
    return survey_tree(root)[0]


def survey_tree(root: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """One walk of ``root``: its result directories, and the submissions with nothing to score."""
    root = Path(root)
    if not root.is_dir():
        return [], []
    folders, submissions = scan_tree(root)
    result_sets = select_result_sets(folders, root)
    return result_sets, find_unscoreable_submissions(root, submissions, result_sets)


def folders_above(folder: Path, root: Path) -> list[Path]:
    """The folders above ``folder``, nearest first, up to its submission folder or ``root`` (inclusive).

    Never leaves ``root``: a result folder outside it has no folders above it here.
    """
    scope = submission_dir_of(folder, root)
    if folder in (scope, root):
        return []
    found = []
    for parent in folder.parents:
        if parent != root and root not in parent.parents:
            return []
        found.append(parent)
        if parent in (scope, root):
            break
    return found


def summary_copies_above(root: Path, result_dir: Path) -> list[Path]:
    """Submission-root style ``result_summary.txt`` copies in the folders above a result set.

    Only folders inside the same submission (or below ``root`` when there is no submission folder)
    and holding nothing but a summary among the result files count.
    """
    copies = []
    for folder in folders_above(result_dir, root):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        if classify_folder(folder, names) == SUMMARY_ONLY.name:
            copies.append(folder / "result_summary.txt")
    return copies


def find_unscoreable_submissions(
    root: Path, submissions: list[Path], result_sets: list[Path]
) -> list[tuple[Path, str]]:
    """The ``submission-<N>`` folders without any result set below them, each with what they hold."""
    holding_a_result_set = {folder for path in result_sets for folder in (path, *path.parents)}
    found = []
    for submission in submissions:
        if submission in holding_a_result_set:
            continue
        found.append((submission, describe_unscoreable(submission, root)))
    return found


def describe_unscoreable(submission: Path, root: Path) -> str:
    """Why a submission folder has nothing to score, naming what it holds."""
    names: list[str] = []
    for dirpath, dirnames, filenames in os.walk(submission, followlinks=False):
        dirnames[:] = sorted(name for name in dirnames if not is_skipped_dir_name(name))
        for name in sorted(filenames):
            if is_junk_name(name):
                continue
            path = Path(dirpath) / name
            names.append(relative_posix(path, submission))
            if 0 < file_size(path) <= MAX_SNIFF_BYTES and _has_gen_marker(path):
                return (
                    f"io-500-gen output without a score in {relative_posix(path, root)}: raw IOR/mdtest/find "
                    "output only (it asks for io-500-score.sh); nothing to ingest"
                )
    if not names:
        return "empty submission folder: no IO500 result files"
    shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
    return f"no IO500 result files (no result.txt, result_summary.txt or io-500-summary); holds only {shown}"


def _has_gen_marker(path: Path) -> bool:
    try:
        return any(line.startswith(GEN_OUTPUT_MARKERS) for _, line in iter_lines(path, path.name))
    except ParseError:
        return False
