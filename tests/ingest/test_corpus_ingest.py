"""The public IO500 corpus through the real ingest into the database (skipped without ../shared).

Checks the issue's acceptance points on what lands in the database, through `export_runs`.
"""

import csv
import json

import pytest
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Run
from tests.conftest import shared_path

pytestmark = [pytest.mark.corpus, pytest.mark.django_db]


@pytest.fixture
def corpus_ingested(tmp_path):
    corpus = shared_path("io500-corpus")
    summary = ingest_path(corpus)
    out = tmp_path / "runs.json"
    call_command("export_runs", "--format", "json", "-o", str(out))
    exported = json.loads(out.read_text())
    with (corpus / "expected.csv").open(newline="") as handle:
        expected = list(csv.DictReader(handle))
    return corpus, summary, exported, expected


def runs_of_submission(exported, submission_path):
    return [
        run
        for run in exported
        if run["source_path"] == submission_path or run["source_path"].startswith(submission_path + "/")
    ]


def matching_run(exported, row):
    """The submission's run that printed the row's TOTAL (a bundle holds several runs)."""
    candidates = runs_of_submission(exported, row["path"])
    printed = float(row["printed_total"])
    return min(candidates, key=lambda run: abs((run["reported_score"]["total"] or 0) - printed), default=None)


def test_every_submission_with_result_files_is_ingested_without_failure(corpus_ingested):
    _, summary, exported, expected = corpus_ingested
    assert summary.failed == []
    for row in expected:
        if row["recomputed_total"]:
            assert runs_of_submission(exported, row["path"]), f"no run for {row['path']}"


#: Node counts expected.csv takes from the tools where the submission itself says otherwise. LCPQ's slurm_script
#: asks for `--nodes=10 --ntasks-per-node=3` and its mdtest Nodemap shows 3 ranks on rank 0's node: the tools'
#: "30 task(s) on 30 node(s)" counted one node per process, as Frontera's did.
CORRECTED_NODES = {"LCPQ/Ampere/BeeGFS/2023/submission-686": "10"}


def test_recomputed_and_reported_scores_and_node_counts_match_expected(corpus_ingested):
    _, _, exported, expected = corpus_ingested
    mismatches = []
    for row in expected:
        if not row["recomputed_total"]:
            continue
        run = matching_run(exported, row)
        tolerance = max(float(row["tol_total"] or 0), 1e-4)
        for field, column in (("total", "recomputed_total"), ("bw", "recomputed_bw"), ("md", "recomputed_md")):
            want, got = float(row[column]), run["score"][field]
            if got is None or abs(got - want) > tolerance * abs(want):
                mismatches.append((row["path"], field, want, got))
        if run["reported_score"]["total"] != float(row["printed_total"]):
            mismatches.append((row["path"], "printed_total", row["printed_total"], run["reported_score"]["total"]))
        # Where the labels call the tools' node count unreliable (one node per process), the run is listed with the
        # count the IO500 itself recorded, which its other evidence (Nodemap, hostfile) supports.
        nodes = (
            row["official_client_nodes"]
            if "node_count_unreliable" in row["anomaly_kinds"].split(";")
            else CORRECTED_NODES.get(row["path"], row["client_nodes"])
        )
        if nodes and run["client_nodes"] != int(float(nodes)):
            mismatches.append((row["path"], "client_nodes", nodes, run["client_nodes"]))
    assert mismatches == []


def test_every_c_application_run_with_an_intact_result_txt_verifies(corpus_ingested):
    corpus, _, exported, _ = corpus_ingested
    unverified = [
        run["source_path"]
        for run in exported
        if run["era"] == "capp"
        and (corpus / run["source_path"] / "result.txt").is_file()
        and run["verification"] != "verified"
    ]
    assert unverified == []


def test_ingesting_the_corpus_twice_leaves_the_run_count_unchanged(corpus_ingested):
    corpus, first, _, _ = corpus_ingested
    count = Run.objects.count()
    second = ingest_path(corpus)
    assert Run.objects.count() == count
    assert second.created == []
    assert len(second.unchanged) == len(first.created)
