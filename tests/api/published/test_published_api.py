"""The published record through the API: editions, their entries as published, their change log and audit."""

import pytest

from apps.ingest.published.corrections import EMPTY_STRING_AS_ZERO, Correction
from apps.ingest.published.importer import import_published
from apps.results.models import Edition
from tests.conftest import TEST_DATA
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

SAMPLE_ORDER = ["01-dump.sql", "02-lists.sql", "03-fixes.sql"]
SAMPLE_CORRECTIONS = [Correction("02-lists.sql", 0, "'' in an integer column", accepts=EMPTY_STRING_AS_ZERO)]


@pytest.fixture
def record():
    """The miniature record; WekaIO's files (submission 3) give bw 150 where 174.74 was published."""
    import_published(TEST_DATA / "published_sql", SAMPLE_ORDER, SAMPLE_CORRECTIONS)
    return RunFactory(
        source_path="WekaIO/WekaIO on AWS/WekaIO/2019/submission-3",
        score_bw=150.0,
        score_md=5045.33,
        client_nodes=345,
        phases=False,
    )


def sc19_io500() -> int:
    return Edition.objects.get(source=Edition.Source.PUBLISHED, name="SC19", list_kind="io500").pk


def test_the_editions_have_their_release_date_and_counts(client, record):
    body = client.get("/api/v1/published-editions/", {"name": "SC19"}).json()
    editions = {row["list_kind"]: row for row in body["results"]}
    assert set(editions) == {"io500", "ten-node"}
    assert editions["io500"]["released_on"] == "2019-11-19"
    assert editions["io500"]["title"] == "SC19 IO500 list"
    assert (editions["io500"]["entry_count"], editions["io500"]["linked_count"]) == (4, 1)


def test_the_entries_filter_by_release_list_and_linked(client, record):
    body = client.get("/api/v1/published-entries/", {"release": "SC19", "list_kind": "io500", "linked": "true"}).json()
    assert body["count"] == 1
    (entry,) = body["results"]
    assert (entry["rank"], entry["submission_id"], entry["score"], entry["run"]) == (1, 3, 938.95, record.pk)
    assert entry["system_name"] == "WekaIO on AWS"
    unlinked = client.get("/api/v1/published-entries/", {"release": "SC19", "list_kind": "io500", "linked": "false"})
    assert [row["rank"] for row in unlinked.json()["results"]] == [2, 3, 4]


def test_the_audit_gives_each_difference_and_the_reconstructed_rank(client, record):
    rows = client.get(f"/api/v1/published-editions/{sc19_io500()}/audit/").json()
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    first = rows[0]
    assert {"field": "bw", "published": 174.74, "recomputed": 150.0, "cause": "unexplained"} in first["differences"]
    assert first["move"] == {"published_place": 1, "reconstructed_rank": 1, "move": 0, "reason": ""}
    assert first["recomputed_score"] == pytest.approx((150.0 * 5045.33) ** 0.5)
    assert rows[1]["differences"] is None
    assert rows[1]["move"] is None


def test_the_change_log_and_the_summary(client, record):
    changes = client.get(f"/api/v1/published-editions/{sc19_io500()}/changes/").json()
    assert {"action": "update", "submission_id": 7, "field": "information_system", "after": "Mistral"}.items() <= (
        changes[0].items()
    )
    summary = {
        (row["release"], row["list"]): row for row in client.get("/api/v1/published-editions/audit-summary/").json()
    }
    assert summary[("SC19", "io500")] == {
        "release": "SC19",
        "list": "io500",
        "title": "SC19 IO500 list",
        "entries": 4,
        "with_raw_files": 1,
        "agree": 0,
        "differ": 1,
    }


def test_the_schema_documents_the_published_endpoints(client):
    schema = client.get("/api/v1/schema/", {"format": "json"}).json()
    for path in (
        "/api/v1/published-editions/",
        "/api/v1/published-editions/{id}/audit/",
        "/api/v1/published-editions/{id}/changes/",
        "/api/v1/published-editions/audit-summary/",
        "/api/v1/published-entries/",
    ):
        assert path in schema["paths"], path
