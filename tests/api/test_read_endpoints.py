"""Read endpoints: what the pages show, as paginated, filterable, orderable JSON, anonymously."""

import pytest
from django.test.utils import CaptureQueriesContext

from apps.results.models import LustreBuild, LustrePatch, Striping, Tunable
from apps.results.services.editions import freeze_edition
from tests.factories import AnomalyFactory, InstitutionFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


def ids(response) -> list[int]:
    return [item["id"] for item in response.json()["results"]]


@pytest.fixture
def lustre_run():
    """A run with every kind of child the detail endpoint shows."""
    build = LustreBuild.objects.create(server_version="2.12.2", client_version="2.12.2", fingerprint="f" * 64)
    LustrePatch.objects.create(build=build, commit="abc123", ticket="LU-12345", summary="faster stat")
    run = RunFactory(
        system=StorageSystemFactory(name="Data Accelerator", filesystem="Lustre"),
        lustre_build=build,
        config={"global": {"datadir": "/lustre"}},
    )
    Tunable.objects.create(run=run, parameter="llite.*.max_cached_mb", value="0", scope="client")
    Striping.objects.create(run=run, path_role="ior_easy", stripe_count=-1, command="lfs setstripe -c -1 ior_easy")
    AnomalyFactory(run=run)
    return run


def test_lists_are_paginated_with_count_next_previous_and_page_size(anonymous_client):
    RunFactory.create_batch(3)

    first = anonymous_client.get("/api/v1/runs/?page_size=2").json()
    second = anonymous_client.get(first["next"]).json()

    assert first["count"] == 3
    assert len(first["results"]) == 2
    assert first["previous"] is None
    assert first["next"] == "http://testserver/api/v1/runs/?page=2&page_size=2"
    assert len(second["results"]) == 1
    assert second["next"] is None


def test_a_page_past_the_end_is_a_404(anonymous_client):
    assert anonymous_client.get("/api/v1/runs/?page=9").status_code == 404


def test_runs_are_listed_best_first_with_unscored_runs_last(anonymous_client):
    low, high = RunFactory(score_bw=1.0), RunFactory(score_bw=9.0)
    unscored = RunFactory(score_bw=None, score_total=None)

    assert ids(anonymous_client.get("/api/v1/runs/")) == [high.pk, low.pk, unscored.pk]


def test_runs_are_filtered_by_system_fields_year_nodes_and_verdicts(anonymous_client):
    lustre = RunFactory(system=StorageSystemFactory(filesystem="Lustre"), year=2019, client_nodes=10)
    daos = RunFactory(
        system=StorageSystemFactory(filesystem="DAOS", institution=InstitutionFactory(name="Intel")),
        year=2024,
        client_nodes=300,
    )
    flagged_run = RunFactory(system=StorageSystemFactory(filesystem="GPFS"), flagged=True, exclusion_reason="cache")
    flagged = AnomalyFactory(run=flagged_run, severity="error").run

    assert ids(anonymous_client.get("/api/v1/runs/?filesystem=lustre")) == [lustre.pk]
    assert ids(anonymous_client.get("/api/v1/runs/?institution=intel")) == [daos.pk]
    assert ids(anonymous_client.get("/api/v1/runs/?year_max=2020")) == [lustre.pk]
    assert ids(anonymous_client.get("/api/v1/runs/?client_nodes_min=100")) == [daos.pk]
    assert ids(anonymous_client.get("/api/v1/runs/?flagged=true")) == [flagged.pk]
    assert set(ids(anonymous_client.get("/api/v1/runs/?ranked=true"))) == {lustre.pk, daos.pk}
    assert ids(anonymous_client.get(f"/api/v1/runs/?anomaly={flagged.anomalies.get().rule}")) == [flagged.pk]


def test_a_page_of_runs_with_no_filter_builds_no_filter_set_and_a_filter_still_narrows(anonymous_client, monkeypatch):
    """Only page, page size and format: every run in the endpoint's order, without the FilterSet's per-request copy
    of its two dozen filters. Any other parameter goes through the FilterSet."""
    from apps.api.runs.filters import RunFilter

    built = []
    monkeypatch.setattr(
        RunFilter, "__init__", lambda self, *a, **k: built.append(1) or super(RunFilter, self).__init__(*a, **k)
    )
    lustre = RunFactory(system=StorageSystemFactory(filesystem="Lustre"), score_bw=1.0)
    daos = RunFactory(system=StorageSystemFactory(filesystem="DAOS"), score_bw=9.0)

    assert ids(anonymous_client.get("/api/v1/runs/?page=1&page_size=10&format=json")) == [daos.pk, lustre.pk]
    assert built == []
    assert ids(anonymous_client.get("/api/v1/runs/?filesystem=lustre&page_size=10")) == [lustre.pk]
    assert built == [1]


