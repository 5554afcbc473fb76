"""The writes of runs, storage systems and institutions, and what each one sets off, said where it happens.

A run is shown through rows derived from it: its list entries (apps.results.services.list_entries), its custom
lists' entries (apps.results.services.custom_lists), its system's detected changes
(apps.results.services.changes.history) and the cached pages (the data version, apps.results.services.freshness).
Every verb here writes and then brings those in line by explicit calls; no signal receiver does it behind the
writer's back. Nothing else writes a run: `Run.save`, `Run.delete` and the run queryset's bulk writes refuse
to run outside a verb (apps.results.models.querysets.check_run_write); each verb opens them for its own writes only
(`run_writes_open`), never for the caller's code inside a batch.

One unit of work, explicit: a writer opens a `batch()` and calls the verbs on it::

    with runs.batch() as batch:
        run = batch.store(**fields)
        ...                         # its children, its anomalies
        batch.set_verdicts(run)

The batch notes the systems its verbs touched and brings them in line once, when its transaction ends, still
inside it (the entries commit with the runs): re-deriving a system's entries after each save cost most of an
ingest's queries, half of them for an entry the next save took back. After the commit it refreshes the custom
lists of those systems, bumps the data version, enqueues the maintenance of the lists that changed (ranks
settled, statistics refreshed) and the change detection of the runs it was asked to (`detect_changes`). A batch
left by an exception does nothing: its transaction is being rolled back. A writer that passes the batch on
(`check_run_anomalies(run, batch=batch)`) keeps one unit of work however deep the calls go; many runs in one
batch pay for one upkeep.

A writer that must commit in steps (the ingest of a tree: many runs, each committed within minutes) opens
`batch(atomic=False)` and one `batch.transaction()` per step: each step commits its runs with their entries,
their custom lists and a bump, and the lists' maintenance and the change detection wait for the end of the
batch (also when it is left by an exception: what committed needs them). Inside a transaction, `batch.step()` is
a savepoint for a write that may fail alone (one bad submission of fifty costs only itself): the others commit
together and share one upkeep.

A writer that spreads its batches over processes (`ingest --workers`, apps.ingest.parallel) takes
each batch's `Upkeep` (`batch.hand_over()`) back to the parent and asks for the merged upkeep once, when every
batch is done: each list is maintained once, not once per process.

The module's functions (`store`, `edit`, `delete`...) are the verbs as a batch of one write.
"""

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import QuerySet

from apps.results.models import Anomaly, Institution, Run, StorageSystem
from apps.results.models.querysets import run_writes_open
from apps.results.services import custom_lists, list_entries, published
from apps.results.services.changes.history import schedule_change_detection
from apps.results.services.freshness import bump_data_version, bump_data_version_on_commit


@dataclass
class Upkeep:
    """What a batch leaves for after its last commit: the lists to maintain and the runs whose changes to detect.
    Plain sets, so a batch in another process can hand it back (`Batch.hand_over`)."""

    lists_changed: set[str] = field(default_factory=set)
    detections: set[int] = field(default_factory=set)

    def merge(self, other: "Upkeep") -> None:
        self.lists_changed |= other.lists_changed
        self.detections |= other.detections

    def ask(self) -> None:
        """Enqueue the lists' maintenance and the change detection, once each, after the current commit."""
        list_entries.maintain_lists_on_commit(self.lists_changed)
        schedule_change_detection(self.detections)


