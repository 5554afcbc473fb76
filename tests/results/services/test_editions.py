"""Editions: a list frozen under a name never changes afterwards, while the live lists keep moving."""

import pytest
from django.core.management import CommandError, call_command

from apps.results.models import Edition, ListEntry
from apps.results.services import runs
from apps.results.services.editions import EditionError, edition_entries, freeze_edition, freeze_entries
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory, add_edition_in_the_admin

pytestmark = pytest.mark.django_db


def run(system=None, score=100.0, **fields):
    return RunFactory(system=system or StorageSystemFactory(), score_bw=score, score_md=score, phases=False, **fields)


def test_freezing_copies_the_live_list_ranks_and_numbers():
    first = run(StorageSystemFactory(name="Data Accelerator", storage_vendor="Dell EMC"), 620.69, client_nodes=512)
    second = run(score=330.56, client_nodes=504)
    edition = freeze_edition("ISC19", "io500", title="ISC High Performance 2019")
    entries = list(edition.entries.all())
    assert [(e.rank, e.run_id, e.system_id) for e in entries] == [
        (1, first.pk, first.system_id),
        (2, second.pk, second.system_id),
    ]
    top = entries[0]
    assert (top.system_name, top.storage_vendor, top.client_nodes, top.client_procs) == (
        "Data Accelerator",
        "Dell EMC",
        512,
        160,
    )
    assert top.score == pytest.approx(620.69)
    assert top.institution_name == first.system.institution.name


def test_an_edition_never_changes_when_the_live_list_moves():
    system = StorageSystemFactory()
    frozen_run = run(system, 50)
    other = run(score=40)
    freeze_edition("SC19", "io500")
    run(system, 500)  # a better run of the same system
    run(score=45)  # a newcomer
    other.score_total, other.exclusion_reason = 1.0, "re-scored"
    runs.edit(other)
    runs.delete([other])

    edition = Edition.objects.get(name="SC19")
    assert [(e.rank, e.run_id, e.score) for e in edition.entries.all()] == [(1, frozen_run.pk, 50.0), (2, None, 40.0)]
    assert [rank for _, rank in ListEntry.objects.listed("io500").ranked_keys()] == [1, 2]


def test_the_ten_node_and_historic_lists_can_be_frozen():
    run(score=80, client_nodes=10)
    run(score=90, client_nodes=64)
    excluded = run(score=99, exclusion_reason="marked invalid by the benchmark")
    assert [e.score for e in freeze_edition("ISC19", "ten-node").entries.all()] == [80.0]
    historic = freeze_edition("ISC19", "historic")
    by_run = {e.run_id: e for e in historic.entries.all()}
    assert len(by_run) == 3
    assert by_run[excluded.pk].rank is None
    assert by_run[excluded.pk].exclusion_reason == "marked invalid by the benchmark"


def test_a_list_longer_than_a_chunk_is_frozen_whole_and_in_order():
    scores = [float(score) for score in range(10, 0, -1)]
    runs = [run(score=score) for score in scores]
    edition = Edition.objects.create(name="ISC19", list_kind="historic")
    assert freeze_entries(edition, chunk_size=3) == 10
    assert [(e.rank, e.run_id) for e in edition.entries.order_by("rank")] == [
        (rank, frozen.pk) for rank, frozen in enumerate(runs, start=1)
    ]


def test_an_edition_is_frozen_once():
    run()
    freeze_edition("ISC19", "io500")
    with pytest.raises(EditionError, match="exists already"):
        freeze_edition("ISC19", "io500")
    edition = Edition.objects.get(name="ISC19")
    with pytest.raises(EditionError, match="frozen already"):
        freeze_entries(edition)
    assert edition.entries.count() == 1


def test_an_edition_made_in_the_admin_is_filled_by_freeze_entries():
    run(score=5), run(score=7)
    edition = Edition.objects.create(name="SC20", list_kind="io500")
    assert freeze_entries(edition) == 2
    assert [e.score for e in edition.entries.all()] == [7.0, 5.0]


