"""DNE series and IOR studies belong to whoever created them (apps.results.services.ownership): an ordinary account's
upload neither claims, injects into, rewrites nor deletes another owner's series or study, and a batch upload is stored
all or nothing. Attacks from issue #22, through the API and the Celery task (eager)."""

import shutil
from pathlib import Path

import pytest

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import ScalingPoint, ScalingSeries, Study, StudyPoint
from tests.api.test_ownership_attacks import archive
from tests.api.uploading import client_with_token, named_file

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data"
DNE = DATA / "mdtest" / "dne-campaign-slice"
IOR = DATA / "ior" / "study-slice"
ONE_DNE_LOG = "dne2_8_mds/unique_10k_1/mdtest.out"
HINT_LOG = "CephFS/MPIIO/hint4-8n.txt"
#: The study slice as an archive, its manifest at the top.
IOR_ARCHIVE = {"CephFS": IOR / "CephFS", "Lustre": IOR / "Lustre", "manifest.csv": IOR / "manifest.csv"}


def upload(client, data: bytes, capture, *, kind: str, name: str = "logs.tgz", **fields) -> dict:
    with capture(execute=True):
        response = client.post(
            "/api/v1/uploads/", {"file": named_file(data, name), "kind": kind, **fields}, format="multipart"
        )
    assert response.status_code == 202, response.content
    return client.get(response.json()["status_url"]).json()


def points_of(container) -> list[tuple]:
    return sorted(
        container.points.values_list(
            "log_hash", "upload", "operation", "source_file" if isinstance(container, ScalingSeries) else "source"
        )
    )


@pytest.fixture
def operator_series(tmp_path) -> ScalingSeries:
    ingest_mdtest_paths([shutil.copytree(DNE, tmp_path / "dne")], series_name="campaign")
    return ScalingSeries.objects.get(name="campaign")


@pytest.fixture
def operator_study(tmp_path) -> Study:
    ingest_ior_paths([shutil.copytree(IOR, tmp_path / "ior")], study_name="hints")
    return Study.objects.get(name="hints")