class Batch:
    """One unit of work over runs: the verbs, and the upkeep of what they touched, done once (module docstring)."""

    def __init__(self) -> None:
        #: Systems written in the open transaction: their entries are re-derived before it commits.
        self._systems: set[int] = set()
        #: Runs whose systems' changes are to be detected, asked for in the open transaction.
        self._detections_asked: set[int] = set()
        #: What committed transactions leave for the end of the batch: lists to maintain, runs to detect.
        self._lists_changed: set[str] = set()
        self._detections: set[int] = set()
        #: Runs stored or rewritten in the open transaction: their published entries are linked and audited.
        self._published_runs: set[int] = set()
        #: Runs created in the open transaction: they have no list entries yet, so no system to leave.
        self._created_runs: set[int] = set()
        #: Runs checked in the open transaction whose copies are checked again before it commits, and how.
        self._copies_asked: set[int] = set()
        self._recheck_copies: Callable[[Batch, set[int]], None] | None = None
        self._in_transaction = False

    @contextmanager
    def transaction(self) -> Iterator["Batch"]:
        """One transaction of the batch, brought in line before it commits; a nested call joins the open one."""
        if self._in_transaction:
            yield self
            return
        self._in_transaction = True
        try:
            with transaction.atomic():
                yield self
                if self._copies_asked and self._recheck_copies:
                    self._recheck_copies(self, self._copies_asked)
                self._bring_in_line()
            self._detections |= self._detections_asked
        finally:
            self._in_transaction = False
            self._systems.clear()
            self._detections_asked.clear()
            self._published_runs.clear()
            self._created_runs.clear()
            self._copies_asked.clear()

    @contextmanager
    def step(self) -> Iterator["Batch"]:
        """One write inside the open transaction that may fail alone (one submission of a bulk ingest): a
        savepoint. Left by an exception, its writes are rolled back and what its verbs noted is forgotten (a
        system it created is gone with it); the transaction goes on with the next step."""
        if not self._in_transaction:
            raise RuntimeError("a batch step runs inside one of the batch's transactions")
        noted = [set(notes) for notes in self._notes()]
        try:
            with transaction.atomic():
                yield self
        except BaseException:
            for notes, before in zip(self._notes(), noted, strict=True):
                notes.clear()
                notes.update(before)
            raise

    def _notes(self) -> tuple[set[int], ...]:
        """What the verbs note in the open transaction, for its upkeep before it commits."""
        return self._systems, self._detections_asked, self._published_runs, self._created_runs, self._copies_asked

    def recheck_copies_of(self, run_ids: Iterable[int], recheck: Callable[["Batch", set[int]], None]) -> None:
        """Have `recheck(batch, run_ids)` check the copies of these runs again once, before the open transaction
        commits (a new copy changes the findings of the runs it copies: apps.results.services.anomaly_checks),
        not once per run written."""
        self._copies_asked.update(run_ids)
        self._recheck_copies = recheck

    def _bring_in_line(self) -> None:
        published.link_runs(self._published_runs)
        self._lists_changed |= list_entries.sync_systems(self._systems)
        custom_lists.refresh_systems_on_commit(self._systems)
        bump_data_version_on_commit()

    def _finish(self) -> None:
        """After the batch's last commit: the lists' maintenance and the change detection, once each."""
        self.hand_over().ask()

    def hand_over(self) -> Upkeep:
        """The upkeep the batch's commits so far leave, now the caller's to ask for (`Upkeep.ask`), with other
        batches' (module docstring); the batch forgets it."""
        upkeep = Upkeep(set(self._lists_changed), set(self._detections))
        self._lists_changed.clear()
        self._detections.clear()
        return upkeep

    def _note_systems(self, system_ids: Iterable[int | None]) -> None:
        self._systems.update(pk for pk in system_ids if pk is not None)

    def _note_run(self, run: Run, *, created: bool = False) -> None:
        """Note the run's system, and the systems its entries are on when it moved from one (a run created in
        this transaction has no entries)."""
        created = created or run.pk in self._created_runs
        moved_from = (
            [] if created else run.list_entries.exclude(system_id=run.system_id).values_list("system_id", flat=True)
        )
        self._note_systems([run.system_id, *moved_from])

    def detect_changes(self, run_ids: Iterable[int]) -> None:
        """Recompute the changes of these new or rewritten runs' systems once the batch has committed (asked
        inside a transaction, only if that commits)."""
        (self._detections_asked if self._in_transaction else self._detections).update(run_ids)

    def store(self, **fields) -> Run:
        """A new run with these columns (its children are the caller's, in the same batch); private until
        released when its upload is (apps.results.models.visibility)."""
        upload = fields.get("upload")
        fields.setdefault("embargoed", bool(upload and upload.embargoed))
        with self.transaction(), run_writes_open():
            run = Run.objects.create(**fields)
            self._created_runs.add(run.pk)
            self._note_run(run, created=True)
            self._published_runs.add(run.pk)
        return run

    def rewrite(self, run: Run, fields: dict) -> Run:
        """A stored run read again from its files: its children go (the caller stores the new ones in the same
        batch) and its columns are replaced."""
        with self.transaction(), run_writes_open():
            for children in (run.phases, run.files, run.tunables, run.stripings, run.rank_stats, run.anomalies):
                children.all().delete()
            for name, value in fields.items():
                setattr(run, name, value)
            run.save()
            self._note_run(run)
            self._published_runs.add(run.pk)
        return run

    def edit(self, run: Run, fields: Iterable[str] | None = None) -> Run:
        """Save the changes made to a run's columns (all of them, or `fields`); a run not yet stored is created."""
        with self.transaction(), run_writes_open():
            created = run._state.adding
            run.save(update_fields=None if fields is None else list(fields))
            self._note_run(run, created=created)
        return run

    def set_verdicts(self, run: Run, anomalies: Iterable[Anomaly] | None = None) -> Run:
        """Derive the run's ranking verdicts from its stored anomalies (or `anomalies`, all of them, just stored
        by the caller) and save them."""
        with self.transaction(), run_writes_open():
            run.derive_verdicts(anomalies)
            run.save(update_fields=Run.VERDICT_FIELDS)
            self._note_run(run)
        return run

    def set_verdicts_all(self, findings: Iterable[tuple[Run, list[Anomaly]]]) -> None:
        """`set_verdicts` of many runs, each with all its anomalies just stored, in one update."""
        findings = list(findings)
        with self.transaction(), run_writes_open():
            for run, anomalies in findings:
                run.derive_verdicts(anomalies)
            Run.objects.bulk_update([run for run, _ in findings], Run.VERDICT_FIELDS)
            for run, _ in findings:
                self._note_run(run)

    def edit_anomalies(self, run: Run, *, saved: Iterable[Anomaly] = (), deleted: Iterable[Anomaly] = ()) -> Run:
        """Save and delete anomalies of a run by hand (the admin), then derive its verdicts again from what is
        stored, so its lists show it as the rules' own findings would."""
        with self.transaction():
            for anomaly in deleted:
                anomaly.delete()
            for anomaly in saved:
                anomaly.save()
            return self.set_verdicts(Run.objects.get(pk=run.pk))

    def release(self, runs: QuerySet) -> list[int]:
        """Make embargoed runs public, all at once (apps.results.services.embargo: an edition released, an embargo
        passed): their systems' list entries re-derived in the batch, their changes detected after it. Returns the
        runs released."""
        with self.transaction(), run_writes_open():
            rows = list(runs.filter(embargoed=True).values_list("pk", "system_id"))
            run_ids = [pk for pk, _ in rows]
            Run.objects.filter(pk__in=run_ids).update(embargoed=False)
            self._note_systems(system_id for _, system_id in rows)
            self.detect_changes(run_ids)
        return run_ids

    def delete(self, runs: Iterable[Run]) -> int:
        """Delete runs (a queryset or a list), taking them off every list first (their entries would cascade
        away unshifted, their custom-list entries uncounted); each system's next best run takes its place.
        Returns how many runs went."""
        selected = runs if isinstance(runs, QuerySet) else Run.objects.filter(pk__in=[run.pk for run in runs])
        with self.transaction(), run_writes_open():
            rows = list(selected.values_list("pk", "system_id"))
            run_ids = [pk for pk, _ in rows]
            self._lists_changed |= list_entries.remove_runs(run_ids)
            custom_lists.forget_runs(run_ids)
            deleted = Run.objects.filter(pk__in=run_ids).delete()[1].get(Run._meta.label, 0)
            self._note_systems(system_id for _, system_id in rows)
        return deleted

    def edit_system(self, system: StorageSystem, fields: Iterable[str] | None = None) -> StorageSystem:
        """Save a storage system (renamed, re-described) and copy its names into its runs' list entries."""
        with self.transaction():
            created = system._state.adding
            system.save(update_fields=None if fields is None else list(fields))
            if not created:  # a new system has no runs, so no entries
                list_entries.copy_system_columns([system.pk])
        return system

    def edit_institution(self, institution: Institution, fields: Iterable[str] | None = None) -> Institution:
        """Save an institution (renamed) and copy its name into the list entries of its systems' runs."""
        with self.transaction():
            created = institution._state.adding
            institution.save(update_fields=None if fields is None else list(fields))
            if not created:
                list_entries.copy_system_columns(institution.systems.values_list("pk", flat=True))
        return institution


