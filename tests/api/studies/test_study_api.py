"""Studies through the API: IOR uploads (kind=ior) become studies; studies are read with their comparisons."""

import json
import re
from pathlib import Path

import pytest

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.results.models import Study, StudyPoint, Upload
from synth.study import StudySpec, write_study
from tests.api.uploading import named_file, tar_gz_of

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "data" / "ior"
SLICE = DATA / "study-slice"
STUDY_LOG = DATA / "ior-3.3.0_study_three-repetitions_hints_ior-study-sample.txt"
STUDIES = "/api/v1/studies/"


def post_upload(client, data: bytes, name: str, **fields):
    return client.post(
        "/api/v1/uploads/", {"file": named_file(data, name), "kind": "ior", **fields}, format="multipart"
    )


def test_an_uploaded_study_archive_with_its_manifest_becomes_a_study(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = post_upload(alice_client, tar_gz_of(SLICE), "slice.tgz", study="uploaded hints")

    assert response.status_code == 202, response.json()
    status = alice_client.get(response.json()["status_url"]).json()
    assert (status["status"], status["kind"]) == ("done", "ior"), status["error"]
    study = Study.objects.get(name="uploaded hints")
    assert study.upload_id == response.json()["id"]
    assert study.points.count() == 16
    assert set(study.points.values_list("axes__filesystem", flat=True)) == {"CephFS", "Lustre"}
    listed = alice_client.get("/api/v1/uploads/?kind=ior").json()
    assert [item["id"] for item in listed["results"]] == [response.json()["id"]]


def test_an_uploaded_garbled_log_fails_its_job_naming_the_file_and_line(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    lines = STUDY_LOG.read_text().split("\n")
    lines[48] = lines[48].replace("3378.82", "33 8.82")
    with django_capture_on_commit_callbacks(execute=True):
        response = post_upload(alice_client, "\n".join(lines).encode(), "hint4-8n.txt")

    status = alice_client.get(response.json()["status_url"]).json()
    assert status["status"] == "failed"
    assert "hint4-8n.txt:49: malformed write summary row" in status["error"]
    assert not Study.objects.exists()
    assert not StudyPoint.objects.exists()


def test_a_bare_upload_that_is_not_ior_output_is_refused(alice_client, private_storage):
    response = post_upload(alice_client, b"hello world\n", "notes.txt")
    assert response.status_code == 400
    assert "not an archive and not a log of ior (no ior output in it)" in response.json()["file"][0]
    assert not Upload.objects.exists()


def test_studies_are_listed_and_read_with_points_as_printed_and_comparisons(anonymous_client, tmp_path):
    ingest_ior_paths([SLICE], study_name="hints")
    study = Study.objects.get()

    listed = anonymous_client.get(STUDIES).json()
    assert [(item["name"], item["point_count"], item["log_count"]) for item in listed["results"]] == [("hints", 16, 8)]

    body = anonymous_client.get(f"{STUDIES}{study.pk}/").json()
    truth = json.loads((SLICE / "truth.json").read_text())
    cell = next(c for c in truth["cells"] if c["log"] == "CephFS/MPIIO/hint4-8n.txt" and c["operation"] == "write")
    point = next(p for p in body["points"] if p["source"] == cell["log"] and p["operation"] == "write")
    assert (point["mean"], point["stddev"]) == ("3378.82", "228.18")
    assert point["iterations"] == ["3374.47", "3101.56", "3660.43"]
    assert [float(value) for value in point["iterations"]] == cell["iterations"]
    assert {"filesystem", "config", "label", "api", "nodes", "tasks"} <= set(body["axes"])
    pair = next(
        c
        for c in body["comparisons"]
        if c["axis"] == "config"
        and c["operation"] == "write"
        and c["fixed"] == {"filesystem": "CephFS", "nodes": 8}
        and (c["a"], c["b"]) == ("hint4", "hint7")
    )
    # one log (job) per configuration in the slice: measured 2.9x apart (truth: 2x or more), never tested
    assert (pair["verdict"], pair["jobs"], pair["ratio_ci"], pair["significant"]) == (
        "not_testable",
        [1, 1],
        None,
        False,
    )
    assert pair["ratio"] > 2
    assert pair["verdict_sentence"].startswith("hint4 vs hint7: not testable, 1 job against 1")
    assert body["margin"] == 0.05


def test_a_study_of_several_jobs_a_configuration_reads_with_verdicts_intervals_and_its_margin(
    anonymous_client, tmp_path
):
    spec = StudySpec(
        seed=31,
        filesystems={"Lustre": 0.03},
        apis=["POSIX"],
        nodes=[4],
        configs=["fast", "slow"],
        repetitions=3,
        levels=[3.0, 1.0],
        jobs=3,
        job_noise=0.04,
    )
    write_study(spec, tmp_path)
    ingest_ior_paths([tmp_path], study_name="jobs", manifest=tmp_path / "manifest.csv", margin=0.1)
    study = Study.objects.get()

    body = anonymous_client.get(f"{STUDIES}{study.pk}/").json()

    assert body["margin"] == 0.1
    pair = next(c for c in body["comparisons"] if c["axis"] == "config" and c["operation"] == "write")
    assert (pair["a"], pair["b"], pair["jobs"], pair["verdict"]) == ("fast", "slow", [3, 3], "different")
    assert 2.5 < pair["ratio_ci"][0] < pair["ratio"] < pair["ratio_ci"][1] < 3.6  # true ratio 3, 4 % job noise
    words = r"fast is [23](\.\d)?x faster than slow \(write, ratio [23]\.\d+, 95 % CI "
    assert re.match(words, pair["verdict_sentence"])
    assert pair["verdict_sentence"].endswith("3 and 3 jobs)")


def test_the_studies_api_is_read_only(alice_client):
    assert alice_client.post(STUDIES, {"name": "new"}).status_code == 405


def test_an_upload_sets_the_margin_of_the_study_it_creates_and_not_of_an_existing_one(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        first = post_upload(alice_client, STUDY_LOG.read_bytes(), "one.txt", study="margins", margin="0.2")
    assert first.status_code == 202, first.json()
    assert Study.objects.get(name="margins").margin == 0.2

    edited = STUDY_LOG.read_bytes().replace(b"3374.47", b"3374.48", 1)  # another log, same study
    with django_capture_on_commit_callbacks(execute=True):
        second = post_upload(alice_client, edited, "two.txt", study="margins", margin="0.5")
    assert second.status_code == 202, second.json()
    assert Study.objects.get(name="margins").margin == 0.2

    refused = post_upload(alice_client, STUDY_LOG.read_bytes(), "three.txt", study="other", margin="2")
    assert refused.status_code == 400
    assert "margin" in refused.json()
