"""List entries maintained on write: after any sequence of writes the stored ranks equal a reference
competition ranking computed here from the runs themselves, before and after the shifts are settled."""

import random
from datetime import UTC, datetime

import pytest

from apps.results import tasks
from apps.results.models import ListEntry, ListRankShift, ListState, Run
from apps.results.models.list_kinds import ELIGIBLE, LIST_KINDS
from apps.results.services import list_entries
from apps.results.services import runs as run_writes
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


SPLIT = datetime(2021, 11, 1, tzinfo=UTC)  # SC21, as io500.org's "The Lists" dates the research/production split


def is_production(run: Run) -> bool:
    return bool(
        run.run_timestamp
        and run.run_timestamp >= SPLIT
        and run.reproducibility_level == "fully_reproducible"
        and run.production_accepted
    )


def reference(kind: str) -> dict[int, int | None]:
    """{run id: rank} of a list, from the run rows: members, best per system, competition ranks ("1224")."""
    runs = list(Run.objects.all())
    eligible = {run.pk for run in Run.objects.filter(ELIGIBLE) if run.review_status == "accepted"}
    if kind == "historic":
        members = [run for run in runs if run.kind == "io500"]
    elif kind == "full":
        members = [run for run in runs if run.pk in eligible]
    else:
        best = {}
        track = {"io500": False, "ten-node": False, "production": True, "ten-node-production": True}[kind]
        candidates = [
            run
            for run in runs
            if run.pk in eligible
            and is_production(run) == track
            and (kind in ("io500", "production") or run.client_nodes == 10)
        ]
        for run in sorted(candidates, key=lambda run: (-run.score_total, run.pk)):
            best.setdefault(run.system_id, run)
        members = list(best.values())
    scores = [run.score_total for run in members if run.pk in eligible]
    return {
        run.pk: (1 + sum(1 for other in scores if other > run.score_total) if run.pk in eligible else None)
        for run in members
    }


def stored(kind: str) -> dict[int, int | None]:
    return dict(ListEntry.objects.listed(kind).ranked_keys())


def assert_lists_match_the_reference():
    for kind in LIST_KINDS:
        assert stored(kind) == reference(kind), kind
        state = ListState.objects.filter(kind=kind).first() or ListState(kind=kind)  # a list never filled has none
        assert state.entry_count == len(reference(kind))
        assert state.ranked_count == sum(rank is not None for rank in reference(kind).values())


def change_a_run(rng: random.Random, runs: list[Run], action: float, batch=run_writes) -> None:
    """One of the writes the rank tests replay, chosen by the caller's draw `action`: below 0.7 rescore a run (ties
    and a lost score among the new scores), below 0.85 exclude or re-admit one, else delete one. In the caller's
    batch of writes, else each a batch of its own."""
    if action < 0.7:
        run = rng.choice(runs)
        run.score_total = rng.choice([None, 15.0, 20.0, 20.0, 35.0])
        batch.edit(run)
    elif action < 0.85:
        run = rng.choice(runs)
        run.exclusion_reason = "" if run.exclusion_reason else "phase_too_short: ran 95 s"
        batch.edit(run)
    else:
        batch.delete([runs.pop(rng.randrange(len(runs)))])


def test_ranks_stay_exact_through_random_inserts_rescores_exclusions_and_deletes():
    rng = random.Random(13)
    systems = [StorageSystemFactory() for _ in range(5)]
    runs = []
    for step in range(60):
        action = rng.random()
        if action < 0.5 or len(runs) < 3:
            runs.append(
                RunFactory(
                    system=rng.choice(systems),
                    score_bw=rng.choice([10, 20, 20, 30, 40]),
                    score_md=rng.choice([10, 20, 40]),
                    client_nodes=rng.choice([10, 10, 32]),
                    run_timestamp=rng.choice(
                        [None, datetime(2019, 6, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC)]
                    ),
                    reproducibility_level=rng.choice(["fully_reproducible", "limited"]),
                    production_accepted=rng.random() < 0.6,
                    phases=False,
                )
            )
        elif action < 0.6:
            run = rng.choice(runs)
            run.review_status = rng.choice(["submitted", "accepted", "accepted", "rejected", "withdrawn"])
            run.production_accepted = rng.random() < 0.5
            run_writes.edit(run)
        else:
            change_a_run(rng, runs, action)
        assert_lists_match_the_reference()
        if step == 30:
            for kind in LIST_KINDS:
                list_entries.settle(kind)
            assert not ListRankShift.objects.exists()
            assert_lists_match_the_reference()


def test_ranks_stay_exact_when_a_transaction_s_writes_are_brought_in_line_at_once():
    """Inside one batch of writes (the ingest of an upload) several entries of one list are added and removed in
    one sync, ties among them included: every rank is still the reference competition rank after each batch."""
    rng = random.Random(29)
    systems = [StorageSystemFactory() for _ in range(4)]
    runs = []
    for _ in range(15):
        with run_writes.batch() as batch:
            for _ in range(rng.randint(1, 6)):
                action = rng.random()
                if action < 0.55 or len(runs) < 3:
                    score = rng.choice([10, 20, 20, 30])
                    runs.append(
                        RunFactory(
                            batch=batch,
                            system=rng.choice(systems),
                            score_bw=score,
                            score_md=score,
                            client_nodes=rng.choice([10, 32]),
                            phases=False,
                        )
                    )
                else:
                    change_a_run(rng, runs, action, batch)
        assert_lists_match_the_reference()


