"""Per-rank figures of ``export_runs --format json`` against the per-rank CSVs, read independently.

The expectation is computed here with the csv module and ``statistics`` from the issue's definitions
(runtime = the ``runtime`` column for IOR phases and ``time-<op>`` for mdtest phases; imbalance =
max / min runtime; cv = population standard deviation / mean of the per-rank throughput or rate),
never with the product's parser or summariser.
"""

import csv
import json
import statistics
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_path
from tests.conftest import shared_path
from tests.ingest.tools.io500.io500_samples import SAMPLES

pytestmark = pytest.mark.django_db

MDTEST_OPERATION = {"write": "File creation", "stat": "File stat", "read": "File read", "delete": "File removal"}


def expected_ranks(result_dir: Path) -> dict:
    expected = {}
    for path in sorted(result_dir.glob("*.csv")):
        stem = path.stem
        if not stem.startswith(("ior-", "mdtest-")):
            continue
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        if stem.startswith("ior-"):
            triples = [(int(r["rank"]), float(r["runtime"]), float(r["throughput"])) for r in rows]
        else:
            operation = MDTEST_OPERATION[stem.rsplit("-", 1)[-1]]
            triples = [
                (int(r["rank"]), float(r[f"time-{operation}"]), float(r[f"rate-{operation}"]))
                for r in rows
                if r["rank"] != "all" and r[f"time-{operation}"]
            ]
        runtimes = [t for _, t, _ in triples]
        rates = [x for _, _, x in triples]
        longest, shortest = max(runtimes), min(runtimes)
        expected[stem.lower().replace("-", "_")] = {
            "ranks": len(triples),
            "slowest_rank": min(rank for rank, t, _ in triples if t == longest),
            "fastest_rank": min(rank for rank, t, _ in triples if t == shortest),
            "runtime_max": longest,
            "runtime_min": shortest,
            "imbalance": longest / shortest,
            "cv": statistics.pstdev(rates) / statistics.mean(rates),
        }
    return expected


def exported_runs(tmp_path) -> list[dict]:
    out = tmp_path / "runs.json"
    call_command("export_runs", "--format", "json", "-o", str(out))
    return json.loads(out.read_text())


def assert_ranks_equal(exported: dict, expected: dict, where: str) -> None:
    assert set(exported) == set(expected), where
    for phase, figures in expected.items():
        for key, value in figures.items():
            assert exported[phase][key] == pytest.approx(value, rel=1e-12), f"{where} {phase} {key}"


def test_the_sample_run_exports_the_figures_of_its_csvs(tmp_path):
    submission = SAMPLES / "capp-result-dir" / "submission-686"
    ingest_path(submission)
    (run,) = exported_runs(tmp_path)
    result_dir = next(submission.glob("results/*/"))

    expected = expected_ranks(result_dir)

    assert len(expected) == 11
    assert expected["ior_easy_write"]["ranks"] == 30
    assert_ranks_equal(run["ranks"], expected, run["source_path"])


def test_a_run_without_per_rank_csvs_exports_no_ranks(tmp_path):
    ingest_path(SAMPLES / "bash-results" / "submission-100")

    assert [run["ranks"] for run in exported_runs(tmp_path)] == [{}]


@pytest.mark.corpus
def test_every_corpus_run_with_per_rank_csvs_exports_the_figures_of_its_csvs(tmp_path):
    corpus = shared_path("io500-corpus")
    result_dirs = sorted({path.parent for path in corpus.rglob("ior-*.csv")})
    assert len(result_dirs) >= 6
    run_of_dir = {}
    for result_dir in result_dirs:
        (run_of_dir[result_dir],) = ingest_path(result_dir).run_ids
    exported = {run["id"]: run for run in exported_runs(tmp_path)}
    for result_dir, run_id in run_of_dir.items():
        assert_ranks_equal(exported[run_id]["ranks"], expected_ranks(result_dir), str(result_dir))
