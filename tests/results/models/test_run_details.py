"""`Run.objects.with_details()` reads a run's related rows with it (one prefetch per relation), in the order the pages
show them, so that a page reading them runs no further query."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.results.models import PhaseResult, Run
from apps.results.models.run_details import Relation
from tests.factories import AnomalyFactory, LustreBuildFactory, LustrePatchFactory, RunFactory, RunFileFactory

pytestmark = pytest.mark.django_db

RELATIONS = ("phases", "tunables", "stripings", "files", "anomalies")


def test_anomalies_come_errors_first_then_by_rule_and_patches_by_position_without_a_query():
    build = LustreBuildFactory()
    for position in (2, 0, 1):
        LustrePatchFactory(build=build, position=position)
    run = RunFactory(lustre_build=build)
    for severity, rule in (("info", "b_rule"), ("warn", "a_rule"), ("error", "z_rule"), ("error", "a_rule")):
        AnomalyFactory(run=run, severity=severity, rule=rule)

    detailed = Run.objects.with_details().get(pk=run.pk)

    with CaptureQueriesContext(connection) as queries:
        anomalies = [(anomaly.severity, anomaly.rule) for anomaly in detailed.anomalies.all()]
        positions = [patch.position for patch in detailed.lustre_build.patches.all()]
        assert all(phase.run is detailed for phase in detailed.phases.all())
    assert anomalies == [("error", "a_rule"), ("error", "z_rule"), ("warn", "a_rule"), ("info", "b_rule")]
    assert positions == [0, 1, 2]
    assert queries.captured_queries == []


def test_a_run_without_related_rows_has_empty_relations_without_a_query():
    run = RunFactory(phases=False)
    detailed = Run.objects.with_details().get(pk=run.pk)
    with CaptureQueriesContext(connection) as queries:
        assert [list(getattr(detailed, relation).all()) for relation in RELATIONS] == [[]] * len(RELATIONS)
    assert queries.captured_queries == []


def test_details_without_files_leave_the_files_to_be_read_when_asked():
    run = RunFactory()
    RunFileFactory(run=run, name="config.ini", content="x")
    detailed = Run.objects.with_details(files=False).get(pk=run.pk)
    with CaptureQueriesContext(connection) as queries:
        assert list(detailed.phases.all())
    assert queries.captured_queries == []
    with CaptureQueriesContext(connection) as queries:
        assert [file.name for file in detailed.files.all()] == ["config.ini"]
    assert len(queries.captured_queries) == 1


def test_a_relation_of_some_columns_reads_those_and_defers_the_rest_as_only_would():
    run = RunFactory()
    phases = Relation("phases", "PhaseResult", fields=("name", "value"))
    loaded = Run.objects.filter(pk=run.pk).with_related_rows(phases).get()
    with CaptureQueriesContext(connection) as queries:
        rows = list(loaded.phases.all())
    assert queries.captured_queries == []
    expected = PhaseResult.objects.filter(run=run).order_by("position").values_list("pk", "name", "value")
    assert [(row.pk, row.name, row.value) for row in rows] == list(expected)
    assert {"details", "command", "unit", "position"} <= rows[0].get_deferred_fields()
    assert "run_id" not in rows[0].get_deferred_fields()
