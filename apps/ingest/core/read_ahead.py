"""Parsing the next runs of a tree while the database stores the last ones.

A bulk ingest alternates two kinds of work: parsing a run (Python, holding the interpreter lock) and storing it
(mostly waiting for PostgreSQL, which runs on another core). Done in turn, the ingest waits for the database about
a fifth of its time with nothing to do. `read_ahead` runs the parsing in a thread a few runs ahead of the storing:
a thread waiting for the database releases the interpreter lock, so the parser uses that wait, and the database's
work overlaps the parsing of the next runs. A bounded queue keeps at most ``depth`` parsed runs in memory.

Threads, not processes: the parsed runs are large Python objects that would cost more to pickle than to parse;
`ingest --workers` is where processes pay (apps.ingest.parallel).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")

#: How long the reading thread waits for room in the queue before it looks whether the consumer has gone.
POLL_SECONDS = 0.1


class _Done:
    """The end of the items, or the exception that ended them."""

    def __init__(self, error: BaseException | None = None):
        self.error = error


def read_ahead(items: Iterable[T], depth: int) -> Iterator[T]:
    """The items of ``items``, produced by a thread at most ``depth`` ahead of the consumer. An exception the
    items raise is raised here, where the consumer reaches it; a consumer that stops early stops the thread."""
    ready: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def produce() -> None:
        try:
            for item in items:
                if not _put(ready, item, stop):
                    return
        except BaseException as error:  # handed to the consumer, which raises it
            _put(ready, _Done(error), stop)
        else:
            _put(ready, _Done(), stop)

    thread = threading.Thread(target=produce, name="ingest-read-ahead", daemon=True)
    thread.start()
    try:
        while not isinstance(item := ready.get(), _Done):
            yield item
        if item.error is not None:
            raise item.error
    finally:
        stop.set()
        thread.join()


def _put(ready: queue.Queue, item, stop: threading.Event) -> bool:
    """Put ``item`` when there is room; False when the consumer stopped first."""
    while not stop.is_set():
        try:
            ready.put(item, timeout=POLL_SECONDS)
        except queue.Full:
            continue
        return True
    return False
