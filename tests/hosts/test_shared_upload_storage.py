"""No upload on a host's disk: a web host stores an API upload, a worker with another empty MEDIA_ROOT ingests it,
and a third web host serves its raw file. Real processes (two gunicorns and a prefork Celery worker) on the test's
PostgreSQL and Redis, each with its own MEDIA_ROOT and TMPDIR; they share the database and Redis only.
"""

import hashlib
import json
import os

import pytest

from apps.results.models import ApiToken
from rig import client, processes, servers
from tests.api.uploading import DEMO_SUBMISSION, files_under, tar_gz_of
from tests.factories import UserFactory
from tests.faults.conftest import current_database_url, needs_real_services

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def host_env(root, name: str) -> dict:
    """A host's own MEDIA_ROOT and TMPDIR (empty), on the test's database and Redis."""
    media, scratch = root / name / "media", root / name / "tmp"
    media.mkdir(parents=True)
    scratch.mkdir()
    return {
        "DATABASE_URL": current_database_url(),
        "REDIS_URL": os.environ["REDIS_URL"],
        "MEDIA_ROOT": str(media),
        "TMPDIR": str(scratch),
        "IOBOARD_WORKER_NICE": "0",  # about shared storage, not priority: no wait behind a busy host's other sessions
    }


@pytest.fixture
def three_hosts(tmp_path):
    """(web host A's base URL, web host C's base URL, the worker); every process stopped at the end."""
    needs_real_services()
    logs = tmp_path / "logs"
    logs.mkdir()
    ports = processes.free_port(), processes.free_port()
    services = [
        servers.gunicorn(ports[0], env=host_env(tmp_path, "web-a"), log_dir=logs, workers=1, threads=2),
        servers.celery_worker("worker-b", env=host_env(tmp_path, "worker-b"), log_dir=logs),
        servers.gunicorn(ports[1], env=host_env(tmp_path, "web-c"), log_dir=logs, workers=1, threads=2),
    ]
    try:
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        for base in bases:
            servers.wait_until_serving(base, timeout=90)
        servers.wait_until_workers_ready([services[1]], timeout=90)
        yield bases[0], bases[1], services[1]
    finally:
        for service in services:
            service.stop()


def test_an_upload_stored_by_one_web_host_is_ingested_by_a_worker_and_served_by_another_host(three_hosts, tmp_path):
    web_a, web_c, worker = three_hosts
    _, token = ApiToken.issue(UserFactory(username="uploader"), "upload")
    data = tar_gz_of(DEMO_SUBMISSION)
    body, content_type = client.multipart({"kind": "io500"}, "file", "demo.tgz", data)
    auth = {"Authorization": f"Token {token}", "Accept": "application/json"}

    status, answer, _ = client.http(
        "POST", f"{web_a}/api/v1/uploads/", headers={**auth, "Content-Type": content_type}, data=body
    )
    assert status == 202, answer[:500]
    upload_id = json.loads(answer)["id"]

    def finished():
        polled = json.loads(client.http("GET", f"{web_a}/api/v1/uploads/{upload_id}/", headers=auth)[1])
        return polled if polled["status"] in ("done", "failed") else None

    outcome = processes.wait_until(finished, timeout=120, what="the worker host to ingest the upload")
    assert outcome["status"] == "done", outcome
    assert "ingest_upload_task" in worker.log.read_text()  # ingested by the worker host, not eagerly on web host A
    [run] = outcome["runs"]

    status, raw, _ = client.http("GET", f"{web_c}/runs/{run['id']}/upload/")
    assert status == 200
    assert hashlib.sha256(raw).hexdigest() == hashlib.sha256(data).hexdigest()
    assert client.http("GET", f"{web_c}/api/v1/runs/{run['id']}/", headers={"Accept": "application/json"})[0] == 200
    for host in ("web-a", "worker-b", "web-c"):
        assert files_under(tmp_path / host / "media") == []
        assert files_under(tmp_path / host / "tmp") == []  # the worker's scratch copy and expansion are gone
