"""Custom lists keep each member's equation value: pages read a range, writes to runs are followed, ties are ranked
as competition ranks across page boundaries, and runs the equation has no value for come last, unranked."""

import pytest
from django.core.paginator import Paginator
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.results.models import CustomListEntry, PhaseResult, ReviewStatus
from apps.results.services import runs
from apps.results.services.custom_lists import (
    CustomListRows,
    complete,
    forget_all,
    refresh_systems,
    save_custom_list,
)
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db


def ranks(custom, page_size=50) -> list[list[tuple[int, int | None]]]:
    """(run id, rank) of every page of the list, page by page, as a new request reads it."""
    custom.refresh_from_db()
    paginator = Paginator(CustomListRows(custom), page_size)
    return [[(row.run.pk, row.rank) for row in paginator.page(number)] for number in paginator.page_range]


def saved(name: str, equation: str, base_list: str):
    """A list saved, as it reads once its fill task (run here, in-process) has evaluated every member."""
    custom = save_custom_list(name, equation, base_list=base_list)
    complete(custom.pk)
    custom.refresh_from_db()
    return custom


def set_phase(run, name: str, value: float | None) -> None:
    PhaseResult.objects.filter(run=run, name=name).update(value=value)


def test_ties_keep_their_competition_rank_across_page_boundaries():
    a, b, c, d, e = (RunFactory(score_bw=bw) for bw in (50.0, 40.0, 40.0, 40.0, 10.0))
    custom = saved("bandwidth", "bw", base_list="full")
    # 50 is first; the three 40s share place 2; 10 is fifth ("12225"), whatever the page size.
    assert ranks(custom, page_size=2) == [[(a.pk, 1), (b.pk, 2)], [(c.pk, 2), (d.pk, 2)], [(e.pk, 5)]]
    assert ranks(custom, page_size=3) == [[(a.pk, 1), (b.pk, 2), (c.pk, 2)], [(d.pk, 2), (e.pk, 5)]]


def test_runs_without_a_value_are_listed_last_without_a_rank():
    divided_by_zero, ranked, log_of_zero, overflow, no_phases = (
        RunFactory(),
        RunFactory(),
        RunFactory(),
        RunFactory(),
        RunFactory(phases=False),
    )
    set_phase(divided_by_zero, "mdtest_easy_write", 0.0)
    set_phase(ranked, "ior_easy_write", 9.0)
    set_phase(ranked, "mdtest_easy_write", 3.0)
    set_phase(log_of_zero, "ior_easy_write", 0.0)
    set_phase(overflow, "ior_easy_write", 1000.0)  # e^1000 is past the largest double
    custom = saved(
        "ratio", "log(ior_easy_write) + ior_easy_write / mdtest_easy_write + 0 * exp(ior_easy_write)", base_list="full"
    )
    rows = list(CustomListRows(custom))
    assert [(row.run.pk, row.rank) for row in rows] == [
        (ranked.pk, 1),
        (divided_by_zero.pk, None),
        (log_of_zero.pk, None),
        (overflow.pk, None),
        (no_phases.pk, None),
    ]
    assert rows[0].value == pytest.approx(2.1972245773 + 3.0)
    assert [row.value for row in rows[1:]] == [None, None, None, None]


def test_a_list_just_saved_is_incomplete_until_its_fill_task_has_run(celery_eager, django_capture_on_commit_callbacks):
    runs = [RunFactory(score_bw=bw) for bw in (10.0, 30.0)]
    with django_capture_on_commit_callbacks(execute=False) as on_commit:
        custom = save_custom_list("easy write", "ior_easy_write", base_list="full")
    rows = CustomListRows(custom)
    assert (rows.complete, rows.count(), rows.members) == (False, 0, 2)

    for committed in on_commit:  # the save commits: its fill task runs
        committed()
    custom.refresh_from_db()
    assert CustomListRows(custom).complete
    assert ranks(custom) == [[(runs[1].pk, 1), (runs[0].pk, 2)]]


