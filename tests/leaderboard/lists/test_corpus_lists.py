"""The public IO500 corpus, ingested: lists, API and exports agree (skipped without ../shared)."""

import json

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Run
from tests.conftest import shared_path

pytestmark = [pytest.mark.corpus, pytest.mark.django_db]


def exported(client, url):
    return json.loads(b"".join(client.get(url).streaming_content))["rows"]


def test_the_lists_of_the_ingested_corpus_agree_with_the_api_and_the_exports(client):
    ingest_path(shared_path("io500-corpus"))
    assert Run.objects.count() > 100

    for kind in ("io500", "ten-node"):
        page = client.get(f"/lists/{kind}/?per_page=500").context["rows"]
        assert page, f"the {kind} list is empty"
        systems = [row.system_id for row in page]
        assert len(systems) == len(set(systems)), f"a system appears twice on the {kind} list"
        scores = [row.score for row in page]
        assert scores == sorted(scores, reverse=True)
        assert page[0].rank == 1
        if kind == "ten-node":
            assert {row.nodes for row in page} == {10}
        expected = [(row.run_id, row.rank) for row in page]
        assert [(row["id"], row["rank"]) for row in exported(client, f"/lists/{kind}/export.json")] == expected
        api = client.get(f"/api/v1/lists/{kind}/?page_size=1000").json()["results"]
        assert [(row["run"], row["rank"]) for row in api] == expected

    best = {}
    for run in Run.objects.eligible():
        if run.system_id not in best or run.score_total > best[run.system_id]:
            best[run.system_id] = run.score_total
    listed = {row.system_id: row.score for row in client.get("/lists/io500/?per_page=500").context["rows"]}
    assert listed == pytest.approx(best)
