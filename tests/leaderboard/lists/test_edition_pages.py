"""Frozen editions as pages: index, each list of an edition, exports."""

import csv
import io
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.results.services.editions import freeze_edition
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def isc19():
    lustre = RunFactory(system=StorageSystemFactory(filesystem="Lustre"), score_bw=300, client_nodes=10)
    ime = RunFactory(system=StorageSystemFactory(filesystem="IME"), score_bw=200, client_nodes=2048)
    freeze_edition("ISC19", "io500", title="ISC High Performance 2019")
    freeze_edition("ISC19", "ten-node")
    RunFactory(score_bw=5000)  # after the freeze: on the live list only
    return lustre, ime


def test_the_index_lists_editions_with_their_lists(client, isc19):
    html = client.get("/editions/").content.decode()
    assert "/editions/ISC19/" in html
    assert "/editions/ISC19/io500/" in html
    assert "/editions/ISC19/ten-node/" in html
    assert "ISC High Performance 2019" in html


def test_an_edition_shows_its_frozen_rows_not_the_live_ones(client, isc19):
    lustre, ime = isc19
    response = client.get("/editions/ISC19/")
    assert response.context["edition"].list_kind == "io500"
    assert [(row.run_id, row.rank) for row in response.context["rows"]] == [(lustre.pk, 1), (ime.pk, 2)]
    html = response.content.decode()
    assert "Frozen on" in html
    assert "/editions/ISC19/ten-node/" in html
    response = client.get("/editions/ISC19/io500/?filesystem=ime&sort=-nodes")
    assert [(row.run_id, row.rank) for row in response.context["rows"]] == [(ime.pk, 2)]


def test_an_edition_carries_current_anomaly_badges(client, isc19):
    lustre, _ = isc19
    AnomalyFactory(run=lustre, rule="cache_effect_stat")
    assert "cache_effect_stat" in client.get("/editions/ISC19/io500/").content.decode()


def test_unknown_editions_and_lists_are_not_found(client, isc19):
    assert client.get("/editions/SC99/").status_code == 404
    assert client.get("/editions/ISC19/historic/").status_code == 404


def test_edition_exports_hold_the_frozen_rows(client, isc19):
    lustre, ime = isc19
    data = json.loads(b"".join(client.get("/editions/ISC19/io500/export.json").streaming_content))
    assert data["meta"]["edition"] == "ISC19"
    assert [(row["run_id"], row["rank"]) for row in data["rows"]] == [(lustre.pk, 1), (ime.pk, 2)]
    text = b"".join(client.get("/editions/ISC19/ten-node/export.csv?sort=rank").streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(row["edition"], row["list"], row["run_id"]) for row in rows] == [("ISC19", "ten-node", str(lustre.pk))]


@pytest.mark.parametrize("size", [2, 20])
def test_edition_pages_run_a_constant_number_of_queries(client, size, django_assert_num_queries):
    for index in range(size):
        AnomalyFactory(run=RunFactory(score_bw=index + 1))
    freeze_edition(f"E{size}", "io500")
    # editions of the name (with their count and file systems, stored when frozen), the page's entry ids, those
    # entries with their runs, badges
    with django_assert_num_queries(4):
        assert client.get(f"/editions/E{size}/io500/").status_code == 200
    with django_assert_num_queries(1):
        assert client.get("/editions/").status_code == 200


def entry_reads_without_a_limit(client, urls) -> list[str]:
    """The SQL of the queries the pages at `urls` run on the edition entries with neither a LIMIT nor a list of
    their ids: each reads every entry of an edition (a count, its file systems, a sort) however few the page shows."""
    with CaptureQueriesContext(connection) as queries:
        for url in urls:
            assert client.get(url).status_code == 200, url
    return [
        query["sql"]
        for query in queries
        if "results_editionentry" in query["sql"]
        and "LIMIT" not in query["sql"].upper()
        and '"results_editionentry"."id" IN (' not in query["sql"]
    ]


def test_edition_pages_read_a_page_of_entries_never_all_of_them(client, isc19):
    urls = [
        "/editions/",
        "/editions/ISC19/",
        "/editions/ISC19/io500/?sort=-bw",
        "/editions/ISC19/io500/?filesystem=lustre&sort=institution",
        "/editions/ISC19/awards/",
        "/api/v1/editions/",
        "/api/v1/editions/ISC19/awards/",
    ]
    assert entry_reads_without_a_limit(client, urls) == []


def test_an_edition_page_counts_its_entries_and_suggests_their_file_systems(client, isc19):
    html = client.get("/editions/ISC19/io500/").content.decode()
    assert "2 rows." in html
    assert '<option value="IME"></option><option value="Lustre"></option>' in html
    filtered = client.get("/editions/ISC19/io500/?filesystem=lustre").content.decode()
    assert "1 row match the filters" in filtered
