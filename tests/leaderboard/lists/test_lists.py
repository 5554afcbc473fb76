"""List pages: IO500, 10-node and historic lists with sorting, filters, pagination and exports."""

import csv
import io
import json

import pytest

from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


def run(system=None, score=100.0, **fields):
    return RunFactory(system=system or StorageSystemFactory(), score_bw=score, score_md=score, **fields)


def body(response) -> str:
    return b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()


def listed(response):
    return [(row.run_id, row.rank) for row in response.context["rows"]]


@pytest.fixture
def lists_data():
    a = StorageSystemFactory(name="Data Accelerator", filesystem="Lustre", server_count=24)
    b = StorageSystemFactory(name="Summit", filesystem="Spectrum Scale")
    c = StorageSystemFactory(name="Oakforest", filesystem="IME")
    return {
        "a_big": run(a, 620.69, client_nodes=512),
        "a_ten": run(a, 98.31, client_nodes=10),
        "b_big": run(b, 330.56, client_nodes=504),
        "b_ten": run(b, 44.30, client_nodes=10),
        "c_big": run(c, 275.65, client_nodes=2048, flagged=True),
        "c_bad": run(c, 900.0, client_nodes=10, valid=False, exclusion_reason="marked invalid by the benchmark"),
    }


def test_the_io500_list_has_one_row_per_system_in_descending_score(client, lists_data):
    response = client.get("/lists/io500/")
    assert listed(response) == [(lists_data["a_big"].pk, 1), (lists_data["b_big"].pk, 2), (lists_data["c_big"].pk, 3)]
    scores = [row.score for row in response.context["rows"]]
    assert scores == sorted(scores, reverse=True)


def test_the_ten_node_list_only_has_runs_on_exactly_ten_nodes(client, lists_data):
    response = client.get("/lists/ten-node/")
    assert listed(response) == [(lists_data["a_ten"].pk, 1), (lists_data["b_ten"].pk, 2)]
    assert {row.nodes for row in response.context["rows"]} == {10}


def test_the_historic_list_marks_excluded_runs_with_their_reason(client, lists_data):
    response = client.get("/lists/historic/")
    assert len(response.context["rows"]) == 6
    excluded = [row for row in response.context["rows"] if row.excluded]
    assert [(row.run_id, row.rank) for row in excluded] == [(lists_data["c_bad"].pk, None)]
    assert "marked invalid by the benchmark" in body(response)
    assert 'class="excluded"' in body(response)


def test_sorting_is_in_the_url_and_never_changes_ranks(client, lists_data):
    response = client.get("/lists/io500/?sort=nodes")
    assert listed(response) == [(lists_data["b_big"].pk, 2), (lists_data["a_big"].pk, 1), (lists_data["c_big"].pk, 3)]
    html = body(response)
    assert 'href="?sort=-nodes"' in html  # the sorted column reverses on the next click
    assert 'href="?sort=-bw"' in html  # numbers sort big-to-small first
    assert 'href="?sort=institution"' in html
    headers = {header.column.key: header.state for header in response.context["headers"]}
    assert headers["nodes"] == "asc"
    assert headers["rank"] == ""


def test_filters_keep_the_global_rank_and_stay_in_the_form_and_links(client, lists_data):
    response = client.get("/lists/io500/?filesystem=ime&sort=-bw")
    assert listed(response) == [(lists_data["c_big"].pk, 3)]
    html = body(response)
    assert 'value="ime"' in html
    assert "/lists/io500/export.csv?filesystem=ime&amp;sort=-bw" in html
    assert "ranks are places on the whole list" in html


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("nodes_min=505", ["a_big", "c_big"]),
        ("nodes_min=500&nodes_max=510", ["b_big"]),
        ("flagged=yes", ["c_big"]),
        ("flagged=no", ["a_big", "b_big"]),
        ("search=summit", ["b_big"]),
        ("year=2024", ["a_big", "b_big", "c_big"]),
        ("year=2019", []),
    ],
)
def test_each_filter_narrows_the_list(client, lists_data, query, expected):
    response = client.get(f"/lists/io500/?{query}")
    assert [row.run_id for row in response.context["rows"]] == [lists_data[name].pk for name in expected]


def test_invalid_parameters_are_reported_and_ignored(client, lists_data):
    response = client.get("/lists/io500/?year=soon&sort=password&per_page=7&page=99&nodes_min=600")
    assert response.status_code == 200
    assert listed(response) == [(lists_data["c_big"].pk, 3)]
    assert "year: Enter a whole number. (ignored)" in body(response)


def test_pages_keep_the_filters(client):
    for score in range(60):
        run(score=score + 1)
    response = client.get("/lists/historic/?per_page=25&page=2&sort=-score")
    assert [row.rank for row in response.context["rows"]] == list(range(26, 51))
    html = body(response)
    assert 'href="?per_page=25&amp;page=3&amp;sort=-score"' in html
    assert "page 2 of 3" in html