def test_a_batch_of_commits_maintains_each_changed_list_once_at_its_end(
    django_capture_on_commit_callbacks, monkeypatch
):
    maintained = []
    monkeypatch.setattr(tasks.maintain_list, "delay", maintained.append)
    with django_capture_on_commit_callbacks(execute=True), run_writes.batch(atomic=False) as batch:
        for score in (10, 20, 30):
            with batch.transaction():
                RunFactory(batch=batch, score_bw=score, score_md=score, client_nodes=4, phases=False)
    assert sorted(maintained) == ["full", "historic", "io500"]


def test_setting_verdicts_takes_an_excluded_run_off_the_ranked_lists_at_once():
    loser, winner = RunFactory(score_bw=10, score_md=10, phases=False), RunFactory(phases=False)
    assert stored("io500") == {winner.pk: 1, loser.pk: 2}
    winner.anomalies.create(rule="phase_too_short", severity="error", message="ran 95 s")
    run_writes.set_verdicts(winner)
    assert stored("io500") == {loser.pk: 1}
    assert stored("historic") == {winner.pk: None, loser.pk: 1}


def test_a_renamed_system_is_renamed_on_its_entries():
    run = RunFactory(phases=False)
    run.system.name = "Renamed"
    run_writes.edit_system(run.system)
    run.system.institution.name = "New Institute"
    run_writes.edit_institution(run.system.institution)
    assert set(ListEntry.objects.filter(run=run).values_list("system_name", "institution_name")) == {
        ("Renamed", "New Institute")
    }
    assert list(ListEntry.objects.listed("io500").filter_listed(search="renamed").ranked_keys()) == [(run.pk, 1)]


def test_a_rebuild_from_the_run_table_gives_the_entries_kept_on_write():
    for score in (10, 20, 20, 40):
        RunFactory(score_bw=score, score_md=score, phases=False, client_nodes=10 if score > 10 else 4)
    RunFactory(score_bw=50, score_md=50, exclusion_reason="excluded", phases=False)
    kept = {kind: stored(kind) for kind in LIST_KINDS}
    ListEntry.objects.all().delete()
    filled = list_entries.rebuild()
    assert filled == {"io500": 4, "ten-node": 3, "production": 0, "ten-node-production": 0, "full": 4, "historic": 5}
    assert {kind: stored(kind) for kind in LIST_KINDS} == kept
    assert_lists_match_the_reference()


def test_the_run_total_comes_from_the_maintained_counts_and_matches_a_count():
    RunFactory(phases=False)
    RunFactory(phases=False, exclusion_reason="excluded", score_bw=None)
    assert Run.objects.total() == 2


def test_the_rebuild_command_refills_lists_whose_entries_are_missing(capsys):
    from django.core.management import call_command

    runs = [RunFactory(score_bw=score, score_md=score, phases=False) for score in (10, 30)]
    ListEntry.objects.all().delete()
    call_command("rebuild_lists")
    assert stored("io500") == {runs[1].pk: 1, runs[0].pk: 2}
    assert "historic: 2 entries" in capsys.readouterr().out


@pytest.mark.parametrize("sort", [None, "-nodes", "institution", "-bw_per_node", "id"])
def test_a_page_past_the_first_has_the_rows_and_ranks_of_its_place_in_the_list(sort):
    """Pages past the first find their runs from the sort index before reading rows (ListEntryQuerySet.cut): the
    same rows, in the same order, with the same ranks as a plain OFFSET, pending rank shifts included."""
    rng = random.Random(7)
    systems = [StorageSystemFactory(name=f"system {index}") for index in range(9)]
    runs = [
        RunFactory(
            system=rng.choice(systems),
            score_bw=rng.choice([10, 20, 30, 40]),
            score_md=rng.choice([10, 40]),
            client_nodes=rng.choice([4, 10, 32]),
            phases=False,
        )
        for _ in range(23)
    ]
    for run in rng.sample(runs, 6):  # rescored after they were ranked: their shifts stay pending, unsettled
        run.score_total = rng.choice([5.0, 25.0, 50.0])
        run_writes.edit(run)
    assert ListRankShift.objects.exists()
    for kind in ("historic", "io500"):
        entries = ListEntry.objects.page_entries(kind, {}, sort)
        plain = [(entry.run_id, entry.rank) for entry in entries.keys]
        for start in (0, 1, 5, 7, 20):
            assert [(entry.run_id, entry.rank) for entry in entries[start : start + 5]] == plain[start : start + 5]
        if sort is None:  # the list's own order: against the reference ranking computed from the runs
            by_score = sorted(reference(kind).items(), key=lambda item: (item[1] is None, item[1] or 0, item[0]))
            assert [(entry.run_id, entry.rank) for entry in entries[5:10]] == by_score[5:10]
