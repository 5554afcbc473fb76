"""`ingest --workers N`: submissions stored by N processes give what one process gives (issue 39).

On PostgreSQL the command forks its processes for real; on SQLite (one writer) it says it runs in one.
"""

import re
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from apps.ingest import parallel
from apps.ingest.tools.io500.pipeline import RUNS_PER_COMMIT
from apps.results.models import Change, Institution, ListEntry, ListState, Run, StorageSystem
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services import runs
from tests.api.uploading import DEMO
from tests.conftest import REPO_ROOT, shared_path

pytestmark = pytest.mark.django_db(transaction=True)

needs_postgresql = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="several writers at once need PostgreSQL (SQLite has one writer)"
)


def ingest(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("ingest", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def stored() -> dict:
    """What a reader sees of the ingest, keyed by what does not depend on the order of the writes (a run's
    identity, a system's names): the runs' scores and node counts, every list's entries with their ranks, and the
    changes detected in each system's history."""
    run_rows = {
        row[0]: row[1:]
        for row in Run.objects.values_list(
            "identity", "system__key", "score_bw", "score_md", "score_total", "client_nodes", "flagged", "valid"
        )
    }
    entries = sorted(
        ListEntry.objects.with_rank().values_list("kind", "run__identity", "system__key", "ranked", "rank", "score")
    )
    return {
        "runs": run_rows,
        "entries": entries,
        "systems": sorted(StorageSystem.objects.values_list("key", "storage_vendor", "server_count")),
        "institutions": sorted(Institution.objects.values_list("key", flat=True)),
        "changes": sorted(
            Change.objects.values_list("system__key", "metric", "kind", "run_before__identity", "run_after__identity")
        ),
    }


def forget_everything() -> None:
    """Every run off its lists and deleted, then the systems and institutions: the database as before the ingest."""
    runs.delete(Run.objects.all())
    StorageSystem.objects.all().delete()
    Institution.objects.all().delete()


def counts_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("created "))


def compare_with_one_process(tree) -> tuple[dict, dict]:
    out, err = ingest(str(tree))
    assert re.search(r"^ingested in \d+\.\d\d s by 1 process$", err, re.MULTILINE), err
    one_process = stored()
    forget_everything()
    parallel_out, err = ingest(str(tree), "--workers", "2")
    assert "one process" not in err
    assert re.search(r"^ingested in \d+\.\d\d s by 2 processes$", err, re.MULTILINE), err
    assert counts_line(parallel_out) == counts_line(out)
    return one_process, stored()


@needs_postgresql
def test_two_workers_store_the_runs_scores_node_counts_and_list_entries_one_process_stores(tmp_path, celery_eager):
    tree = tmp_path / "tree"
    shutil.copytree(DEMO, tree / "demo")
    shutil.copytree(REPO_ROOT / "fixtures" / "demo-history", tree / "history")  # 24 runs of one system

    one_process, two_workers = compare_with_one_process(tree)

    assert len(one_process["runs"]) == 30
    assert one_process["changes"]  # the history's steps, found by either form
    assert two_workers == one_process


@needs_postgresql
@pytest.mark.corpus
def test_two_workers_store_the_public_corpus_as_one_process_does(celery_eager):
    one_process, two_workers = compare_with_one_process(shared_path("io500-corpus"))

    assert one_process["runs"]
    assert two_workers == one_process


@needs_postgresql
@pytest.mark.parametrize("round_", range(3))
def test_two_workers_storing_runs_of_the_same_new_system_at_once_list_the_system_once(tmp_path, round_):
    """A system's 24 runs (scores rising and falling) twice, in folders that name two systems while each run's
    ioboard.yaml names the same one, Demo Centre's Pavo, not yet stored: the processes are dealt one folder each,
    so both create the institution and the system at the same moment and keep storing runs of it, each often a new
    best. Repeated: the race it guards against came about one ingest in six."""
    history = REPO_ROOT / "fixtures" / "demo-history" / "Demo Centre (generated)" / "Pavo" / "Lustre"
    tree = tmp_path / "tree"
    shutil.copytree(history, tree / "Site A" / f"Twin {round_}" / "Lustre")
    shutil.copytree(history, tree / "Site B" / f"Twin {round_}" / "Lustre")

    out, err = ingest(str(tree), "--workers", "2")

    assert counts_line(out).startswith("created 48, updated 0, unchanged 0, failed 0"), out + err
    system = StorageSystem.objects.get()
    assert (system.institution.name, system.name) == ("Demo Centre (generated)", "Pavo")
    assert Institution.objects.count() == 1
    assert system.runs.count() == 48
    best = system.runs.order_by("-score_total", "pk").first()
    for kind in LIST_KINDS.values():
        on_list = list(system.list_entries.filter(kind=kind.slug).values_list("run_id", flat=True))
        if kind.best_per_system and on_list:
            # A list of each system's best lists the system once, not once per process that stored a run of it.
            assert len(on_list) == 1, (kind.slug, on_list)
    assert list(system.list_entries.filter(kind="historic").values_list("run_id", flat=True).order_by()) != []
    assert list(system.list_entries.filter(kind="io500").values_list("run_id", flat=True)) == [best.pk]
    for state in ListState.objects.all():
        assert state.entry_count == ListEntry.objects.filter(kind=state.kind).count(), state.kind


def test_on_sqlite_two_workers_say_they_ingest_in_one_process(tmp_path):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite only")
    out, err = ingest(str(DEMO), "--workers", "2")

    assert "--workers 2: SQLite has one writer; ingesting in one process" in err
    assert counts_line(out).startswith("created 6,")


def groups_of(*sizes: int) -> list[list[Path]]:
    """Systems' groups of these sizes, each submission a path naming its group and its place in it."""
    return [[Path(f"system-{group}/submission-{n}") for n in range(size)] for group, size in enumerate(sizes)]


def test_shares_keep_each_systems_submissions_together_and_in_order():
    groups = groups_of(3, 1, 7, 1, 1, 2, 5, 1)

    shares = parallel.shares_of(groups, workers=2)

    for group in groups:
        holding = [share for share in shares if group[0] in share]
        assert len(holding) == 1
        at = holding[0].index(group[0])
        assert holding[0][at : at + len(group)] == group
    assert sorted(path for share in shares for path in share) == sorted(path for group in groups for path in group)


def test_a_tree_of_one_run_systems_is_dealt_in_a_few_shares_a_process_not_a_share_a_run():
    """Each share's transaction brings its systems' list entries in line: one share a run made two processes
    slower than one (issue 39)."""
    shares = parallel.shares_of(groups_of(*[1] * 139), workers=2)

    assert 2 * 2 <= len(shares) <= 2 * parallel.SHARES_PER_WORKER + 1
    assert max(map(len, shares)) - min(map(len, shares)) <= len(shares[0])


def test_no_share_passes_a_commits_worth_of_runs_unless_one_system_has_more():
    shares = parallel.shares_of(groups_of(120, *[1] * 600), workers=2)

    assert len(shares[0]) == 120  # the largest system first, whole
    assert all(len(share) <= RUNS_PER_COMMIT for share in shares[1:])


def test_an_institutions_submissions_are_one_group_so_no_two_processes_create_its_row_at_once(tmp_path):
    """The first transaction that meets an institution creates its row; another process meeting it before that
    commits waits for it."""
    paths = [
        tmp_path / "Site A" / "Alpha" / "Lustre" / "2024" / "submission-1",
        tmp_path / "Site B" / "Gamma" / "Lustre" / "2024" / "submission-2",
        tmp_path / "Site A" / "Beta" / "Lustre" / "2025" / "submission-3",
        tmp_path / "Site A" / "Alpha" / "Lustre" / "2025" / "submission-4",
    ]

    groups = parallel.by_institution(tmp_path, paths, overrides={})

    assert sorted(groups) == sorted([[paths[0], paths[2], paths[3]], [paths[1]]])


def test_under_the_institution_the_command_names_the_groups_are_the_systems(tmp_path):
    paths = [
        tmp_path / "Site A" / "Alpha" / "Lustre" / "2024" / "submission-1",
        tmp_path / "Site A" / "Beta" / "Lustre" / "2025" / "submission-2",
        tmp_path / "Site A" / "Alpha" / "Lustre" / "2025" / "submission-3",
    ]

    groups = parallel.by_institution(tmp_path, paths, overrides={"institution": "One Lab"})

    assert sorted(groups) == sorted([[paths[0], paths[2]], [paths[1]]])