def test_runs_are_orderable(anonymous_client):
    small, big = RunFactory(client_nodes=2), RunFactory(client_nodes=64)

    assert ids(anonymous_client.get("/api/v1/runs/?ordering=-client_nodes")) == [big.pk, small.pk]
    assert ids(anonymous_client.get("/api/v1/runs/?ordering=client_nodes")) == [small.pk, big.pk]


def test_a_bad_filter_value_is_a_400_naming_the_parameter(anonymous_client):
    response = anonymous_client.get("/api/v1/runs/?year=soon")

    assert response.status_code == 400
    assert "year" in response.json()


def test_a_run_shows_phases_scores_verification_config_lustre_tunables_striping_anomalies(anonymous_client, lustre_run):
    run = anonymous_client.get(f"/api/v1/runs/{lustre_run.pk}/").json()

    assert len(run["phases"]) == 12
    assert run["phases"][0]["command"]
    assert run["score"]["total"] == pytest.approx(200.0)
    assert run["reported_score"]["total"] == pytest.approx(200.0)
    assert run["verification"]["result_hash"] == "verified"
    assert run["verification"]["ranked"] is True
    assert run["config"] == {"global": {"datadir": "/lustre"}}
    assert run["lustre_build"]["server_version"] == "2.12.2"
    assert run["lustre_build"]["patches"][0]["ticket_url"] == "https://jira.whamcloud.com/browse/LU-12345"
    assert run["tunables"] == [
        {"parameter": "llite.*.max_cached_mb", "value": "0", "scope": "client", "source_file": "", "source_line": None}
    ]
    assert run["striping"][0]["stripe_count"] == -1
    assert run["anomalies"][0]["rule"] == "cache_effect_stat"
    assert run["system"]["name"] == "Data Accelerator"


def test_an_unknown_run_is_a_404(anonymous_client):
    assert anonymous_client.get("/api/v1/runs/999999/").status_code == 404


def test_systems_carry_their_run_count_and_best_ranked_score(anonymous_client):
    system = StorageSystemFactory(name="Frontera")
    RunFactory(system=system, score_bw=4.0, score_md=4.0)
    RunFactory(system=system, score_bw=100.0, score_md=100.0, exclusion_reason="marked invalid")

    listed = anonymous_client.get("/api/v1/systems/?name=front").json()["results"]
    detail = anonymous_client.get(f"/api/v1/systems/{system.pk}/").json()

    assert listed[0]["run_count"] == 2
    assert listed[0]["best_score"] == pytest.approx(4.0)
    assert [run["score_total"] for run in detail["runs"]] == [pytest.approx(100.0), pytest.approx(4.0)]
    assert [run["ranked"] for run in detail["runs"]] == [False, True]


def test_list_entries_carry_rank_run_system_institution_filesystem_nodes_and_score(anonymous_client):
    run = RunFactory(
        system=StorageSystemFactory(name="Wolf", filesystem="DAOS", institution=InstitutionFactory(name="Intel"))
    )

    entry = anonymous_client.get("/api/v1/lists/io500/").json()["results"][0]

    assert {
        key: entry[key]
        for key in ["rank", "run", "system", "system_name", "institution", "filesystem", "client_nodes", "score"]
    } == {
        "rank": 1,
        "run": run.pk,
        "system": run.system_id,
        "system_name": "Wolf",
        "institution": "Intel",
        "filesystem": "DAOS",
        "client_nodes": 10,
        "score": {"bw": pytest.approx(100.0), "md": pytest.approx(400.0), "total": pytest.approx(200.0)},
    }


def test_the_io500_list_keeps_each_systems_best_run_and_filters_keep_global_ranks(anonymous_client):
    daos = StorageSystemFactory(filesystem="DAOS")
    RunFactory(system=daos, score_bw=1000.0, score_md=1000.0)
    RunFactory(system=daos, score_bw=10.0, score_md=10.0)
    lustre_run = RunFactory(system=StorageSystemFactory(filesystem="Lustre"), score_bw=50.0, score_md=50.0)

    whole = anonymous_client.get("/api/v1/lists/io500/").json()
    lustre_only = anonymous_client.get("/api/v1/lists/io500/?filesystem=lustre").json()

    assert [entry["rank"] for entry in whole["results"]] == [1, 2]
    assert [(entry["run"], entry["rank"]) for entry in lustre_only["results"]] == [(lustre_run.pk, 2)]


