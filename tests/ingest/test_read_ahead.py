"""Parsing ahead of the storing (apps.ingest.core.read_ahead): the same items in the same order, at most a few
in memory, errors where the consumer reaches them, no thread left behind."""

import threading
import time

import pytest

from apps.ingest.core.read_ahead import read_ahead


def test_the_items_come_in_their_order():
    assert list(read_ahead(iter(range(100)), depth=3)) == list(range(100))


def test_an_empty_source_gives_nothing():
    assert list(read_ahead(iter(()), depth=2)) == []


def test_the_reader_keeps_at_most_depth_items_waiting():
    produced = []

    def source():
        for n in range(50):
            produced.append(n)
            yield n

    consumed = 0
    for _ in read_ahead(source(), depth=4):
        consumed += 1
        time.sleep(0.002)  # the reader has time to run ahead as far as it may
        # the queue's 4, and the one the reader holds while it waits for room
        assert len(produced) - consumed <= 4 + 1
    assert consumed == 50


def test_an_error_of_the_source_is_raised_after_the_items_before_it():
    def source():
        yield 1
        yield 2
        raise ValueError("bad run")

    items = read_ahead(source(), depth=8)

    assert [next(items), next(items)] == [1, 2]
    with pytest.raises(ValueError, match="bad run"):
        next(items)


def test_a_consumer_that_stops_early_stops_the_reader():
    def endless():
        n = 0
        while True:
            yield n
            n += 1

    before = threading.active_count()
    items = read_ahead(endless(), depth=2)
    assert [next(items) for _ in range(5)] == [0, 1, 2, 3, 4]
    items.close()

    assert threading.active_count() == before
