"""``ingest --workers N``: a tree of IO500 submissions stored by N processes at once, its upkeep asked for once.

Why processes: a run's parsing and storing is Python work under one interpreter lock, so one process uses one
core however many the host has; N processes use N.

How: the parent opens each path (an archive is unpacked once, by the parent), surveys its result directories
and deals them out, a system at a time (as the path names it, ``Institution/System/Filesystem/Year/submission-N``,
or the command's options), largest first, to a pool of N processes forked from it. A system's submissions stay
together and in the tree's order because what a system's first run writes is order-dependent: the first writer
describes the system (storage vendor, server count), and of two runs scoring the same the first stored is its
best; so the runs, the systems and the lists come out as one process makes them. Each process has a database
connection of its own (the parent closes its connections before forking; Django opens one in the child on first
use) and stores each share in a batch of its own
(``runs.batch(atomic=False)``, one transaction per run, as the one-process ingest does) whose upkeep it hands back
(``Batch.hand_over``): the parent asks once for the lists' maintenance and the change detection of every run
stored, as one process does at the end of its batch.

A submission (a result directory, one run) is one idempotent unit: stored in its own transaction and found
unchanged when met again, under the same identity whichever process stores it (its path below the tree's root).
Processes storing runs of one system take turns on the system's row (``list_entries.sync_systems``); a unit that
loses a deadlock to another process (two processes creating the same institution and system, entering runs of
one system) is rolled back whole and stored once more.

SQLite has one writer: there, and for ``--reprocess`` of the stored uploads (no PATH), the ingest runs in one
process and says so.
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Iterable
from functools import partial
from pathlib import Path

from django.db import IntegrityError, OperationalError, connection, connections

from apps.ingest.core.archive import ArchiveError, open_input
from apps.ingest.core.common import archive_caps
from apps.ingest.core.metadata import from_layout
from apps.ingest.tools.io500.pipeline import (
    OVERRIDE_OPTIONS,
    IngestSummary,
    ingest_result_dirs,
    survey_submissions,
)
from apps.results.services import runs

logger = logging.getLogger(__name__)

#: The upload kind whose submissions are spread (the ``ingest --kind``).
KIND = "io500"
#: Times a unit is stored when it loses a lock to another process: once more, then it is reported failed.
ATTEMPTS = 2


def why_one_process(options: dict) -> str:
    """Why this ingest runs in one process whatever ``--workers`` says ("" when it can be spread)."""
    if connection.vendor == "sqlite":
        return "SQLite has one writer"
    if not options.get("paths"):
        return "only the submissions below a PATH are spread (--reprocess of stored uploads re-reads them in turn)"
    return ""


def ingest_paths(paths: Iterable[Path], options: dict, *, workers: int) -> IngestSummary:
    """The ``ingest --kind io500 --workers N`` command: each path's submissions stored by ``workers`` processes."""
    overrides = {key: options[key] for key in OVERRIDE_OPTIONS if options.get(key) not in (None, "")}
    reprocess = bool(options.get("reprocess"))
    summary, upkeep = IngestSummary(), runs.Upkeep()
    connections.close_all()  # each process forked below opens a connection of its own
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        for path in map(Path, paths):
            if not path.exists():
                summary.failed.append(f"{path}: no such file or directory")
                continue
            try:
                with open_input(path, **archive_caps()) as root:
                    result_dirs = survey_submissions(root, path, summary)
                    shares = sorted(by_system(root, result_dirs, overrides), key=len, reverse=True)
                    store = partial(store_share, root, overrides=overrides, reprocess=reprocess)
                    for share_summary, share_upkeep in pool.imap(store, shares):
                        summary.merge(share_summary)
                        upkeep.merge(share_upkeep)
            except ArchiveError as exc:
                summary.failed.append(f"{path}: {exc}")
        pool.close()
        pool.join()
    upkeep.ask()
    return summary


def by_system(root: Path, result_dirs: list[Path], overrides: dict) -> list[list[Path]]:
    """The result directories grouped by the system the command's options or their path name, in tree order; a
    path that names none is grouped by its first folder below the root."""
    groups: dict[tuple, list[Path]] = {}
    for result_dir in result_dirs:
        layout = from_layout(result_dir, root)
        names = tuple(overrides.get(name) or layout.get(name) for name in ("institution", "system", "filesystem"))
        key = names if all(names) else ("", result_dir.relative_to(root).parts[0])
        groups.setdefault(key, []).append(result_dir)
    return list(groups.values())


def store_share(
    root: Path, result_dirs: list[Path], *, overrides: dict, reprocess: bool
) -> tuple[IngestSummary, runs.Upkeep]:
    """In a pool's process: store these submissions, each one unit, in one batch whose upkeep goes back."""
    summary = IngestSummary()
    with runs.batch(atomic=False) as batch:
        for result_dir in result_dirs:
            store_unit(root, result_dir, batch=batch, summary=summary, overrides=overrides, reprocess=reprocess)
        upkeep = batch.hand_over()
    return summary, upkeep


def store_unit(
    root: Path, result_dir: Path, *, batch: runs.Batch, summary: IngestSummary, overrides: dict, reprocess: bool
) -> None:
    """One submission; stored once more when its transaction lost a lock to another process."""
    for attempt in range(1, ATTEMPTS + 1):
        unit = IngestSummary()
        try:
            ingest_result_dirs(root, [result_dir], batch=batch, summary=unit, overrides=overrides, reprocess=reprocess)
        except (OperationalError, IntegrityError) as error:
            logger.warning("%s: attempt %d lost to another process: %s", result_dir, attempt, error)
            if attempt == ATTEMPTS:
                where = result_dir.relative_to(root).as_posix()
                summary.failed.append(f"{where}: could not be stored ({ATTEMPTS} attempts lost to other processes)")
            continue
        summary.merge(unit)
        return
