"""What uploads may make of a study is bounded (IOBOARD_STUDY_MAX_*): a study every reader's page and API would pay
for is refused at ingest, with a message naming the upload, and nothing of it is stored (issue 40, item 1)."""

import pytest

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.results.models import Study, StudyPoint
from synth.study import StudySpec, write_study
from tests.api.test_ownership_attacks import archive
from tests.api.test_ownership_of_series_and_studies import upload
from tests.api.uploading import client_with_token
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db

SAMPLE = (
    REPO_ROOT / "tests" / "data" / "ior" / "ior-3.3.0_study_three-repetitions_hints_ior-study-sample.txt"
).read_bytes()


def study_archive(configs: list[str]) -> bytes:
    """One IOR log per config, each the sample with its own hints file on the command line (distinct bytes: the
    ingest skips a log it has already seen), and a manifest giving each its config."""
    entries: dict[str, object] = {
        "manifest.csv": ("log,config\n" + "".join(f"{c}.txt,{c}\n" for c in configs)).encode()
    }
    for config in configs:
        entries[f"{config}.txt"] = SAMPLE.replace(b"/home/bench/hints/hint4", f"/home/bench/hints/{config}".encode())
    return archive(entries)


def test_a_study_of_a_thousand_configurations_is_refused_at_ingest_with_a_message_naming_the_upload(
    alice, tmp_path, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    batch = study_archive([f"hint{index}" for index in range(1000)])

    status = upload(
        client_with_token(alice), batch, django_capture_on_commit_callbacks, kind="ior", study="wide", name="wide.tgz"
    )

    assert status["status"] == "failed"
    # refused at its first hundred logs (2 operations x 100 x 99 / 2 pairs): the rest is never stored, nor parsed
    assert status["error"].startswith(
        "wide.tgz: study 'wide' would hold 9,900 pairwise comparisons, more than the 5,000"
    )
    assert not Study.objects.exists()
    assert not StudyPoint.objects.exists()


def test_a_study_grown_upload_by_upload_is_refused_once_an_upload_takes_it_past_the_budget(
    alice, tmp_path, settings, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    settings.IOBOARD_STUDY_MAX_CONFIGURATIONS = 10
    client = client_with_token(alice)
    first = upload(
        client,
        study_archive([f"a{index}" for index in range(6)]),
        django_capture_on_commit_callbacks,
        kind="ior",
        study="grown",
    )
    assert first["status"] == "done", first["error"]
    stored = sorted(StudyPoint.objects.values_list("pk", flat=True))

    second = upload(
        client,
        study_archive([f"b{index}" for index in range(6)]),
        django_capture_on_commit_callbacks,
        kind="ior",
        study="grown",
        name="more.tgz",
    )

    assert second["status"] == "failed"
    assert "more.tgz: study 'grown' would hold 12 configurations, more than the 10" in second["error"]
    assert sorted(StudyPoint.objects.values_list("pk", flat=True)) == stored


@pytest.mark.parametrize(
    ("budget", "limit", "words"),
    [
        ("IOBOARD_STUDY_MAX_VALUES_PER_AXIS", 5, "6 values of axis 'config', more than the 5"),
        ("IOBOARD_STUDY_MAX_AXES", 4, "axes, more than the 4 a study may have"),
        # config alone varies, 6 values in each of 2 operations: 2 x 15 pairs
        ("IOBOARD_STUDY_MAX_COMPARISONS", 29, "30 pairwise comparisons, more than the 29"),
    ],
)
def test_each_budget_refuses_an_upload_past_it(
    budget, limit, words, alice, tmp_path, settings, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    setattr(settings, budget, limit)

    status = upload(
        client_with_token(alice),
        study_archive([f"c{index}" for index in range(6)]),
        django_capture_on_commit_callbacks,
        kind="ior",
        study="capped",
    )

    assert status["status"] == "failed"
    assert words in status["error"]
    assert not StudyPoint.objects.exists()


def test_the_operators_command_line_sizes_its_own_studies(tmp_path, settings):
    settings.IOBOARD_STUDY_MAX_CONFIGURATIONS = 2
    write_study(
        StudySpec(
            seed=3, filesystems={"GPFS": 0.05}, apis=["POSIX"], nodes=[2], configs=["x", "y", "z"], repetitions=3
        ),
        tmp_path,
    )

    summary = ingest_ior_paths([tmp_path], study_name="operator", manifest=tmp_path / "manifest.csv")

    assert summary.failed == []
    assert Study.objects.get(name="operator").points.count() == 6
