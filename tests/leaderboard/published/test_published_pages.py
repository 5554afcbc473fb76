"""The published record's pages: a release as io500.org published it with its change log, the audit of each list
beside the list its raw files make, the audit's summary, and where a run was published."""

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.ingest.published.corrections import EMPTY_STRING_AS_ZERO, Correction
from apps.ingest.published.importer import import_published
from apps.results.models import Edition, EditionEntry
from apps.results.services import runs
from tests.conftest import TEST_DATA
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

SAMPLE_ORDER = ["01-dump.sql", "02-lists.sql", "03-fixes.sql"]
SAMPLE_CORRECTIONS = [Correction("02-lists.sql", 0, "'' in an integer column", accepts=EMPTY_STRING_AS_ZERO)]
WEKA = "WekaIO/WekaIO on AWS/WekaIO/2019/submission-3"
WOLF = "Intel/Wolf/DAOS/2019/submission-4"


@pytest.fixture
def record():
    """The miniature record (SC19 IO500: #1 WekaIO, submission 3, 938.95; #2 and #3 Wolf, submission 4, listed
    twice, 933.64; #4 Mistral, 7) with WekaIO's files giving bw 150 where 174.74 was published."""
    import_published(TEST_DATA / "published_sql", SAMPLE_ORDER, SAMPLE_CORRECTIONS)
    return RunFactory(source_path=WEKA, score_bw=150.0, score_md=5045.33, client_nodes=345, phases=False)


def rows_of(html: str, section: str) -> list[list[str]]:
    """The text of each body row's cells in a section of the page."""
    part = html.split(f'id="{section}"', 1)[1].split("</section>", 1)[0]
    body = part.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


def test_the_release_page_shows_its_source_date_and_first_list_as_published(client, record):
    html = client.get("/published/SC19/").content.decode()
    assert "Source: published by io500.org" in html
    assert "released 2019-11-19" in html
    rows = rows_of(html, "list-io500")
    assert [row[0] for row in rows] == ["1", "2", "3", "4"]
    assert rows[0][:5] == ["1", "938.95", "174.74", "5045.33", "WekaIO on AWS"]
    assert rows[0][-1] == f"run {record.pk}"
    assert f'href="/runs/{record.pk}/"' in html
    assert rows[1][4] == rows[2][4] == "Wolf"
    assert rows[3][4] == "Mistral"
    assert rows[3][6] == "Seagate"
    assert [row[-1] for row in rows[1:]] == ["raw files not ingested"] * 3


def test_the_release_page_has_a_tab_for_each_list_with_its_entries_and_one_for_its_change_log(client, record):
    html = client.get("/published/SC19/").content.decode()
    tabs = html.split('<nav class="tabs"', 1)[1].split("</nav>", 1)[0]
    assert re.findall(r'<a href="([^"]+)"[^>]*>([^<]+)</a>', tabs) == [
        ("/published/SC19/io500/", "SC19 IO500 list (4)"),
        ("/published/SC19/ten-node/", "SC19 10 Node list (2)"),
        ("/published/SC19/changes/", "Change log (2)"),
    ]
    assert '<a href="/published/SC19/io500/" aria-current="page">' in tabs
    assert "list-ten-node" not in html


def test_each_list_of_a_release_has_its_own_page(client, record):
    html = client.get("/published/SC19/ten-node/").content.decode()
    assert '<a href="/published/SC19/ten-node/" aria-current="page">' in html
    # 03-fixes.sql refills the 10-node list with the submissions on 10 client nodes: Wolf and Mistral
    rows = rows_of(html, "list-ten-node")
    assert [row[:2] + row[4:5] for row in rows] == [["1", "933.64", "Wolf"], ["2", "32.15", "Mistral"]]
    assert rows_of(client.get("/published/SC19/io500/").content.decode(), "list-io500") == rows_of(
        client.get("/published/SC19/").content.decode(), "list-io500"
    )


def test_the_change_log_tab_lists_what_the_sites_migrations_changed(client, record):
    html = client.get("/published/SC19/changes/").content.decode()
    assert '<a href="/published/SC19/changes/" aria-current="page">' in html
    changes = rows_of(html, "changes")
    assert changes[0][:4] == ["03-fixes.sql:4", "changed (submissions)", "7", "information_system"]


def test_an_unknown_release_or_list_is_not_found(client, record):
    assert client.get("/published/SC99/").status_code == 404
    assert client.get("/published/SC19/full/audit/").status_code == 404
    assert client.get("/published/SC19/full/").status_code == 404
    assert client.get("/published/SC99/changes/").status_code == 404