@contextmanager
def batch(*, atomic: bool = True) -> Iterator[Batch]:
    """A unit of work: one transaction (or, with `atomic=False`, one per `batch.transaction()` the caller
    opens), its upkeep once at the end (module docstring)."""
    work = Batch()
    if not atomic:
        try:
            yield work
        finally:
            work._finish()
        return
    with work.transaction():
        yield work
    work._finish()


def joined(work: Batch | None) -> AbstractContextManager[Batch]:
    """The caller's batch, or a batch of its own: for a service that writes runs alone or in a caller's unit
    of work (a review in the admin's edit of a run)."""
    return nullcontext(work) if work is not None else batch()


def store(**fields) -> Run:
    """`Batch.store` as a batch of its own."""
    with batch() as work:
        return work.store(**fields)


def rewrite(run: Run, fields: dict) -> Run:
    """`Batch.rewrite` as a batch of its own."""
    with batch() as work:
        return work.rewrite(run, fields)


def edit(run: Run, fields: Iterable[str] | None = None) -> Run:
    """`Batch.edit` as a batch of its own."""
    with batch() as work:
        return work.edit(run, fields)


def set_verdicts(run: Run) -> Run:
    """`Batch.set_verdicts` as a batch of its own."""
    with batch() as work:
        return work.set_verdicts(run)


def edit_anomalies(run: Run, *, saved: Iterable[Anomaly] = (), deleted: Iterable[Anomaly] = ()) -> Run:
    """`Batch.edit_anomalies` as a batch of its own."""
    with batch() as work:
        return work.edit_anomalies(run, saved=saved, deleted=deleted)


def delete(runs: Iterable[Run]) -> int:
    """`Batch.delete` as a batch of its own."""
    with batch() as work:
        return work.delete(runs)


def edit_system(system: StorageSystem, fields: Iterable[str] | None = None) -> StorageSystem:
    """`Batch.edit_system` as a batch of its own."""
    with batch() as work:
        return work.edit_system(system, fields)


def edit_institution(institution: Institution, fields: Iterable[str] | None = None) -> Institution:
    """`Batch.edit_institution` as a batch of its own."""
    with batch() as work:
        return work.edit_institution(institution, fields)


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
