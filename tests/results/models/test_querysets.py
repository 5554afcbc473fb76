"""The live lists read from their maintained entries: best run per system, ranks, filters that keep the
global rank, sorting, statistics."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.results.models import ListEntry, ListState, Run
from apps.results.models.list_columns import SORT_KEYS
from apps.results.services.list_entries import refresh_statistics
from tests.factories import AnomalyFactory, LustrePatchFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


def run(system=None, score=100.0, **fields):
    """A run whose bw = md = score, so its total is `score`."""
    return RunFactory(system=system or StorageSystemFactory(), score_bw=score, score_md=score, phases=False, **fields)


def listed(kind):
    return ListEntry.objects.listed(kind)


def ranks(entries):
    return list(entries.ranked_keys())


def medians(kind="io500"):
    refresh_statistics(kind)
    return ListState.objects.get(kind=kind).phase_medians


def test_io500_list_has_each_systems_best_eligible_run_by_descending_score():
    a, b, c = StorageSystemFactory(), StorageSystemFactory(), StorageSystemFactory()
    run(a, 10)
    best_a = run(a, 30)
    best_b = run(b, 20)
    run(b, 50, exclusion_reason="phase_too_short: ior_hard_write ran 95 s")
    run(c, None)
    assert ranks(listed("io500")) == [(best_a.pk, 1), (best_b.pk, 2)]


def test_equal_scores_share_a_rank_and_the_next_place_is_skipped():
    first, tied, third = run(score=50), run(score=50), run(score=10)
    assert ranks(listed("io500")) == [(first.pk, 1), (tied.pk, 1), (third.pk, 3)]


def test_ten_node_list_takes_the_best_run_on_exactly_ten_nodes():
    system = StorageSystemFactory()
    run(system, 500, client_nodes=512)
    ten = run(system, 40, client_nodes=10)
    run(system, 30, client_nodes=10)
    other = run(score=60, client_nodes=10)
    run(score=99, client_nodes=11)
    assert ranks(listed("ten-node")) == [(other.pk, 1), (ten.pk, 2)]


def test_historic_list_has_every_run_and_ranks_only_the_eligible_ones():
    system = StorageSystemFactory()
    good = run(system, 20)
    older = run(system, 10)
    excluded = run(system, 90, exclusion_reason="marked invalid by the benchmark", valid=False)
    unscored = run(system, None)
    rows = list(listed("historic").runs())
    assert [(r.pk, r.rank) for r in rows] == [(excluded.pk, None), (good.pk, 1), (older.pk, 2), (unscored.pk, None)]
    assert rows[0].exclusion_reason == "marked invalid by the benchmark"


def test_filters_keep_the_place_on_the_whole_list():
    lustre = [run(StorageSystemFactory(filesystem="Lustre"), score) for score in (90, 50)]
    run(StorageSystemFactory(filesystem="DAOS"), 70)
    run(StorageSystemFactory(filesystem="GPFS"), 95)
    filtered = listed("io500").filter_listed(filesystem="lustre")
    assert ranks(filtered) == [(lustre[0].pk, 2), (lustre[1].pk, 4)]
    assert filtered.count() == 2


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({"nodes_min": 10, "nodes_max": 100}, ["mid"]),
        ({"nodes_min": 101}, ["big"]),
        ({"year": 2019}, ["small"]),
        ({"flagged": True}, ["big"]),
        ({"flagged": False}, ["mid", "small"]),
        ({"institution": "lakes"}, ["small"]),
        ({"vendor": "ibm"}, ["mid"]),
        ({"search": "Orion"}, ["big"]),
        ({"search": "ibm"}, ["mid"]),
        ({"filesystem": "", "year": None}, ["big", "mid", "small"]),
    ],
)
def test_each_criterion_narrows_the_list(criteria, expected):
    named = {
        "big": run(StorageSystemFactory(name="Orion"), 90, client_nodes=512, flagged=True),
        "mid": run(StorageSystemFactory(storage_vendor="IBM"), 50, client_nodes=10),
        "small": run(StorageSystemFactory(institution__name="Lakeside University"), 20, client_nodes=2, year=2019),
    }
    found = [pk for pk, _ in ranks(listed("io500").filter_listed(**criteria))]
    assert found == [named[name].pk for name in expected]


def test_a_system_criterion_gives_its_placement():
    system = StorageSystemFactory()
    best = run(system, 40)
    run(score=80)
    assert listed("io500").placement(system=system.pk) == {best.pk: 2}
    assert listed("ten-node").placement(run=best.pk) == {best.pk: 2}
    assert listed("io500").placement(system=StorageSystemFactory().pk) == {}


def test_unknown_criteria_are_refused():
    with pytest.raises(ValueError, match="colour"):
        listed("io500").filter_listed(colour="blue")


def test_a_whole_list_is_read_from_the_manager_never_from_a_filtered_queryset():
    """listed() and page_entries() start from a queryset built once per process: a filter before them would be
    dropped, so it is refused rather than widened to the whole list."""
    kept, other = run(score=200.0), run(score=100.0)
    with pytest.raises(TypeError, match=r"ListEntry\.objects"):
        ListEntry.objects.filter(run=kept).listed("io500")
    with pytest.raises(TypeError, match=r"ListEntry\.objects"):
        ListEntry.objects.filter(run=kept).page_entries("io500", {}, None)
    assert [pk for pk, _ in ranks(listed("io500").filter(run=kept))] == [kept.pk]
    assert other.pk in [pk for pk, _ in ranks(listed("io500"))]


def test_sorting_orders_rows_but_never_changes_ranks():
    slow = run(score=90, client_nodes=1000)
    fast = run(score=50, client_nodes=10)
    unknown = run(score=10, client_nodes=None)
    by_nodes = listed("io500").sort_listed("nodes")
    assert ranks(by_nodes) == [(fast.pk, 2), (slow.pk, 1), (unknown.pk, 3)]
    assert ranks(listed("io500").sort_listed("-nodes")) == [(slow.pk, 1), (fast.pk, 2), (unknown.pk, 3)]
    assert ranks(listed("io500").sort_listed("-rank")) == [(unknown.pk, 3), (fast.pk, 2), (slow.pk, 1)]


def test_unknown_sort_keys_keep_the_list_order():
    first, second = run(score=90), run(score=50)
    assert [r.run_id for r in listed("io500").sort_listed("password")] == [first.pk, second.pk]


@pytest.mark.parametrize("key", sorted(SORT_KEYS))
def test_every_sort_key_runs_on_every_list(key, django_assert_num_queries):
    run(score=90, flagged=True)
    run(score=50)
    for kind in ("io500", "ten-node", "historic"):
        for direction in ("", "-"):
            with django_assert_num_queries(1):  # the entries alone
                assert len(ranks(listed(kind).sort_listed(direction + key))) == 2


def test_normalised_columns_divide_by_client_nodes_and_known_server_counts():
    with_servers = run(StorageSystemFactory(server_count=8), 100, client_nodes=10)
    without = run(StorageSystemFactory(server_count=None), 80, client_nodes=4)
    zero = run(StorageSystemFactory(server_count=0), 60, client_nodes=0)
    rows = {r.pk: r for r in listed("io500").runs()}
    assert rows[with_servers.pk].score_per_node == pytest.approx(10.0)
    assert rows[with_servers.pk].bw_per_server == pytest.approx(12.5)
    assert rows[with_servers.pk].md_per_node == pytest.approx(10.0)
    assert rows[without.pk].score_per_node == pytest.approx(20.0)
    assert rows[without.pk].score_per_server is None
    assert rows[zero.pk].score_per_node is None
    assert rows[zero.pk].md_per_server is None


def test_badges_come_with_the_list_errors_first_without_a_query_per_row(django_assert_num_queries):
    flagged = run(score=90)
    AnomalyFactory(run=flagged, rule="cache_effect_stat", severity="warn")
    AnomalyFactory(run=flagged, rule="a_note", severity="info")
    excluded = run(score=80, exclusion_reason="stonewall: too short")
    AnomalyFactory(run=excluded, rule="stonewall", severity="error")
    for _ in range(5):
        run(score=10)
    with django_assert_num_queries(3):  # the keys, the rows, their badges
        rows = {r.pk: r for r in listed("historic").runs()}
        assert [a.rule for a in rows[flagged.pk].badges] == ["cache_effect_stat", "a_note"]
        assert [a.rule for a in rows[excluded.pk].badges] == ["stonewall"]


@pytest.mark.parametrize("count", [1, 8])
def test_list_queries_are_constant_whatever_the_row_count(count, django_assert_num_queries):
    for score in range(count):
        AnomalyFactory(run=run(score=score + 1))
    with django_assert_num_queries(3):  # the keys, the rows, their badges
        list(listed("io500").filter_listed(nodes_min=1).sort_listed("-bw").runs())


def test_phase_medians_take_the_middle_value_or_the_mean_of_the_two_middle_values():
    for score in (1, 2, 3, 10):
        RunFactory(score_bw=score, score_md=score * 100)
    found = medians()
    assert found["ior_easy_write"] == pytest.approx(2.5)
    assert found["mdtest_hard_stat"] == pytest.approx(250)
    RunFactory(score_bw=50, score_md=5000)
    assert medians()["ior_hard_read"] == pytest.approx(3)


def test_phase_medians_only_read_the_listed_runs():
    system = StorageSystemFactory()
    RunFactory(system=system, score_bw=10, score_md=10)
    RunFactory(system=system, score_bw=1, score_md=1)
    RunFactory(score_bw=1000, score_md=1000, exclusion_reason="excluded")
    assert medians()["find"] == pytest.approx(10)


@pytest.mark.parametrize("patches", [1, 6])
def test_with_details_loads_a_run_in_a_constant_number_of_queries(patches, django_assert_num_queries):
    patch = LustrePatchFactory()
    LustrePatchFactory.create_batch(patches - 1, build=patch.build)
    target = RunFactory(lustre_build=patch.build)
    AnomalyFactory.create_batch(patches, run=target)
    # the run, then phases, tunables, stripings, files, patches, anomalies (in the run's query on PostgreSQL)
    with django_assert_num_queries(1 + 6):
        loaded = Run.objects.with_details().get(pk=target.pk)
        assert len(loaded.phases.all()) == 12
        assert len(loaded.lustre_build.patches.all()) == patches
        assert len(loaded.anomalies.all()) == patches
        list(loaded.tunables.all()), list(loaded.stripings.all()), list(loaded.files.all())


def test_listing_names_the_three_live_lists():
    assert "rank" in listed("ten-node").query.annotations
    with pytest.raises(ValueError, match="top10"):
        listed("top10")


def test_a_page_is_cut_from_narrow_keys_then_loaded_with_its_ranks(django_assert_num_queries):
    runs = [run(score=score) for score in (90, 80, 70, 60)]
    AnomalyFactory(run=runs[2])
    keys = listed("io500").filter_listed(nodes_min=1).sort_listed("score").ranked_keys()
    with django_assert_num_queries(1):
        page = list(keys[1:3])
    assert page == [(runs[2].pk, 3), (runs[1].pk, 2)]
    with django_assert_num_queries(2):  # the rows, then their badges
        rows = Run.objects.load_rows(page)
        assert [(r.pk, r.rank, len(r.badges)) for r in rows] == [(runs[2].pk, 3, 1), (runs[1].pk, 2, 0)]
        assert rows[0].system.institution.name
        assert rows[0].score_per_node == pytest.approx(7.0)


def reference_ranks(entries):
    """Competition ranking ("1224") of (pk, score) pairs, highest score first, ties by pk."""
    ordered = sorted(entries, key=lambda entry: (-entry[1], entry[0]))
    return [(pk, 1 + sum(1 for _, other in ordered if other > score)) for pk, score in ordered]


def test_every_list_ranks_like_the_competition_ranking_it_publishes_ties_included():
    """Many systems, tied scores within and across systems, excluded and unscored runs: the SQL ranks of
    the three lists agree with a plain reference computed here from the same rows."""
    systems = [StorageSystemFactory() for _ in range(6)]
    scores = [40, 40, 25, 25, 25, 10, 90, 40, 10, 60, 60, 5]
    for index, score in enumerate(scores):
        run(systems[index % 6], score, client_nodes=10 if index % 3 else 32)
    run(systems[0], 95, exclusion_reason="benchmark_marked_invalid: the run is not valid")
    run(systems[1], None)

    eligible = [r for r in Run.objects.filter(exclusion_reason="", score_total__isnull=False)]
    best = {}
    for candidate in sorted(eligible, key=lambda r: (-r.score_total, r.pk)):
        best.setdefault(candidate.system_id, candidate)
    assert ranks(listed("io500")) == reference_ranks([(r.pk, r.score_total) for r in best.values()])

    ten = {}
    for candidate in sorted((r for r in eligible if r.client_nodes == 10), key=lambda r: (-r.score_total, r.pk)):
        ten.setdefault(candidate.system_id, candidate)
    assert ranks(listed("ten-node")) == reference_ranks([(r.pk, r.score_total) for r in ten.values()])

    historic = dict(ranks(listed("historic")))
    assert {pk: rank for pk, rank in historic.items() if rank is not None} == dict(
        reference_ranks([(r.pk, r.score_total) for r in eligible])
    )
    assert len(historic) == Run.objects.count()


def test_a_filtered_count_stops_at_the_cap_and_says_so(monkeypatch):
    from apps.results.models import querysets

    monkeypatch.setattr(querysets, "COUNT_CAP", 2)
    for score in (10, 20, 30, 40):
        run(score=score)
    filtered = ListEntry.objects.page_keys("io500", {"filesystem": "lustre"}, None)
    assert (filtered.count(), filtered.capped) == (2, True)
    assert [rank for _, rank in filtered[:5]] == [1, 2, 3, 4]
    everything = ListEntry.objects.page_keys("io500", {}, None)
    assert (everything.count(), everything.capped) == (4, False)


@pytest.mark.parametrize("needle", ["ddn", "DDN", "dd", "l/d", ""])
def test_a_page_filters_vendors_by_substring_in_any_case_as_the_list_does(needle):
    for vendor in ("DDN", "Dell/DDN", "HPE", "ddn storage", ""):
        run(StorageSystemFactory(storage_vendor=vendor), 10 + len(vendor))
    expected = [pk for pk, _ in ranks(listed("io500").filter_listed(vendor=needle))]
    page = ListEntry.objects.page_entries("io500", {"vendor": needle}, None)
    assert [entry.run_id for entry in page[:50]] == expected
    assert page.count() == len(expected)
    assert len(expected) == {"ddn": 3, "DDN": 3, "dd": 3, "l/d": 1, "": 5}[needle]


def test_a_runs_details_are_read_without_joining_the_run_table_again():
    run = RunFactory()
    AnomalyFactory(run=run)
    with CaptureQueriesContext(connection) as queries:
        detailed = Run.objects.with_details().get(pk=run.pk)
        assert detailed.phases.all()
        assert detailed.anomalies.all()
    statements = [query["sql"] for query in queries.captured_queries]
    assert len(statements) == 1 + 5  # no Lustre build: no patches to read
    assert not [sql for sql in statements if 'JOIN "results_run"' in sql]
