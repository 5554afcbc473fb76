"""A tree ingested in batches (many runs per transaction, one upkeep per batch) stores what the same tree
ingested one run per transaction stores: the same runs, phases, node counts and findings, the same list entries
at the same ranks, the same custom-list entries and the same detected changes (issue 39).

Each ingest starts from an empty database; the two databases are compared as rows (ids, timestamps and
other surrogate keys left out), so the expected state is what the one-by-one ingest wrote, not what the
code under test computes."""

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.ingest.tools.io500 import pipeline
from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import (
    Anomaly,
    Change,
    CustomListEntry,
    Institution,
    ListEntry,
    PhaseResult,
    Run,
    StorageSystem,
)
from apps.results.services.custom_lists import save_custom_list

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "io500"

#: The tree: one system three times (its history has changes to detect, its runs compete for its list places),
#: another twice, and a third system whose one run has the same files as one of the first's (a duplicate
#: result: storing it changes the findings of a run stored before it).
TREE = {
    "Inst A/Sys 1/Lustre/2019/submission-100": "bash-results/submission-100",
    "Inst A/Sys 1/Lustre/2021/submission-578": "capp-extended/submission-578",
    "Inst A/Sys 1/Lustre/2023/submission-686": "capp-result-dir/submission-686",
    "Inst B/Sys 2/GPFS/2019/submission-179": "bash-product/submission-179",
    "Inst B/Sys 2/GPFS/2019/submission-109": "sc17-product/submission-109",
    "Inst C/Sys 3/BeeGFS/2023/submission-900": "capp-result-dir/submission-686",
}


@pytest.fixture
def tree(tmp_path) -> Path:
    for target, source in TREE.items():
        shutil.copytree(SAMPLES / source, tmp_path / "tree" / target)
    return tmp_path / "tree"


def stored_state() -> dict[str, list]:
    """What the pages show, as rows: runs by their folder, with their phases, findings, list places, custom-list
    entries and detected changes."""
    path = {pk: source for pk, source in Run.objects.values_list("pk", "source_path")}
    runs = sorted(
        Run.objects.values_list(
            "source_path",
            "system__institution__name",
            "system__name",
            "score_total",
            "score_bw",
            "score_md",
            "client_nodes",
            "client_procs",
            "valid",
            "review_status",
            "flagged",
            "production_accepted",
            "exclusion_reason",
        )
    )
    phases = sorted(
        (path[run], name, value, seconds)
        for run, name, value, seconds in PhaseResult.objects.values_list("run", "name", "value", "seconds")
    )
    anomalies = sorted(
        (path[run], rule, severity, phase, message)
        for run, rule, severity, phase, message in Anomaly.objects.values_list(
            "run", "rule", "severity", "phase", "message"
        )
    )
    entries = sorted(
        (entry.kind, path[entry.run_id], entry.rank, entry.ranked, entry.score, entry.flagged)
        for entry in ListEntry.objects.with_rank()
    )
    custom = sorted(
        (path[run], ranked, value)
        for run, ranked, value in CustomListEntry.objects.values_list("run", "ranked", "value")
    )
    changes = sorted(
        (system, metric, kind, direction, path.get(before), path[after], magnitude)
        for system, metric, kind, direction, before, after, magnitude in Change.objects.values_list(
            "system__name", "metric", "kind", "direction", "run_before", "run_after", "magnitude_pct"
        )
    )
    return {
        "runs": runs,
        "phases": phases,
        "anomalies": anomalies,
        "entries": entries,
        "custom": custom,
        "changes": changes,
    }


def ingested(tree: Path, runs_per_commit: int) -> dict[str, list]:
    call_command("flush", interactive=False, verbosity=0)
    save_custom_list("easy write", "ior_easy_write")
    summary = ingest_path(tree, runs_per_commit=runs_per_commit)
    assert not summary.failed
    return stored_state()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    "runs_per_commit",
    [
        pytest.param(50, id="one batch: the copy and the run it copies stored together"),
        pytest.param(4, id="two batches: the copy finds the run it copies stored by the batch before"),
    ],
)
def test_a_tree_ingested_in_one_batch_stores_what_one_run_per_transaction_stores(tree, celery_eager, runs_per_commit):
    one_by_one = ingested(tree, runs_per_commit=1)
    in_batches = ingested(tree, runs_per_commit=runs_per_commit)

    assert len(one_by_one["runs"]) == len(TREE)
    assert len({row[1:3] for row in one_by_one["runs"]}) >= 3, "several systems, one with several runs"
    assert any(rule == "duplicate_result" for _, rule, *_ in one_by_one["anomalies"]), "the copy is a finding"
    copies = {path.split("/")[0] for path, rule, *_ in in_batches["anomalies"] if rule == "duplicate_result"}
    assert copies == {"Inst A", "Inst C"}, "the copy and the run it copies name each other"
    assert one_by_one["entries"], "list entries to compare"
    assert one_by_one["custom"], "custom-list entries to compare"
    for part in one_by_one:
        assert in_batches[part] == one_by_one[part], part


@pytest.mark.django_db(transaction=True)
def test_a_run_the_database_refuses_in_a_batch_leaves_neither_its_system_nor_its_institution(
    tree, celery_eager, monkeypatch
):
    """The batch's systems are found or created together, before its runs: those only a refused run named go
    with it, as they would have been rolled back with it one run per transaction. The runs are stored together
    first, so the refusal comes from the rows of all of them: the refused run still fails alone, the others are
    stored whole."""
    children = pipeline.children

    def refusing_inst_c(run, parsed):
        rows = children(run, parsed)
        if parsed.record.source_path.startswith("Inst C/"):
            rows[0][0].source_line = -1  # a phase's line number the database's check refuses
        return rows

    monkeypatch.setattr(pipeline, "children", refusing_inst_c)

    summary = ingest_path(tree, runs_per_commit=50)

    assert [failure.split(":")[0] for failure in summary.failed] == [
        "Inst C/Sys 3/BeeGFS/2023/submission-900/results/2023.10.25-16.06.23"
    ]
    assert Run.objects.count() == len(TREE) - 1
    assert "Sys 3" not in StorageSystem.objects.values_list("name", flat=True)
    assert "Inst C" not in Institution.objects.values_list("name", flat=True)
    assert not StorageSystem.objects.filter(runs__isnull=True).exists(), "a system with no run"
    assert not Institution.objects.filter(systems__isnull=True).exists(), "an institution with no system"
    stored = Run.objects.all()
    assert all(run.phases.exists() for run in stored), "the others' phases"
    assert Anomaly.objects.filter(run__in=stored).exists(), "the others' findings"
    assert not PhaseResult.objects.filter(source_line__lt=0).exists()
