"""`Run.objects.with_details()` gives the same related rows, in the same order, as Django's prefetch_related.

On PostgreSQL it reads them in the runs' own query (apps.results.models.run_details); on SQLite it is
prefetch_related itself, so there the comparison holds trivially. The rows are chosen to stress the
reading: floats that JSON cannot hold as numbers (NaN, infinities), exact decimals, nested JSON, text with
quotes, backslashes, newlines and non-ASCII, mixed-case names whose order depends on the database's collation.
"""

import math

import pytest
from django.db import connection
from django.db.models import Prefetch
from django.db.models.signals import post_init, pre_init
from django.test.utils import CaptureQueriesContext

from apps.results.models import Anomaly, LustrePatch, PhaseResult, Run
from apps.results.models.querysets import DETAIL_RELATIONS
from apps.results.models.run_details import Relation
from tests.factories import (
    AnomalyFactory,
    LustreBuildFactory,
    LustrePatchFactory,
    RunFactory,
    RunFileFactory,
    StripingFactory,
    TunableFactory,
)

pytestmark = pytest.mark.django_db

RELATIONS = ("phases", "tunables", "stripings", "files", "anomalies")


def by_prefetch_related(pks):
    """The reference: Django's own prefetch_related, errors first among the anomalies (the pages' order)."""
    severity_first = {"error": 0, "warn": 1}
    runs = {
        run.pk: run
        for run in Run.objects.filter(pk__in=pks)
        .select_related("lustre_build")
        .prefetch_related("phases", "tunables", "stripings", "files", "lustre_build__patches", Prefetch("anomalies"))
    }
    for run in runs.values():
        ordered = sorted(run.anomalies.all(), key=lambda a: (severity_first.get(a.severity, 2), a.rule, a.pk))
        run._reference_anomalies = ordered
    return runs


def values(row):
    """Every column of a row, NaN made comparable."""
    return [
        ("nan" if isinstance(value, float) and math.isnan(value) else value, type(value).__name__)
        for value in (getattr(row, field.attname) for field in type(row)._meta.concrete_fields)
    ]


@pytest.fixture
def awkward_runs():
    build = LustreBuildFactory()
    for position in (2, 0, 1):
        LustrePatchFactory(build=build, position=position, summary='llite: "quoted" \\ back\nslash — ü')
    first = RunFactory(lustre_build=build)
    second = RunFactory()
    for position, phase in enumerate(PhaseResult.objects.filter(run__in=[first, second]).order_by("-pk")):
        PhaseResult.objects.filter(pk=phase.pk).update(position=position)  # the pages' order, not the ids'
    PhaseResult.objects.filter(run=first, name="ior_easy_write").update(
        value=float("nan"), seconds=float("inf"), details={"nested": {"list": [1, 2.5, None, "x"]}, "empty": {}}
    )
    PhaseResult.objects.filter(run=first, name="ior_hard_write").update(value=0.1 + 0.2, seconds=-float("inf"))
    PhaseResult.objects.filter(run=first, name="find").update(value=12.345678901234567, command="mdtest -n 'a\tb'")
    for parameter in ("osc.*.max_dirty_mb", "Llite.statahead", "llite.max_cached_mb", "_hidden", "ZFS"):
        TunableFactory(run=first, parameter=parameter, value=f"{parameter}=1\n2")
    StripingFactory.create_batch(3, run=first)
    RunFileFactory(run=first, name="Z.ini", content="[global]\nx = 'ü' \\ \"y\"\n")
    RunFileFactory(run=first, name="a.txt", content="")
    for severity, rule in (("info", "b_rule"), ("warn", "a_rule"), ("error", "z_rule"), ("error", "a_rule")):
        AnomalyFactory(run=first, severity=severity, rule=rule, evidence={"ratio": math.pi, "why": ["ü", None]})
    return [first, second]


def test_details_are_the_rows_prefetch_related_reads_in_its_order(awkward_runs):
    pks = [run.pk for run in awkward_runs]
    reference = by_prefetch_related(pks)

    detailed = Run.objects.with_details().in_bulk(pks)

    with CaptureQueriesContext(connection) as queries:
        for pk in pks:
            run, expected = detailed[pk], reference[pk]
            for relation in RELATIONS:
                wanted = (
                    expected._reference_anomalies
                    if relation == "anomalies"
                    else list(getattr(expected, relation).all())
                )
                got = list(getattr(run, relation).all())
                assert [values(row) for row in got] == [values(row) for row in wanted], relation
                assert all(row.run is run for row in got), f"{relation}: each row links back to its run"
            if expected.lustre_build:
                got = list(run.lustre_build.patches.all())
                assert [values(p) for p in got] == [values(p) for p in expected.lustre_build.patches.all()]
                assert [p.position for p in got] == [0, 1, 2]
    assert queries.captured_queries == [], "every related row was read with the runs"


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


def test_the_related_rows_are_model_instances_a_page_can_save():
    """Built as the ORM builds them (Model.from_db): not new, bound to the database they came from."""
    run = RunFactory()
    anomaly = AnomalyFactory(run=run, severity="warn")
    loaded = Run.objects.with_details().get(pk=run.pk).anomalies.all()[0]
    assert (loaded.pk, loaded._state.adding, loaded._state.db) == (anomaly.pk, False, "default")
    loaded.message = "reworded"
    loaded.save(update_fields=["message"])
    assert Anomaly.objects.get(pk=anomaly.pk).message == "reworded"
    assert not LustrePatch.objects.exists()


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


def test_each_row_knows_its_owner_without_a_query_and_nothing_listens_to_its_construction(awkward_runs):
    """The rows are built without Model.__init__ (Relation.attach): what __init__ would have told a pre_init or
    post_init receiver, nobody must be waiting for, and the link back to the owner is the owner itself."""
    for relation in DETAIL_RELATIONS:
        assert not pre_init.has_listeners(relation.model), relation.model
        assert not post_init.has_listeners(relation.model), relation.model
    run = Run.objects.with_details().get(pk=awkward_runs[0].pk)
    with CaptureQueriesContext(connection) as queries:
        assert all(phase.run is run for phase in run.phases.all())
        assert all(patch.build is run.lustre_build for patch in run.lustre_build.patches.all())
    assert queries.captured_queries == []