def test_the_ten_node_list_holds_only_ten_node_runs(anonymous_client):
    ten = RunFactory(client_nodes=10)
    RunFactory(client_nodes=64, score_bw=999.0)

    assert [entry["run"] for entry in anonymous_client.get("/api/v1/lists/ten-node/").json()["results"]] == [ten.pk]


def test_the_historic_list_shows_excluded_runs_without_a_rank(anonymous_client):
    ranked = RunFactory()
    excluded = RunFactory(score_bw=900.0, exclusion_reason="marked invalid by the benchmark")

    entries = anonymous_client.get("/api/v1/lists/historic/").json()["results"]

    assert [(entry["run"], entry["rank"]) for entry in entries] == [(excluded.pk, None), (ranked.pk, 1)]
    assert entries[0]["exclusion_reason"] == "marked invalid by the benchmark"


def test_ranked_lists_sort_by_the_leaderboard_keys_without_changing_ranks(anonymous_client):
    first = RunFactory(score_bw=100.0, client_nodes=4)
    second = RunFactory(score_bw=10.0, client_nodes=400)

    entries = anonymous_client.get("/api/v1/lists/io500/?ordering=-nodes").json()["results"]

    assert [(entry["run"], entry["rank"]) for entry in entries] == [(second.pk, 2), (first.pk, 1)]


def test_editions_are_listed_and_show_their_frozen_entries(anonymous_client):
    run = RunFactory()
    edition = freeze_edition("isc24", "io500", title="ISC24")
    RunFactory(score_bw=1e6)

    listed = anonymous_client.get("/api/v1/editions/?list_kind=io500").json()["results"]
    detail = anonymous_client.get(f"/api/v1/editions/{edition.pk}/").json()

    assert listed == [
        {
            "id": edition.pk,
            "name": "isc24",
            "list_kind": "io500",
            "title": "ISC24",
            "description": "",
            "frozen_at": detail["frozen_at"],
            "entry_count": 1,
            "rules_edition": None,
        }
    ]
    assert [(entry["run"], entry["rank"]) for entry in detail["entries"]] == [(run.pk, 1)]


def test_compare_answers_what_differs_between_runs(anonymous_client, lustre_run):
    other = RunFactory(score_bw=200.0, client_nodes=20)

    diff = anonymous_client.get(f"/api/v1/runs/compare/?runs={lustre_run.pk},{other.pk}").json()

    assert diff["run_ids"] == [lustre_run.pk, other.pk]
    assert diff["has_differences"] is True
    assert {score["name"]: score["ratios"][1] for score in diff["scores"]}["Bandwidth"] == pytest.approx(2.0)
    assert any("Client nodes: 10 → 20" in line for line in diff["summaries"][0])


def test_compare_refuses_a_malformed_run_list_and_names_unknown_runs(anonymous_client):
    run = RunFactory()

    malformed = anonymous_client.get(f"/api/v1/runs/compare/?runs={run.pk}")
    unknown = anonymous_client.get(f"/api/v1/runs/compare/?runs={run.pk},999999")

    assert malformed.status_code == 400
    assert malformed.json() == {"runs": ["expected 2 to 10 comma-separated run ids, e.g. runs=12,15"]}
    assert unknown.status_code == 404
    assert unknown.json() == {"detail": "no run with id 999999"}


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/runs/",
        "/api/v1/systems/",
        "/api/v1/lists/io500/",
        "/api/v1/lists/ten-node/",
        "/api/v1/lists/historic/",
        "/api/v1/editions/",
    ],
)
def test_list_endpoints_use_a_constant_number_of_queries(path, anonymous_client):
    from django.db import connection

    def query_count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert anonymous_client.get(path).status_code == 200
        return len(queries)

    AnomalyFactory(run=RunFactory())
    freeze_edition("first", "io500")
    few = query_count()
    for _ in range(5):
        AnomalyFactory(run=RunFactory(system=StorageSystemFactory()))
    freeze_edition("second", "io500")
    assert query_count() == few <= 4  # e.g. a live list: its state (count), the page's keys, rows, badges


def test_the_run_detail_uses_a_constant_number_of_queries(anonymous_client, lustre_run, django_assert_max_num_queries):
    # 8 for the run and its related rows, 2 for its citations (frozen editions, live lists).
    with django_assert_max_num_queries(10):
        response = anonymous_client.get(f"/api/v1/runs/{lustre_run.pk}/")

    assert response.status_code == 200
    assert response.json()["id"] == lustre_run.pk
