"""What an ORM write of a run sets off inside the writer's transaction: the list entries of its storage
systems re-derived (apps.results.list_entries.sync_systems) and the custom lists' refresh scheduled for
after the commit (apps.results.custom_lists). The receivers in apps.results.apps call `systems_written`.

Why `once()`: the ingest saves a new run twice in its transaction (created, then its verdicts once its
anomalies are known), and an upload saves many runs in one; bringing the systems' entries in line after
each save cost most of an ingest's queries, half of them for an entry the next save took back. Inside
`once()` the written systems are collected and brought in line once, at its end, still inside the
transaction: what commits is the same, entries and ranks included.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from apps.results import custom_lists, list_entries

#: The systems written inside the innermost active `once()`, or None outside one.
_pending: ContextVar[set[int] | None] = ContextVar("run_upkeep_pending", default=None)


def systems_written(system_ids: Iterable[int | None]) -> None:
    """Bring these systems' entries in line now, or at the end of the enclosing `once()`."""
    ids = {pk for pk in system_ids if pk is not None}
    pending = _pending.get()
    if pending is not None:
        pending.update(ids)
        return
    _bring_in_line(ids)


@contextmanager
def once() -> Iterator[None]:
    """Collect the systems of the runs written inside, and bring them in line once when the block ends.

    Use inside the transaction of the writes (the entries must commit with them). Nested: the outermost
    block does it. A block left by an exception does nothing: its transaction is being rolled back.
    """
    if _pending.get() is not None:
        yield
        return
    pending: set[int] = set()
    token = _pending.set(pending)
    try:
        yield
    finally:
        _pending.reset(token)
    _bring_in_line(pending)


def _bring_in_line(system_ids: set[int]) -> None:
    list_entries.sync_systems(system_ids)
    custom_lists.refresh_systems_on_commit(system_ids)
