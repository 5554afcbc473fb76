"""A run keeps at most IOBOARD_RUN_KEPT_FILES configuration files and IOBOARD_RUN_KEPT_FILE_BYTES of them in all
(issue 40: 251 kept files made one run page 16 MB), beside the 256 KiB each. Past the budget the remaining files, in
name order, are not kept, and the run says so (the info-level `files_not_kept` finding).

The sample (demo Intel/Wolf submission-8) holds two configuration files: config-orig.ini (2,672 bytes) and
config.ini (2,329 bytes), 5,001 bytes together."""

import shutil

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Run
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db

SUBMISSION = REPO_ROOT / "fixtures" / "demo" / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8"


def ingested(tmp_path) -> Run:
    copy = tmp_path / "run"
    shutil.copytree(SUBMISSION, copy)
    (run,) = Run.objects.filter(pk__in=ingest_path(copy).run_ids)
    return run


def test_within_the_budget_every_file_is_kept_and_nothing_is_said(settings, tmp_path):
    settings.IOBOARD_RUN_KEPT_FILES = 2
    settings.IOBOARD_RUN_KEPT_FILE_BYTES = 5001
    run = ingested(tmp_path)
    assert sorted(run.files.values_list("name", flat=True)) == ["config-orig.ini", "config.ini"]
    assert not run.anomalies.filter(rule="files_not_kept").exists()


def test_past_the_count_the_rest_in_name_order_is_not_kept_and_the_run_says_so(settings, tmp_path):
    settings.IOBOARD_RUN_KEPT_FILES = 1
    run = ingested(tmp_path)
    assert list(run.files.values_list("name", flat=True)) == ["config-orig.ini"]
    (notice,) = run.anomalies.filter(rule="files_not_kept")
    assert notice.severity == "info"
    assert "1 configuration file not kept" in notice.message
    assert "config.ini" in notice.message
    assert notice.evidence["files"] == ["config.ini"]


def test_past_the_bytes_the_file_that_would_overflow_and_the_rest_are_not_kept(settings, tmp_path):
    settings.IOBOARD_RUN_KEPT_FILES = 10
    settings.IOBOARD_RUN_KEPT_FILE_BYTES = 5000
    run = ingested(tmp_path)
    assert list(run.files.values_list("name", flat=True)) == ["config-orig.ini"]
    (notice,) = run.anomalies.filter(rule="files_not_kept")
    assert notice.evidence["files"] == ["config.ini"]
    assert notice.evidence["budget"] == {"files": 10, "bytes": 5000}
