"""Uploads through the real stack: PostgreSQL, the Redis broker and an in-process Celery worker.

Skipped without REDIS_URL (the worker fixture) and, for the corpus archive, without ../shared.
"""

import csv
import time

import pytest
import redis
from django.conf import settings

from apps.ingest.models import IngestJob
from apps.ingest.tasks import ingest_upload_task
from apps.results.models import Run, Upload
from tests.api.uploading import DEMO_SUBMISSION, DEMO_SUBMISSION_SCORE, named_file, tar_gz_of
from tests.conftest import shared_path

pytestmark = pytest.mark.services

CORPUS_SUBMISSION = "Poznan Supercomputing and Networking Center/Altair/Lustre/2024/submission-701"


def expected_score(submission: str) -> tuple[float, float]:
    """The recomputed total score and its tolerance for a submission of the corpus."""
    with open(shared_path("io500-corpus", "expected.csv"), newline="") as table:
        row = next(row for row in csv.DictReader(table) if row["path"] == submission)
    return float(row["recomputed_total"]), float(row["tol_total"])


def upload_and_wait(client, data: bytes, name: str, timeout: float = 120, **metadata) -> dict:
    accepted = client.post("/api/v1/uploads/", {"file": named_file(data, name), **metadata}, format="multipart")
    assert accepted.status_code == 202, accepted.json()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = client.get(accepted.json()["status_url"]).json()
        if status["status"] in ("done", "failed"):
            return status
        time.sleep(0.2)
    pytest.fail(f"upload {accepted.json()['id']} still {status['status']} after {timeout} s")


def wait_until_the_queue_is_drained(timeout: float = 30) -> None:
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    deadline = time.monotonic() + timeout
    while broker.llen("celery") or broker.hlen("unacked"):
        assert time.monotonic() < deadline, "the worker did not take every message"
        time.sleep(0.1)
    time.sleep(0.5)


def test_a_demo_submission_archive_is_ingested_to_done_with_the_right_score(
    celery_worker_on_redis, alice_client, private_storage
):
    status = upload_and_wait(alice_client, tar_gz_of(DEMO_SUBMISSION), "wolf.tgz")

    assert status["status"] == "done", status["error"]
    assert Run.objects.get(pk=status["runs"][0]["id"]).score_total == pytest.approx(DEMO_SUBMISSION_SCORE, rel=1e-6)


@pytest.mark.corpus
def test_a_corpus_submission_archive_is_ingested_to_done_with_the_right_score(
    celery_worker_on_redis, alice_client, private_storage
):
    score, tolerance = expected_score(CORPUS_SUBMISSION)

    status = upload_and_wait(
        alice_client,
        tar_gz_of(shared_path("io500-corpus", CORPUS_SUBMISSION)),
        "altair.tgz",
        institution="Poznan Supercomputing and Networking Center",
        system="Altair",
        filesystem="Lustre",
    )

    assert status["status"] == "done", status["error"]
    run = Run.objects.get(pk=status["runs"][0]["id"])
    assert run.score_total == pytest.approx(score, rel=tolerance)
    assert (run.system.institution.name, run.system.name, run.system.filesystem) == (
        "Poznan Supercomputing and Networking Center",
        "Altair",
        "Lustre",
    )


def test_a_duplicate_upload_and_duplicate_tasks_create_no_second_run(
    celery_worker_on_redis, alice_client, bob_client, private_storage
):
    data = tar_gz_of(DEMO_SUBMISSION)
    first = upload_and_wait(alice_client, data, "wolf.tgz")
    job = IngestJob.objects.get()

    again = alice_client.post("/api/v1/uploads/", {"file": named_file(data, "copy.tgz")}, format="multipart")
    ingest_upload_task.delay(job.pk)
    ingest_upload_task.delay(job.pk)
    wait_until_the_queue_is_drained()

    assert again.status_code == 200
    assert again.json()["id"] == first["id"]
    assert Upload.objects.count() == IngestJob.objects.count() == Run.objects.count() == 1
    job.refresh_from_db()
    assert (job.status, job.attempts) == ("done", 1)

    # Another account's copy of the same bytes is its own upload (deduplication is per account and kind), and
    # finds the run already published: still one run, still alice's.
    copy = upload_and_wait(bob_client, data, "copy.tgz")
    assert copy["id"] != first["id"]
    assert Upload.objects.count() == 2
    assert Run.objects.count() == 1
    assert Run.objects.get().upload_id == first["id"]
