"""The whole public IO500 corpus in ../shared/io500-corpus against its expected.csv.

Skipped with a notice where ../shared is absent (failed under IOBOARD_REQUIRE_SHARED=1, as in CI).
expected.csv has one row per submission folder; its numbers
were produced independently of this parser (printed values, era-aware recomputation, raw node counts).
"""

import csv
import time

import pytest

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar import parse_tree
from apps.ingest.tools.io500.records import IO500RunRecord
from tests.conftest import shared_path

STANDARD_PHASES = (
    "ior_easy_write",
    "mdtest_easy_write",
    "ior_hard_write",
    "mdtest_hard_write",
    "find",
    "ior_easy_read",
    "mdtest_easy_stat",
    "ior_hard_read",
    "mdtest_hard_stat",
    "mdtest_easy_delete",
    "mdtest_hard_read",
    "mdtest_hard_delete",
)

pytestmark = pytest.mark.corpus


@pytest.fixture(scope="module")
def corpus():
    expected = shared_path("io500-corpus", "expected.csv")
    started = time.perf_counter()
    items = list(parse_tree(expected.parent))
    elapsed = time.perf_counter() - started
    with expected.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    records = [item for item in items if isinstance(item, IO500RunRecord)]
    errors = [item for item in items if isinstance(item, ParseError)]
    return rows, records, errors, elapsed


def records_of(records, submission_path):
    return [r for r in records if r.source_path == submission_path or r.source_path.startswith(submission_path + "/")]


def relative_error(expected: str, actual: float | None) -> float:
    value = float(expected)
    return abs(value - actual) / max(abs(value), abs(actual), 1e-300)


def test_every_submission_with_result_files_yields_exactly_one_record(corpus):
    rows, records, errors, _ = corpus
    scored = [row for row in rows if row["recomputed_total"]]
    assert len(scored) > 100
    missing = [row["path"] for row in scored if len(records_of(records, row["path"])) != 1]
    assert missing == []
    unexpected = [e for e in errors if any(e.path.startswith(row["path"]) for row in scored)]
    assert unexpected == []


def test_submissions_without_scores_are_reported_not_crashed_on(corpus):
    rows, records, errors, _ = corpus
    unscored = [row["path"] for row in rows if not row["recomputed_total"] and row["era"] == "none"]
    reported = {e.path for e in errors}
    for path in unscored:
        assert records_of(records, path) == []
        assert path in reported


def test_computed_scores_match_the_recomputation_within_tolerance(corpus):
    rows, records, _, _ = corpus
    failures = []
    for row in rows:
        if not row["recomputed_total"]:
            continue
        (record,) = records_of(records, row["path"])
        tolerance = max(float(row["tol_total"]), 1e-4)
        for column, value in (
            ("recomputed_total", record.computed_score.total),
            ("recomputed_bw", record.computed_score.bw),
            ("recomputed_md", record.computed_score.md),
        ):
            if relative_error(row[column], value) > tolerance:
                failures.append((row["path"], column, row[column], value))
    assert failures == []


def test_reported_totals_equal_the_printed_ones(corpus):
    rows, records, _, _ = corpus
    failures = []
    for row in rows:
        if row["printed_total"] and row["recomputed_total"]:
            (record,) = records_of(records, row["path"])
            if float(row["printed_total"]) != record.reported_score.total:
                failures.append((row["path"], row["printed_total"], record.reported_score.total))
    assert failures == []


def test_client_nodes_and_procs_match_wherever_expected(corpus):
    rows, records, _, _ = corpus
    failures = []
    checked = 0
    for row in rows:
        if not row["client_nodes"]:
            continue
        (record,) = records_of(records, row["path"])
        checked += 1
        if int(row["client_nodes"]) != record.client_nodes:
            failures.append((row["path"], "nodes", row["client_nodes"], record.client_nodes))
        if row["client_procs"] and int(row["client_procs"]) != record.client_procs:
            failures.append((row["path"], "procs", row["client_procs"], record.client_procs))
    assert checked > 100
    assert failures == []


def test_phase_values_and_seconds_are_the_printed_ones(corpus):
    rows, records, _, _ = corpus
    failures = []
    for row in rows:
        if not row["recomputed_total"]:
            continue
        (record,) = records_of(records, row["path"])
        phases = {phase.name: phase for phase in record.phases}
        for name in STANDARD_PHASES:
            phase = phases.get(name)
            if row[name] and (phase is None or float(row[name]) != phase.value):
                failures.append((row["path"], name, row[name], phase and phase.value))
            if row[f"{name}_time"] and (phase is None or float(row[f"{name}_time"]) != phase.seconds):
                failures.append((row["path"], f"{name}_time", row[f"{name}_time"], phase and phase.seconds))
    assert failures == []


def test_every_capp_run_with_an_intact_result_txt_verifies_its_score_hash(corpus):
    rows, records, _, _ = corpus
    capp = [record for row in rows if row["era"] == "new" for record in records_of(records, row["path"])]
    assert len(capp) > 50
    assert [r.source_path for r in capp if r.verification != "verified"] == []
    assert all(r.era == "capp" for r in capp)


def test_eras_and_formulas_follow_the_expected_classification(corpus):
    rows, records, _, _ = corpus
    for row in rows:
        if not row["recomputed_total"]:
            continue
        (record,) = records_of(records, row["path"])
        assert record.era == {"old": "script", "new": "capp"}[row["era"]], row["path"]
        if row["era"] == "old":
            product = abs(float(row["printed_total"]) - float(row["printed_bw"]) * float(row["printed_md"]))
            assert (record.score_formula == "product") == (product <= 1e-3 * float(row["printed_total"])), row["path"]


def test_the_whole_corpus_parses_quickly(corpus):
    _, _, _, elapsed = corpus
    assert elapsed < 15


def test_every_verified_capp_run_records_the_hash_rule_of_its_build(corpus):
    """The corpus predates io500 a69cf60: every run verifies with a rule of the builds before it."""
    rows, records, _, _ = corpus
    capp = [record for row in rows if row["era"] == "new" for record in records_of(records, row["path"])]
    rules = {record.source_path: record.evidence.score_hash["rule"] for record in capp}
    assert set(rules.values()) <= {"standard", "isc21_v1"}, rules
