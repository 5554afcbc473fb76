"""The front door, the systems index, the custom-list builder and what list tables say about their columns."""

import re
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.results.models import CustomList, querysets
from apps.results.models.list_kinds import AWARD_LISTS, LIST_KINDS
from tests.factories import RunFactory, StorageSystemFactory, UserFactory

pytestmark = pytest.mark.django_db


def body(response) -> str:
    return response.content.decode()


def test_the_front_door_says_what_ioboard_is_and_shows_the_top_of_every_ranked_list(client):
    best = RunFactory(system=StorageSystemFactory(name="Wolf"), score_bw=163.0, score_md=3322.0)
    RunFactory(system=StorageSystemFactory(name="Mistral"), score_bw=2.9, score_md=16.6)
    html = body(client.get("/"))
    assert "results database and leaderboard for parallel file-system benchmarks" in html
    for slug in AWARD_LISTS:
        assert f'href="/lists/{slug}/">{LIST_KINDS[slug].title}</a>' in html
    research = html[html.index(LIST_KINDS["io500"].title) :]
    assert re.search(rf'#1</span> <span class="who"><a href="/runs/{best.pk}/">Wolf</a>', research)
    assert 'action="/systems/"' in html
    assert 'action="/compare/"' in html


def test_the_navigation_names_every_list_of_the_registry():
    from django.test import Client

    html = body(Client().get("/systems/"))
    nav = html[html.index('<nav aria-label="main">') : html.index("</nav>")]
    for kind in LIST_KINDS.values():
        assert f'href="/lists/{kind.slug}/" title="{kind.title}">{kind.label}</a>' in nav
    assert "IO500 list" not in nav


def test_the_front_door_runs_a_constant_number_of_queries(client, django_assert_num_queries):
    # list states, the top of the four ranked lists (one query; one per list where the database cannot limit the
    # parts of a UNION, as SQLite), newest runs, changes, editions, studies, series
    list_tops = 1 if connection.features.supports_slicing_ordering_in_compound else 4
    for size in (2, 20):
        for _ in range(size):
            RunFactory()
        with django_assert_num_queries(6 + list_tops):
            assert client.get("/").status_code == 200


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("cambridge", {"Data Accelerator"}),
        ("summit", {"Summit"}),
        ("spectrum", {"Summit"}),
        ("ibm", {"Summit"}),
        ("", {"Data Accelerator", "Summit"}),
        ("nothing-like-it", set()),
    ],
)
def test_the_systems_index_searches_institution_system_file_system_and_vendor(client, query, expected):
    StorageSystemFactory(name="Data Accelerator", institution__name="University of Cambridge", storage_vendor="Dell")
    StorageSystemFactory(name="Summit", institution__name="ORNL", filesystem="Spectrum Scale", storage_vendor="IBM")
    response = client.get("/systems/", {"q": query})
    assert response.status_code == 200
    assert {system.name for system, _ in response.context["systems"]} == expected


def test_the_systems_index_reads_a_bounded_number_of_systems_however_many_there_are(client, monkeypatch):
    """Counting every system made /systems/ the one page whose cost grew with the data (a sequential scan of
    125,000 systems at a million runs): its count stops past the cap, as a list filter's does, searched or not,
    and every read of the system table is bounded by a LIMIT."""
    monkeypatch.setattr(querysets, "COUNT_CAP", 3)
    StorageSystemFactory.create_batch(5, institution__name="Lustre Lab")
    for query in ("", "lustre"):
        with CaptureQueriesContext(connection) as queries:
            response = client.get("/systems/", {"q": query})
        assert "More than 3 systems" in body(response)
        assert "search to find the others" in body(response)
        assert len(response.context["systems"]) == 3
        reads = [q["sql"] for q in queries.captured_queries if 'FROM "results_storagesystem"' in q["sql"]]
        assert len(reads) == 2  # the capped count and the page
        assert all(" LIMIT " in sql for sql in reads), reads


def test_list_headers_carry_units_ranks_read_as_ranks_and_runs_by_date(client):
    run = RunFactory(system=StorageSystemFactory(name="Frontera"), run_timestamp=datetime(2020, 3, 10, tzinfo=UTC))
    html = body(client.get("/lists/full/"))
    for label in ("BW (GiB/s)", "MD (kIOPS)", "BW per node (GiB/s)", "MD per server (kIOPS)"):
        assert f">{label}</a></th>" in html
    row = re.search(r'<tr class="" data-run="\d+">.*?</tr>', html, re.DOTALL).group(0)
    assert '<td class="num rank">#1</td>' in row
    assert f'<a href="/runs/{run.pk}/" title="run {run.pk}">2020-03-10 · ISC20</a>' in row


def test_a_column_group_sorted_on_is_shown(client):
    RunFactory()
    html = body(client.get("/lists/io500/?sort=-bw_per_server"))
    assert 'id="show-per-server" checked' in html
    assert 'id="show-per-node">' in html


def test_lists_saved_on_the_page_are_the_accounts_and_count_against_its_cap(client, settings):
    settings.IOBOARD_CUSTOM_LISTS_PER_USER = 2
    reader = UserFactory()
    client.force_login(reader)
    for name in ("one", "two"):
        saved = client.post("/lists/custom/new/", {"equation": "bw", "base_list": "full", "name": name})
        assert saved.status_code == 302
    third = client.post("/lists/custom/new/", {"equation": "bw", "base_list": "full", "name": "three"})
    assert third.status_code == 403
    assert "at most 2 custom lists" in body(third)
    assert sorted(CustomList.objects.filter(owner=reader).values_list("name", flat=True)) == ["one", "two"]


def test_the_custom_list_builder_is_for_signed_in_readers(client):
    response = client.get("/lists/custom/new/")
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_the_builder_saves_a_list_and_refuses_what_the_api_refuses(client):
    RunFactory()
    client.force_login(UserFactory())
    refused = client.post("/lists/custom/new/", {"equation": "ior_easy_write +", "base_list": "full"})
    api = client.post(
        "/api/v1/custom-lists/", {"equation": "ior_easy_write +", "base_list": "full"}, content_type="application/json"
    )
    assert refused.status_code == 400
    assert api.status_code == 400
    assert api.json()["equation"] in body(refused)
    check = client.get("/lists/custom/check/", {"equation": "ior_easy_write +"}).json()
    assert check == {"ok": False, **api.json()}
    assert client.get("/lists/custom/check/", {"equation": "sqrt(bw * md)"}).json() == {"ok": True}
    saved = client.post("/lists/custom/new/", {"equation": "sqrt(bw * md)", "base_list": "full", "name": "Mine"})
    assert saved.status_code == 302
    assert "Mine" in body(client.get(saved["Location"]))
