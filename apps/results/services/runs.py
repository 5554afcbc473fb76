"""The writes of runs, storage systems and institutions, and what each one sets off, said where it happens.

A run is shown through rows derived from it: its list entries (apps.results.services.list_entries), its custom
lists' entries (apps.results.services.custom_lists) and the cached pages (the data version,
apps.results.services.freshness). Every
verb here writes and then brings those in line by explicit calls; no signal receiver does it behind the
writer's back. Nothing else writes a run: `Run.save`, `Run.delete` and the run queryset's bulk writes refuse
to run outside a verb (apps.results.models.querysets.check_run_write); each verb opens them for its own writes only
(`run_writes_open`), never for the caller's code inside a `writes()` block.

Batched by default: a verb's upkeep runs once, when the outermost `writes()` block ends, still inside its
transaction (the entries commit with the runs). A writer that writes several runs, or one run several times
(the ingest creates a run, then saves its verdicts once its anomalies are known), wraps them in one
`writes()` and pays for one upkeep: re-deriving a system's entries after each save cost most of an ingest's
queries, half of them for an entry the next save took back. A block left by an exception does nothing: its
transaction is being rolled back.

After the commit: the custom lists' refresh and the list-maintenance task (ranks settled, statistics
refreshed) are enqueued, and the data version is bumped, once per block. A writer that commits many times in
a row (the ingest of a tree) also asks for the list maintenance once, with
`list_entries.maintained_after_batch()`.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import transaction
from django.db.models import QuerySet

from apps.results.models import Institution, Run, StorageSystem
from apps.results.models.querysets import run_writes_open
from apps.results.services import custom_lists, list_entries, published
from apps.results.services.freshness import bump_data_version, bump_data_version_on_commit

#: The storage systems whose runs were written inside the outermost active `writes()`, or None outside one.
_written_systems: ContextVar[set[int] | None] = ContextVar("written_systems", default=None)


@contextmanager
def writes() -> Iterator[None]:
    """One transaction of writes, brought in line once at its end: the entries of the systems written,
    the custom lists' refresh and the data version. Nested blocks join the outermost."""
    if _written_systems.get() is not None:
        yield
        return
    systems: set[int] = set()
    token = _written_systems.set(systems)
    try:
        with transaction.atomic():
            yield
            _bring_in_line(systems)
    finally:
        _written_systems.reset(token)


def _bring_in_line(system_ids: set[int]) -> None:
    list_entries.sync_systems(system_ids)
    custom_lists.refresh_systems_on_commit(system_ids)
    bump_data_version_on_commit()


def _systems_written(system_ids: Iterable[int | None]) -> None:
    _written_systems.get().update(pk for pk in system_ids if pk is not None)


def _run_written(run: Run, *, created: bool = False) -> None:
    """Note the run's system, and the systems its entries are on when it moved from one (a run just created
    has no entries)."""
    moved_from = (
        [] if created else run.list_entries.exclude(system_id=run.system_id).values_list("system_id", flat=True)
    )
    _systems_written([run.system_id, *moved_from])


def store(**fields) -> Run:
    """A new run with these columns (its children are the caller's, in the same `writes()`)."""
    with writes(), run_writes_open():
        run = Run.objects.create(**fields)
        _run_written(run, created=True)
        published.link_run(run)
    return run


def rewrite(run: Run, fields: dict) -> Run:
    """A stored run read again from its files: its children go (the caller stores the new ones in the same
    `writes()`) and its columns are replaced."""
    with writes(), run_writes_open():
        for children in (run.phases, run.files, run.tunables, run.stripings, run.rank_stats, run.anomalies):
            children.all().delete()
        for name, value in fields.items():
            setattr(run, name, value)
        run.save()
        _run_written(run)
        published.link_run(run)
    return run


def edit(run: Run, fields: Iterable[str] | None = None) -> Run:
    """Save the changes made to a run's columns (all of them, or `fields`); a run not yet stored is created."""
    with writes(), run_writes_open():
        created = run._state.adding
        run.save(update_fields=None if fields is None else list(fields))
        _run_written(run, created=created)
    return run


def set_verdicts(run: Run) -> Run:
    """Derive the run's ranking verdicts from its stored anomalies and save them."""
    with writes(), run_writes_open():
        run.derive_verdicts()
        run.save(update_fields=Run.VERDICT_FIELDS)
        _run_written(run)
    return run


def delete(runs: Iterable[Run]) -> int:
    """Delete runs (a queryset or a list), taking them off every list first (their entries would cascade away
    unshifted, their custom-list entries uncounted); each system's next best run takes its place. Returns how
    many runs went."""
    selected = runs if isinstance(runs, QuerySet) else Run.objects.filter(pk__in=[run.pk for run in runs])
    with writes(), run_writes_open():
        rows = list(selected.values_list("pk", "system_id"))
        run_ids = [pk for pk, _ in rows]
        list_entries.remove_runs(run_ids)
        custom_lists.forget_runs(run_ids)
        deleted = Run.objects.filter(pk__in=run_ids).delete()[1].get(Run._meta.label, 0)
        _systems_written(system_id for _, system_id in rows)
    return deleted


def edit_system(system: StorageSystem, fields: Iterable[str] | None = None) -> StorageSystem:
    """Save a storage system (renamed, re-described) and copy its names into its runs' list entries."""
    with writes():
        created = system._state.adding
        system.save(update_fields=None if fields is None else list(fields))
        if not created:  # a new system has no runs, so no entries
            list_entries.copy_system_columns([system.pk])
    return system


def edit_institution(institution: Institution, fields: Iterable[str] | None = None) -> Institution:
    """Save an institution (renamed) and copy its name into the list entries of its systems' runs."""
    with writes():
        created = institution._state.adding
        institution.save(update_fields=None if fields is None else list(fields))
        if not created:
            list_entries.copy_system_columns(institution.systems.values_list("pk", flat=True))
    return institution


def rebuild_lists(kinds: Iterable[str] | None = None) -> dict[str, int]:
    """After runs were written around the ORM (a bulk load, raw SQL): refill the lists' entries (all kinds, or
    `kinds`) with their statistics, drop the custom lists' entries (each is refilled when next read) and bump
    the data version. Returns {kind: entries}.

    Call it outside a transaction: each list is refilled in a transaction of its own, so the version is
    bumped once the last has committed.
    """
    filled = list_entries.rebuild(kinds)
    custom_lists.forget_all()
    for kind in filled:
        list_entries.refresh_statistics(kind)
    bump_data_version()
    return filled