def test_the_file_system_filter_is_the_whole_name_in_any_case_on_the_page_and_the_api(client):
    spelled = {
        name: run(StorageSystemFactory(filesystem=name), score)
        for score, name in enumerate(["Lustre", "LUSTRE", "lustre-fork", "Lustre 2.15", "GPFS"], start=1)
    }
    expected = [(spelled["LUSTRE"].pk, 4), (spelled["Lustre"].pk, 5)]  # with their places on the whole list

    assert listed(client.get("/lists/historic/?filesystem=lustre")) == expected
    api = client.get("/api/v1/lists/historic/?filesystem=lUsTrE").json()
    assert [row["run"] for row in api["results"]] == [pk for pk, _ in expected]
    assert listed(client.get("/lists/historic/?filesystem=Lustr")) == []


def test_an_unknown_list_is_not_found(client):
    assert client.get("/lists/top10/").status_code == 404


@pytest.mark.parametrize(
    ("url", "queries"),
    [
        ("/lists/io500/", 4),
        ("/lists/ten-node/", 4),
        ("/lists/historic/", 4),
        ("/lists/io500/?filesystem=lustre&sort=-md_per_node&flagged=yes&nodes_min=1", 6),
    ],
)
def test_list_pages_run_a_constant_number_of_queries(client, url, queries, django_assert_num_queries):
    # list state (count, file systems), the list's spellings of the filtered file system, a filtered list's
    # capped count, the page's entries (rows, ranks and their runs' dates), their badges, editions of the list
    for size in (3, 30):
        for score in range(size):
            target = run(score=score + 1, client_nodes=10, flagged=True)
            AnomalyFactory(run=target)
        with django_assert_num_queries(queries):
            assert client.get(url).status_code == 200


def export(client, url):
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    return body(response)


@pytest.mark.parametrize("kind", ["io500", "ten-node", "historic"])
def test_exports_and_the_api_hold_the_same_rows_as_the_page(client, lists_data, kind):
    query = "sort=-bw&nodes_max=600"
    page = [(row.run_id, row.rank) for row in client.get(f"/lists/{kind}/?{query}").context["rows"]]
    rows = json.loads(export(client, f"/lists/{kind}/export.json?{query}"))["rows"]
    assert [(row["id"], row["rank"]) for row in rows] == page
    table = list(csv.DictReader(io.StringIO(export(client, f"/lists/{kind}/export.csv?{query}"))))
    assert [(int(row["id"]), int(row["rank"]) if row["rank"] else None) for row in table] == page
    api = client.get(f"/api/v1/lists/{kind}/?ordering=-bw&nodes_max=600&page_size=1000").json()["results"]
    assert [(row["run"], row["rank"]) for row in api] == page


def test_exports_hold_every_field_and_every_phase(client, lists_data):
    AnomalyFactory(run=lists_data["c_big"], rule="cache_effect_stat", severity="warn")
    data = json.loads(export(client, "/lists/io500/export.json"))
    assert data["meta"] == {
        "list": "io500",
        "title": "Research list",
        "filters": {},
        "sort": "rank",
        "page": 1,
        "next": None,
    }
    top = data["rows"][0]
    assert top["system"] == "Data Accelerator"
    assert top["bw_per_server"] == pytest.approx(620.69 / 24)
    assert top["phases"]["mdtest_hard_delete"] == {"value": pytest.approx(620.69), "unit": "kIOPS", "seconds": 320.0}
    assert data["rows"][2]["anomalies"][0]["rule"] == "cache_effect_stat"
    table = list(csv.DictReader(io.StringIO(export(client, "/lists/io500/export.csv"))))
    assert table[2]["anomalies"] == "cache_effect_stat (warn)"
    assert table[0]["ior_easy_write_unit"] == "GiB/s"
    assert float(table[0]["find"]) == pytest.approx(620.69)
    assert list(table[0])[:4] == ["rank", "id", "run_url", "institution"]


def test_an_empty_export_still_has_its_header(client):
    text = export(client, "/lists/ten-node/export.csv")
    assert text.splitlines()[0].startswith("rank,id,run_url,institution")
    assert json.loads(export(client, "/lists/ten-node/export.json"))["rows"] == []


def test_a_list_export_row_is_the_runs_export_record_plus_list_columns(client, lists_data, tmp_path):
    from django.core.management import call_command

    call_command("export_runs", "--format", "json", "-o", str(tmp_path / "runs.json"))
    records = {record["id"]: record for record in json.loads((tmp_path / "runs.json").read_text())}
    rows = json.loads(export(client, "/lists/historic/export.json"))["rows"]
    assert rows
    for row in rows:
        record = records[row["id"]]
        assert {key: row[key] for key in record} == record
        assert set(row["score"]) == {"bw", "md", "total"}
    table = list(csv.DictReader(io.StringIO(export(client, "/lists/historic/export.csv"))))
    assert float(table[0]["score_total"]) == pytest.approx(rows[0]["score"]["total"])
    assert float(table[0]["reported_bw"]) == pytest.approx(rows[0]["reported_score"]["bw"])