@pytest.mark.parametrize(
    ("name", "kind", "message"),
    [
        ("ISC 19", "io500", "not a valid edition name"),
        ("ISC19", "top10", "unknown list"),
    ],
)
def test_bad_names_and_lists_are_refused(name, kind, message):
    with pytest.raises(EditionError, match=message):
        freeze_edition(name, kind)
    assert not Edition.objects.exists()


def test_the_command_freezes_every_list_by_default_the_historic_list_too(capsys):
    run(score=80, client_nodes=10)
    call_command("freeze_edition", "ISC19", "--title", "ISC 2019")
    frozen = sorted(Edition.objects.values_list("list_kind", "title"))
    assert frozen == [
        ("full", "ISC 2019"),
        ("historic", "ISC 2019"),
        ("io500", "ISC 2019"),
        ("production", "ISC 2019"),
        ("ten-node", "ISC 2019"),
        ("ten-node-production", "ISC 2019"),
    ]
    assert "froze ISC19 (Research): 1 entries" in capsys.readouterr().out


def test_the_command_freezes_all_lists_or_none():
    run()
    freeze_edition("ISC19", "ten-node")
    with pytest.raises(CommandError, match="exists already"):
        call_command("freeze_edition", "ISC19", "--list", "io500", "--list", "ten-node")
    assert list(Edition.objects.values_list("list_kind", flat=True)) == ["ten-node"]


def test_edition_entries_filter_sort_and_carry_the_runs_current_badges(django_assert_num_queries):
    lustre = run(StorageSystemFactory(filesystem="Lustre", server_count=4), 90, client_nodes=100)
    daos = run(StorageSystemFactory(filesystem="DAOS"), 50, client_nodes=10)
    edition = freeze_edition("ISC19", "io500")
    AnomalyFactory(run=lustre, rule="cache_effect_stat")
    with django_assert_num_queries(2):
        entries = list(edition_entries(edition, {"nodes_max": 50}))
        assert [(e.run_id, e.rank) for e in entries] == [(daos.pk, 2)]
    with django_assert_num_queries(2):
        entries = list(edition_entries(edition, {}, "nodes"))
        assert [e.run_id for e in entries] == [daos.pk, lustre.pk]
        assert [a.rule for a in entries[1].run.badges] == ["cache_effect_stat"]
        assert entries[1].bw_per_server == pytest.approx(22.5)
        assert entries[0].score_per_node == pytest.approx(5.0)


def test_adding_an_edition_in_the_admin_freezes_the_live_list(admin_client):
    best = run(score=300.0)
    run(score=200.0)

    response = add_edition_in_the_admin(admin_client, "ISC26", "ISC 2026")

    assert response.status_code == 302, response.content[:2000]
    edition = Edition.objects.get(name="ISC26")
    assert [e.rank for e in edition.entries.order_by("rank")] == [1, 2]
    assert edition.entries.get(rank=1).run_id == best.pk


def test_an_edition_s_name_and_list_cannot_be_edited_in_the_admin(admin_client):
    edition = freeze_edition("SC26", "io500")

    page = admin_client.get(f"/admin/results/edition/{edition.pk}/change/")

    assert page.status_code == 200
    assert 'name="name"' not in page.content.decode()
    assert 'name="list_kind"' not in page.content.decode()


def test_an_edition_stores_its_entry_count_and_file_systems_when_frozen():
    run(StorageSystemFactory(filesystem="Lustre"), 300)
    run(StorageSystemFactory(filesystem="DAOS"), 200)
    run(StorageSystemFactory(filesystem="Lustre"), 100)
    edition = freeze_edition("ISC19", "io500")
    stored = Edition.objects.get(pk=edition.pk)
    assert stored.entry_count == 3
    assert stored.filesystems == ["DAOS", "Lustre"]
    run(StorageSystemFactory(filesystem="GPFS"), 400)  # after the freeze: the live list moves, the edition does not
    assert Edition.objects.values_list("entry_count", "filesystems").get(pk=edition.pk) == (3, ["DAOS", "Lustre"])