def test_the_audit_page_names_each_difference_with_both_numbers_and_its_cause(client, record):
    html = client.get("/published/SC19/io500/audit/").content.decode()
    assert "4 entries, 1 with raw files, 0 agree, 1 differ." in html
    differences = rows_of(html, "differences")
    assert differences[0][:3] == ["1", "WekaIO on AWS (WekaIO)", f"run {record.pk}"]
    assert ["bw", "174.74", "150.00", "unexplained"] in [row[-4:] for row in differences]


def test_the_audit_page_ranks_the_linked_runs_by_their_files_beside_the_published_order(client, record):
    wolf = RunFactory(source_path=WOLF, score_bw=200.0, score_md=5045.33, client_nodes=10, phases=False)
    html = client.get("/published/SC19/io500/audit/").content.decode()
    # published: WekaIO (recomputed 869.94), Wolf, Wolf again; the files give Wolf 1004.52, so it passes WekaIO
    assert [row[:4] + row[5:7] for row in rows_of(html, "reconstructed")] == [
        ["1", "1", "2", "-1", "938.95", "869.94"],
        ["2", "2", "1", "+1", "933.64", "1004.52"],
        ["3", "3", "listed twice", "", "933.64", "1004.52"],
    ]
    assert f'href="/runs/{wolf.pk}/"' in html


def test_the_summary_counts_each_list_and_links_its_audit(client, record):
    html = client.get("/published/audit/").content.decode()
    text = re.sub(r"<[^>]+>", "", html)
    assert "SC19 IO500 list: 4 entries, 1 with raw files, 0 agree, 1 differ" in text
    assert 'href="/published/SC19/io500/audit/"' in html
    assert 'href="/published/SC19/io500/"' in html


def test_the_editions_index_links_each_release_and_its_audits(client, record):
    html = client.get("/editions/").content.decode()
    assert 'href="/published/SC19/"' in html
    assert 'href="/published/SC19/ten-node/audit/"' in html
    assert 'href="/published/SC19/ten-node/"' in html
    assert 'href="/published/audit/"' in html


def test_the_run_page_says_where_the_run_was_published(client, record):
    html = client.get(f"/runs/{record.pk}/").content.decode()
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    assert "#1 on the SC19 IO500 list" in text
    assert 'href="/published/SC19/io500/"' in html


@pytest.mark.parametrize(
    "url", ["/published/SC19/", "/published/SC19/changes/", "/published/SC19/io500/audit/", "/published/audit/"]
)
def test_each_page_runs_the_same_number_of_queries_whatever_its_linked_runs(client, record, url):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client.get(url).status_code == 200
        return len(captured)

    one = queries()
    RunFactory(source_path=WOLF, score_bw=200.0, score_md=5045.33, client_nodes=10, phases=False)
    RunFactory(source_path="DKRZ/Mistral/Lustre/2019/submission-7", score_bw=1.0, score_md=1000.0, phases=False)
    assert queries() == one


def test_the_stored_audit_follows_a_linked_run_rewritten_from_its_files(client, record):
    runs.rewrite(record, {"score_bw": 140.0})

    html = client.get("/published/SC19/io500/audit/").content.decode()
    assert ["bw", "174.74", "140.00", "unexplained"] in [row[-4:] for row in rows_of(html, "differences")]
    assert ["bw", "174.74", "150.00", "unexplained"] not in [row[-4:] for row in rows_of(html, "differences")]


def test_the_summary_reads_the_stored_audit_in_a_query_or_two(client, record):
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/published/audit/").status_code == 200
    assert len(captured) <= 2


def test_a_long_list_shows_a_hundred_rows_a_page_and_links_the_next(client):
    historic = Edition.objects.create(
        name="ISC21", source=Edition.Source.PUBLISHED, list_kind="historic", title="ISC21 Historical list"
    )
    EditionEntry.objects.bulk_create(
        EditionEntry(edition=historic, rank=rank, score=1000.0 - rank, system_name=f"system {rank}")
        for rank in range(1, 106)
    )

    first = client.get("/published/ISC21/historic/").content.decode()
    second = client.get("/published/ISC21/historic/?page=2").content.decode()

    assert "· 105 entries" in first
    assert [row[0] for row in rows_of(first, "list-historic")] == [str(rank) for rank in range(1, 101)]
    assert 'href="?page=2" rel="next"' in first
    assert [row[0] for row in rows_of(second, "list-historic")] == ["101", "102", "103", "104", "105"]
