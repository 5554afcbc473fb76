"""`reproducibility:` in ioboard.yaml: read with the run, and a bad one refused naming the file, nothing stored."""

import shutil

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Run
from tests.api.uploading import DEMO_SUBMISSION

pytestmark = pytest.mark.django_db


def submission_with_sidecar(tmp_path, text: str):
    folder = tmp_path / "submission-8"
    shutil.copytree(DEMO_SUBMISSION, folder)
    (folder / "ioboard.yaml").write_text(text)
    return folder


def test_the_questionnaire_is_read_from_the_sidecar_and_the_run_is_accepted(tmp_path):
    folder = submission_with_sidecar(
        tmp_path, "reproducibility:\n  target_level: limited\n  questionnaire:\n    trust: we trust the numbers\n"
    )
    summary = ingest_path(folder)
    run = Run.objects.get(pk=summary.created[0])
    assert run.reproducibility["target_level"] == "limited"
    assert run.reproducibility["questionnaire"] == {"trust": "we trust the numbers"}
    assert run.review_status == "accepted"  # not an upload: a published archive, reviewed in its day


def test_a_bad_questionnaire_fails_the_run_naming_the_sidecar(tmp_path):
    folder = submission_with_sidecar(tmp_path, "reproducibility:\n  questionnaire:\n    astrology: yes\n")
    summary = ingest_path(folder)
    assert not Run.objects.exists()
    assert len(summary.failed) == 1
    assert "ioboard.yaml" in summary.failed[0]
    assert "astrology" in summary.failed[0]
