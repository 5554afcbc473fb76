"""export_published and audit_summary over a published record with one linked run."""

import csv
import json
from io import StringIO

import pytest
from django.core.management import call_command

from apps.ingest.published.corrections import EMPTY_STRING_AS_ZERO, Correction
from apps.ingest.published.importer import import_published
from apps.results.services.published_audit import audit_summary
from tests.conftest import TEST_DATA
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def record_with_a_run():
    corrections = [Correction("02-lists.sql", 0, "'' in an integer column", accepts=EMPTY_STRING_AS_ZERO)]
    import_published(TEST_DATA / "published_sql", ["01-dump.sql", "02-lists.sql", "03-fixes.sql"], corrections)
    # submission 3 as published: 938.95 = sqrt(174.74 x 5045.33); the files give bw 150, so score sqrt(150 x 5045.33)
    return RunFactory(
        source_path="WekaIO/WekaIO on AWS/WekaIO/2019/submission-3",
        score_bw=150.0,
        score_md=5045.33,
        client_nodes=345,
        phases=False,
    )


def test_the_json_export_has_each_entry_with_its_run_and_differences(record_with_a_run):
    out = StringIO()
    call_command("export_published", "--format", "json", stdout=out)
    editions = {(e["release"], e["list"]): e for e in json.loads(out.getvalue())["editions"]}
    assert set(editions) == {("SC19", "io500"), ("SC19", "ten-node")}
    first = editions[("SC19", "io500")]["entries"][0]
    assert (first["rank"], first["submission_id"], first["published"]["score"]) == (1, 3, 938.95)
    assert first["run"] == record_with_a_run.pk
    assert first["source_path"] == "WekaIO/WekaIO on AWS/WekaIO/2019/submission-3"
    fields = {d["field"]: d for d in first["differences"]}
    assert fields["bw"] == {"field": "bw", "published": 174.74, "recomputed": 150.0, "cause": "unexplained"}
    assert fields["score"]["recomputed"] == pytest.approx((150.0 * 5045.33) ** 0.5)
    assert editions[("SC19", "io500")]["entries"][1]["run"] is None


def test_the_csv_export_has_a_row_per_difference_and_per_entry_without_one(record_with_a_run):
    out = StringIO()
    call_command("export_published", "--format", "csv", stdout=out)
    rows = list(csv.DictReader(StringIO(out.getvalue())))
    weka = [row for row in rows if row["submission_id"] == "3"]
    assert {row["field"] for row in weka} == {"score", "bw"}
    assert len(rows) == len(weka) + 5  # the other rows of the two SC19 lists, one each


def test_the_summary_counts_entries_with_raw_files_that_agree_and_differ(record_with_a_run):
    summary = {(row["release"], row["list"]): row for row in audit_summary()}
    assert summary[("SC19", "io500")] == {
        "release": "SC19",
        "list": "io500",
        "title": "SC19 IO500 list",
        "entries": 4,
        "with_raw_files": 1,
        "agree": 0,
        "differ": 1,
    }
