"""Rows written many times into one answer (ManyRowsSerializer: list rows, their scores and badges) are the rows
DRF's own generic path writes, value for value and in the same order."""

import json
from types import SimpleNamespace

import pytest
from rest_framework import serializers

from apps.api.common.serializers import ManyRowsSerializer, RunSummarySerializer
from apps.api.lists.serializers import ListEntrySerializer
from apps.results.models import ListEntry, Run
from apps.results.models.querysets import load_listed
from tests.factories import AnomalyFactory, InstitutionFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def historic_rows():
    """A ranked run with two badges, a run kept off the ranks, and one with a missing score part."""
    flagged = RunFactory(
        system=StorageSystemFactory(name='<Wolf "2">', institution=InstitutionFactory(name="A & B")), score_bw=300.0
    )
    AnomalyFactory(run=flagged)
    AnomalyFactory(run=flagged, rule="bw_exceeds_network", severity="error", phase="", message="more than the wire")
    RunFactory(score_bw=900.0, exclusion_reason="marked invalid by the benchmark")
    RunFactory(score_md=None, score_total=None, client_nodes=None)
    return load_listed(ListEntry.objects.page_entries("historic", {}, None)[:10])


def written(rows, kind="historic") -> str:
    return json.dumps(ListEntrySerializer(rows, many=True, context={"list_kind": kind}).data)


def test_list_rows_are_what_drfs_generic_path_writes(historic_rows, monkeypatch):
    fast = written(historic_rows)
    monkeypatch.setattr(ManyRowsSerializer, "to_representation", serializers.Serializer.to_representation)

    assert fast == written(historic_rows)
    rows = json.loads(fast)
    assert [row["rank"] for row in rows] == [None, 1, None]
    errors_first = ["bw_exceeds_network", "cache_effect_stat"]
    assert [badge["rule"] for badge in rows[1]["anomalies"]] == errors_first
    assert rows[2]["score"]["md"] is None
    assert rows[1]["institution"] == "A & B"


def test_an_attribute_a_row_lacks_is_answered_as_drf_answers_it(historic_rows, monkeypatch):
    """A row without one of the attributes (here a plain object): the nullable field is null, as DRF has it."""
    row = SimpleNamespace(**{name: value for name, value in vars(historic_rows[1]).items() if name != "client_nodes"})
    fast = written([row])
    monkeypatch.setattr(ManyRowsSerializer, "to_representation", serializers.Serializer.to_representation)

    assert fast == written([row])
    assert json.loads(fast)[0]["client_nodes"] is None


def test_the_runs_collections_rows_are_what_drfs_generic_path_writes(monkeypatch):
    """The runs collection's rows (RunSummarySerializer, its system nested): scored, unscored and excluded runs,
    one with an upload-less, timestamp-less past, and names that need escaping in HTML but not in JSON."""
    system = StorageSystemFactory(name='<Wolf "2">', institution=InstitutionFactory(name="A & B"))
    RunFactory(system=system, score_bw=300.0)
    RunFactory(system=system, score_md=None, score_total=None, client_nodes=None, run_timestamp=None)
    RunFactory(score_bw=900.0, exclusion_reason="marked invalid by the benchmark")
    runs = list(Run.objects.select_related("system__institution").order_by("pk"))

    def rows() -> str:
        return json.dumps(RunSummarySerializer(runs, many=True).data)

    fast = rows()
    monkeypatch.setattr(ManyRowsSerializer, "to_representation", serializers.Serializer.to_representation)

    assert fast == rows()
    written_rows = json.loads(fast)
    assert [row["system"]["institution"] for row in written_rows[:2]] == ["A & B", "A & B"]
    assert written_rows[1]["score_total"] is None
    assert [row["eligible"] for row in written_rows] == [True, False, False]
