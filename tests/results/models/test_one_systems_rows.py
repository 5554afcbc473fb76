"""One system's changes and annotations (the history page's) come in the models' own order, without the
order's system part: within one system it is constant, and joining institution and system to sort by it
was most of the query's planning."""

from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.results.models import Annotation, Change
from tests.factories import ChangeFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


def at(day: int) -> datetime:
    return datetime(2024, 1, day, tzinfo=UTC)


@pytest.fixture
def system_with_changes():
    """Changes at three runs of one system (two metrics at one of them), a change of another system, and an
    annotation at each of the three runs, whose scores are 30, 50 and 40."""
    system = StorageSystemFactory()
    early, late, middle = (
        RunFactory(system=system, run_timestamp=at(day), score_bw=score, score_md=score, phases=False)
        for day, score in ((1, 30.0), (20, 50.0), (10, 40.0))
    )
    for run, metric in ((early, "score"), (late, "score_md"), (late, "score"), (middle, "score_bw")):
        ChangeFactory(system=system, run_after=run, run_before=run, metric=metric)
    ChangeFactory()
    for run in (early, late, middle):
        Annotation.objects.create(system=system, run=run, text=f"at {run.score_total:.0f}")
    return system


def test_a_systems_changes_come_in_the_models_order_newest_first_then_by_metric(system_with_changes):
    mine = list(Change.objects.of_system(system_with_changes.pk))
    assert mine == list(system_with_changes.changes.visible())  # the Meta ordering, system part and all
    assert [(change.run_after.run_timestamp.day, change.metric) for change in mine] == [
        (20, "score"),
        (20, "score_md"),
        (10, "score_bw"),
        (1, "score"),
    ]


def test_a_systems_annotations_come_in_the_models_order_best_run_first(system_with_changes):
    mine = list(Annotation.objects.of_system(system_with_changes.pk))
    assert mine == list(system_with_changes.annotations.all())
    assert [annotation.text for annotation in mine] == ["at 50", "at 40", "at 30"]


def test_neither_query_joins_the_institution_or_the_system(system_with_changes):
    with CaptureQueriesContext(connection) as queries:
        list(Change.objects.of_system(system_with_changes.pk))
        list(Annotation.objects.of_system(system_with_changes.pk))
    for query in queries.captured_queries:
        assert "results_institution" not in query["sql"]
        assert "JOIN" not in query["sql"].split(" WHERE ")[0].replace('JOIN "results_run"', "")