def test_the_list_follows_writes_to_its_runs(celery_eager, django_capture_on_commit_callbacks):
    low, high = RunFactory(score_bw=10.0), RunFactory(score_bw=20.0)
    custom = saved("easy write", "ior_easy_write", base_list="full")
    assert ranks(custom) == [[(high.pk, 1), (low.pk, 2)]]

    with django_capture_on_commit_callbacks(execute=True):  # one write, committed: the run, then its phases
        newcomer = RunFactory(score_bw=30.0)
    assert ranks(custom) == [[(newcomer.pk, 1), (high.pk, 2), (low.pk, 3)]]

    with django_capture_on_commit_callbacks(execute=True):  # a reprocessed run: its phases change, it is saved
        set_phase(low, "ior_easy_write", 99.0)
        runs.edit(low)
    assert ranks(custom) == [[(low.pk, 1), (newcomer.pk, 2), (high.pk, 3)]]

    with django_capture_on_commit_callbacks(execute=True):  # off the full list, so off the custom list
        newcomer.review_status = ReviewStatus.REJECTED
        runs.edit(newcomer)
    assert ranks(custom) == [[(low.pk, 1), (high.pk, 2)]]

    with django_capture_on_commit_callbacks(execute=True):
        runs.delete([high])
    assert ranks(custom) == [[(low.pk, 1)]]


def test_a_system_whose_best_run_changes_changes_its_member():
    first = RunFactory(score_bw=10.0)
    custom = saved("best easy write", "ior_easy_write", base_list="io500")
    assert ranks(custom) == [[(first.pk, 1)]]
    second = RunFactory(system=first.system, score_bw=20.0)  # the system's best run now: it replaces the first
    refresh_systems([first.system_id])
    assert ranks(custom) == [[(second.pk, 1)]]


def test_a_list_emptied_around_the_orm_is_refilled_after_its_next_read(
    celery_eager, django_capture_on_commit_callbacks
):
    runs = [RunFactory(score_bw=bw) for bw in (10.0, 30.0, 20.0)]
    custom = saved("easy write", "ior_easy_write", base_list="full")
    forget_all()
    custom.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        read = CustomListRows(custom)
    assert (read.complete, read.count()) == (False, 0)  # the read shows what there is and asks for the fill
    custom.refresh_from_db()
    assert ranks(custom) == [[(runs[1].pk, 1), (runs[2].pk, 2), (runs[0].pk, 3)]]


def test_reads_of_an_incomplete_list_ask_for_one_fill_at_a_time(django_capture_on_commit_callbacks):
    RunFactory()
    with django_capture_on_commit_callbacks(execute=False) as saving:
        custom = save_custom_list("easy write", "ior_easy_write", base_list="full")
    with django_capture_on_commit_callbacks(execute=False) as reading:
        for _ in range(5):
            CustomListRows(custom)
    assert saving  # the save asked for the fill
    assert reading == []  # the reads did not ask again while it was pending


def test_a_page_costs_the_same_queries_at_any_list_size():
    def page_queries(custom) -> int:
        with CaptureQueriesContext(connection) as queries:
            rows = Paginator(CustomListRows(custom), 5).page(2)
            assert len(rows) == 5
        return len(queries)

    for _ in range(10):
        RunFactory()
    small = saved("small", "sqrt(ior_easy_write * mdtest_easy_write)", base_list="historic")
    small_queries = page_queries(small)
    for _ in range(40):
        RunFactory()
    large = saved("large", "sqrt(ior_easy_write * mdtest_easy_write)", base_list="historic")
    assert page_queries(large) == small_queries


def test_a_new_run_writes_its_own_entries_and_leaves_every_other_entry_as_it_was():
    """The cost of a write is what it changed: 30 saved lists, a system of 5 runs, a sixth run added."""
    system = RunFactory(score_bw=10.0).system
    for index in range(1, 5):
        RunFactory(system=system, score_bw=10.0 + index)
    lists = [saved(f"list {index}", f"ior_easy_write * {index + 1}", base_list="full") for index in range(30)]
    before = dict(CustomListEntry.objects.values_list("pk", "value"))
    assert len(before) == 30 * 5

    newcomer = RunFactory(system=system, score_bw=99.0)
    with CaptureQueriesContext(connection) as queries:
        refresh_systems([system.pk])

    after = dict(CustomListEntry.objects.values_list("pk", "value"))
    assert {pk: value for pk, value in after.items() if pk in before} == before  # untouched rows, same values
    added = CustomListEntry.objects.exclude(pk__in=before)
    assert sorted(added.values_list("run_id", flat=True)) == [newcomer.pk] * 30
    assert [ranks(custom)[0][0] for custom in lists[:3]] == [(newcomer.pk, 1)] * 3
    deletes = [query["sql"] for query in queries.captured_queries if query["sql"].startswith("DELETE")]
    assert deletes == []