def test_one_log_uploaded_into_the_operators_series_by_its_name_claims_nothing(
    operator_series, bob, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    client = client_with_token(bob)
    before, study_before = points_of(operator_series), points_of(operator_series.study)

    status = upload(
        client,
        archive({ONE_DNE_LOG: DNE / ONE_DNE_LOG}),
        django_capture_on_commit_callbacks,
        kind="mdtest",
        series="campaign",
    )

    assert status["status"] == "failed"
    assert "scaling series 'campaign' belongs to the operator" in status["error"]
    operator_series.refresh_from_db()
    assert operator_series.upload_id is None
    assert client.delete(f"/api/v1/uploads/{status['id']}/").status_code == 204
    assert points_of(ScalingSeries.objects.get(pk=operator_series.pk)) == before
    assert points_of(Study.objects.get(scaling_series=operator_series)) == study_before


def test_logs_are_not_injected_into_another_accounts_series(
    alice, bob, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    first = upload(
        client_with_token(alice),
        archive({"dne2_1_mds": DNE / "dne2_1_mds"}),
        django_capture_on_commit_callbacks,
        kind="mdtest",
        series="alices",
    )
    assert first["status"] == "done", first["error"]
    before = points_of(ScalingSeries.objects.get(name="alices"))

    bobs = upload(
        client_with_token(bob),
        archive({"dne2_2_mds": DNE / "dne2_2_mds"}),
        django_capture_on_commit_callbacks,
        kind="mdtest",
        series="alices",
    )

    assert bobs["status"] == "failed"
    assert f"belongs to upload {first['id']}" in bobs["error"]
    assert "by alice" in bobs["error"]
    assert points_of(ScalingSeries.objects.get(name="alices")) == before


def test_the_account_that_created_a_series_adds_to_it_with_another_upload(
    alice, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    client = client_with_token(alice)
    upload(
        client,
        archive({"dne2_1_mds": DNE / "dne2_1_mds"}),
        django_capture_on_commit_callbacks,
        kind="mdtest",
        series="alices",
    )

    second = upload(
        client,
        archive({"dne2_2_mds": DNE / "dne2_2_mds"}),
        django_capture_on_commit_callbacks,
        kind="mdtest",
        series="alices",
    )

    assert second["status"] == "done", second["error"]
    assert ScalingPoint.objects.filter(upload=second["id"]).exists()


def test_deleting_the_upload_that_created_a_series_leaves_the_operators_points_and_passes_it_on(
    alice, tmp_path, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    client = client_with_token(alice)
    created = upload(
        client,
        archive({"dne2_1_mds": DNE / "dne2_1_mds"}),
        django_capture_on_commit_callbacks,
        kind="mdtest",
        series="shared",
    )
    ingest_mdtest_paths([shutil.copytree(DNE / "dne2_2_mds", tmp_path / "dne2_2_mds")], series_name="shared")
    operators = sorted(
        ScalingPoint.objects.filter(series__name="shared", upload__isnull=True).values_list("pk", flat=True)
    )
    assert operators

    assert client.delete(f"/api/v1/uploads/{created['id']}/").status_code == 204

    series = ScalingSeries.objects.get(name="shared")
    assert sorted(series.points.values_list("pk", flat=True)) == operators
    assert series.upload_id is None
    study = Study.objects.get(scaling_series=series)
    assert study.upload_id is None
    assert study.points.count() == len(operators)
    assert not study.points.filter(upload__isnull=False).exists()


def test_logs_are_not_injected_into_the_operators_study_and_nothing_survives_the_attempt(
    operator_study, bob, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    before = points_of(operator_study)
    planted = (DATA / "ior" / "ior-3.3.0_study_three-repetitions_hints_ior-study-sample.txt").read_bytes()

    status = upload(
        client_with_token(bob),
        planted,
        django_capture_on_commit_callbacks,
        kind="ior",
        name="planted.txt",
        study="hints",
    )

    assert status["status"] == "failed"
    assert "study 'hints' belongs to the operator" in status["error"]
    assert points_of(Study.objects.get(name="hints")) == before
    assert not StudyPoint.objects.filter(upload__isnull=False).exists()


def test_re_uploading_a_studys_own_logs_with_another_manifest_rewrites_nothing(
    alice, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    client = client_with_token(alice)
    first = upload(client, archive(IOR_ARCHIVE), django_capture_on_commit_callbacks, kind="ior", study="hints")
    assert first["status"] == "done", first["error"]
    axes = sorted(map(str, StudyPoint.objects.values_list("log_hash", "axes")))
    manifest = (IOR / "manifest.csv").read_text().replace("hint4", "forged")

    second = upload(
        client,
        archive({**IOR_ARCHIVE, "manifest.csv": manifest.encode()}),
        django_capture_on_commit_callbacks,
        kind="ior",
        study="hints",
        name="again.tgz",
    )

    assert second["status"] == "failed"
    assert "never replaces points another upload or the operator stored" in second["error"]
    assert sorted(map(str, StudyPoint.objects.values_list("log_hash", "axes"))) == axes
    assert set(StudyPoint.objects.values_list("upload", flat=True)) == {first["id"]}


def test_a_failed_mdtest_log_stores_nothing_of_its_upload(
    alice, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    text = (DNE / ONE_DNE_LOG).read_bytes()
    batch = archive(
        {"dne2_1_mds": DNE / "dne2_1_mds", "dne2_8_mds/unique_10k_1/mdtest.out": text[: text.index(b"SUMMARY")]}
    )

    status = upload(client_with_token(alice), batch, django_capture_on_commit_callbacks, kind="mdtest", series="batch")

    assert status["status"] == "failed"
    assert "dne2_8_mds/unique_10k_1/mdtest.out:" in status["error"]
    assert "truncated" in status["error"]
    assert not ScalingSeries.objects.exists()
    assert not ScalingPoint.objects.exists()
    assert not StudyPoint.objects.exists()


def test_a_failed_ior_log_stores_nothing_of_its_upload(
    alice, tmp_path, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    folder = shutil.copytree(IOR, tmp_path / "slice")
    lines = (folder / HINT_LOG).read_text().split("\n")
    lines[48] = lines[48].replace("3378.82", "33 8.82")  # the write Summary row
    (folder / HINT_LOG).write_text("\n".join(lines))
    batch = archive({name: folder / name for name in ("CephFS", "Lustre", "manifest.csv")})

    status = upload(client_with_token(alice), batch, django_capture_on_commit_callbacks, kind="ior", study="batch")

    assert status["status"] == "failed"
    assert f"{HINT_LOG}:49: malformed write summary row" in status["error"]
    assert not Study.objects.exists()
    assert not StudyPoint.objects.exists()
