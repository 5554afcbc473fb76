"""``ingest --workers N``: a tree of IO500 submissions stored by N processes at once, its upkeep asked for once.

Why processes: a run's parsing and storing is Python work under one interpreter lock, so one process uses one
core however many the host has; N processes use N.

How: the parent opens each path (an archive is unpacked once, by the parent), surveys its result directories
and groups them by institution (as the path names it, ``Institution/System/Filesystem/Year/submission-N``, or
the command's options; under the one institution ``--institution`` names, by system). A system's submissions stay
together and in the tree's order because what a system's first run writes is order-dependent: the first writer
describes the system (storage vendor, server count), and of two runs scoring the same the first stored is its
best; so the runs, the systems and the lists come out as one process makes them. An institution's stay together
too because its row is created by the first transaction that meets it: a second process meeting it before that
commits waits for it (the unique key), and on the corpus those waits were a third of the processes' time. The
groups, largest first, are packed into shares of about a quarter of each process's part (at least one group, at
most ``RUNS_PER_COMMIT`` runs unless one group has more) and dealt to a pool of N processes forked from the
parent: several shares a process, so one that drew large groups does not leave the others idle, and few enough
that each share's upkeep (its transaction brings its systems' list entries in line before it commits) is paid
about as often as one process pays it. A share of one system a run would make every run pay that upkeep: the
first form of this command did, and two processes took longer than one.

Each process has a database connection of its own (the parent closes its connections before forking; Django opens
one in the child on first use) and stores each share in a batch of its own (``runs.batch(atomic=False)``, one
transaction per ``RUNS_PER_COMMIT`` runs, as the one-process ingest commits) whose upkeep it hands back
(``Batch.hand_over``): the parent asks once for the lists' maintenance of every run stored, as one process does
at the end of its batch. A share holds every submission of its systems, so the process that stored it asks for
their change detection itself, when the share is stored: without a broker (Celery eager) the processes detect
changes side by side, as they store; with one, the detections are enqueued from there.

Those transactions are the idempotent units: each stores its submissions or nothing, and a submission met again
is found unchanged, under the same identity whichever process stores it (its path below the tree's root).
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
from itertools import islice
from pathlib import Path

from django.db import IntegrityError, OperationalError, connection, connections

from apps.ingest.core.archive import ArchiveError, open_input
from apps.ingest.core.common import archive_caps
from apps.ingest.core.metadata import from_layout
from apps.ingest.tools.io500.pipeline import (
    OVERRIDE_OPTIONS,
    RUNS_PER_COMMIT,
    IngestSummary,
    ingest_result_dirs,
    survey_submissions,
)
from apps.results.services import runs
from apps.results.services.changes.history import schedule_change_detection

logger = logging.getLogger(__name__)

#: The upload kind whose submissions are spread (the ``ingest --kind``).
KIND = "io500"
#: Times a unit is stored when it loses a lock to another process: once more, then it is reported failed.
ATTEMPTS = 2
#: Shares dealt to each process (module docstring): enough to even out the processes' loads, few enough that
#: the shares' upkeep stays about what one process pays.
SHARES_PER_WORKER = 4


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
                    shares = shares_of(by_institution(root, result_dirs, overrides), workers=workers)
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


def by_institution(root: Path, result_dirs: list[Path], overrides: dict) -> list[list[Path]]:
    """The result directories grouped by the institution their path names, in tree order, or by system under the
    institution the command's options name; a path that names no system is grouped by its first folder below the
    root."""
    groups: dict[tuple, list[Path]] = {}
    for result_dir in result_dirs:
        layout = from_layout(result_dir, root)
        names = tuple(overrides.get(name) or layout.get(name) for name in ("institution", "system", "filesystem"))
        if not all(names):
            key: tuple = ("", result_dir.relative_to(root).parts[0])
        else:
            key = names if overrides.get("institution") else names[:1]
        groups.setdefault(key, []).append(result_dir)
    return list(groups.values())


def shares_of(groups: list[list[Path]], *, workers: int) -> list[list[Path]]:
    """The groups (`by_institution`) packed, largest first, into shares that each take groups until they hold
    about a quarter of a process's part (module docstring); a group is never split, the last share may be smaller."""
    share_size = min(RUNS_PER_COMMIT, max(1, -(-sum(map(len, groups)) // (workers * SHARES_PER_WORKER))))
    shares: list[list[Path]] = []
    for group in sorted(groups, key=len, reverse=True):
        if shares and len(shares[-1]) < share_size:
            shares[-1].extend(group)
        else:
            shares.append(list(group))
    return shares


def store_share(
    root: Path, result_dirs: list[Path], *, overrides: dict, reprocess: bool
) -> tuple[IngestSummary, runs.Upkeep]:
    """In a pool's process: store these submissions, ``RUNS_PER_COMMIT`` a unit, in one batch; ask for their
    systems' change detection; hand the lists' maintenance back (module docstring)."""
    summary = IngestSummary()
    remaining = iter(result_dirs)
    with runs.batch(atomic=False) as batch:
        while unit := list(islice(remaining, RUNS_PER_COMMIT)):
            store_unit(root, unit, batch=batch, summary=summary, overrides=overrides, reprocess=reprocess)
        upkeep = batch.hand_over()
    schedule_change_detection(upkeep.detections)
    return summary, runs.Upkeep(lists_changed=upkeep.lists_changed)


def store_unit(
    root: Path, unit: list[Path], *, batch: runs.Batch, summary: IngestSummary, overrides: dict, reprocess: bool
) -> None:
    """Submissions stored in one transaction; stored once more when it lost a lock to another process."""
    for attempt in range(1, ATTEMPTS + 1):
        unit_summary = IngestSummary()
        try:
            ingest_result_dirs(root, unit, batch=batch, summary=unit_summary, overrides=overrides, reprocess=reprocess)
        except (OperationalError, IntegrityError) as error:
            logger.warning(
                "%s and %d more: attempt %d lost to another process: %s", unit[0], len(unit) - 1, attempt, error
            )
            if attempt == ATTEMPTS:
                summary.failed.extend(
                    f"{result_dir.relative_to(root).as_posix()}: could not be stored "
                    f"({ATTEMPTS} attempts lost to other processes)"
                    for result_dir in unit
                )
            continue
        summary.merge(unit_summary)
        return
