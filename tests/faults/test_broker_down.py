"""The broker is down: uploads are still accepted and kept, and are ingested once it is back.

The app's Celery broker is pointed at a loopback port nothing listens on. An upload must still be
answered 202, with the file stored and its job pending (the message could not be sent, so the job
waits for the sweep). Then the broker comes back and the sweep (`requeue_jobs`, what the periodic
`requeue_stuck_uploads` task and `manage.py requeue_uploads` run) enqueues the job: with a real
Redis an in-process worker ingests it; without one, the eager mode stands in for the worker.
"""

import hashlib
import os
import socket
import uuid
from datetime import timedelta

import pytest

from apps.ingest.models import IngestJob
from apps.ingest.tasks import requeue_jobs
from apps.results.models import Run, Upload
from config.celery import app as celery_app
from tests.api.uploading import DEMO_SUBMISSION, named_file, tar_gz_of
from tests.faults.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

UPLOADS = "/api/v1/uploads/"


def closed_loopback_port() -> int:
    """A port that was free a moment ago and that nothing listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def use_broker(url: str | None, *, eager: bool) -> None:
    """Point the Celery app at another broker, dropping pooled connections to the previous one."""
    if url is not None:
        celery_app.conf.broker_url = url
    celery_app.conf.task_always_eager = eager
    celery_app.conf.task_eager_propagates = True
    # Celery caches its connection and producer pools on first use; forget them so the next
    # publish connects to the broker configured now (kombu keeps one pool per broker URL).
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def broker_down():
    previous = (celery_app.conf.broker_url, celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    use_broker(f"redis://127.0.0.1:{closed_loopback_port()}/0", eager=False)
    # Fail fast: a broker that refuses connections is not worth retrying for seconds per request.
    previous_policy = celery_app.conf.broker_connection_timeout
    celery_app.conf.broker_connection_timeout = 1
    yield
    celery_app.conf.broker_connection_timeout = previous_policy
    use_broker(previous[0], eager=previous[1])
    celery_app.conf.task_eager_propagates = previous[2]


def post_demo(client):
    return client.post(UPLOADS, {"file": named_file(tar_gz_of(DEMO_SUBMISSION), "demo.tgz")}, format="multipart")


def test_an_upload_is_accepted_and_kept_while_the_broker_is_unreachable(alice_client, private_storage, broker_down):
    response = post_demo(alice_client)

    assert response.status_code == 202, response.content[:500]
    upload = Upload.objects.get()
    assert hashlib.sha256(Upload.objects.get().file.open("rb").read()).hexdigest() == Upload.objects.get().sha256
    job = IngestJob.objects.get(upload=upload)
    assert job.status == IngestJob.Status.PENDING
    assert Run.objects.count() == 0
    # The client can follow its upload while the broker is away.
    assert alice_client.get(response.json()["status_url"]).json()["status"] == "pending"


@pytest.fixture
def redis_cache_down(settings):
    """The cache on a Redis that is not there either: with REDIS_URL, broker and cache go down together."""
    cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{closed_loopback_port()}/0",
    }
    settings.CACHES = {"default": cache, "pages": cache}


def test_an_upload_is_accepted_and_kept_when_the_whole_redis_is_gone(
    alice_client, private_storage, broker_down, redis_cache_down
):
    """Rate limits live in the cache: an unreachable cache must not turn every request into a 500."""
    response = post_demo(alice_client)

    assert response.status_code == 202, response.content[:500]
    assert IngestJob.objects.get().status == IngestJob.Status.PENDING
    assert alice_client.get("/api/v1/runs/").status_code == 200


def test_a_kept_upload_is_ingested_by_the_sweep_once_the_broker_is_back(alice_client, private_storage, broker_down):
    response = post_demo(alice_client)
    assert response.status_code == 202, response.content[:500]
    job = IngestJob.objects.get()

    use_broker(None, eager=True)  # the broker is back; eager mode runs what is enqueued, like a worker would
    assert requeue_jobs(timedelta(0)) == [job.pk]

    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert Run.objects.filter(upload=job.upload).count() == 1
    assert requeue_jobs(timedelta(0)) == []  # nothing left for a second sweep


@pytest.mark.services
def test_with_a_real_broker_the_swept_job_is_run_by_a_worker(alice_client, private_storage, broker_down, monkeypatch):
    if not os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is not set: no real broker to come back")
    from celery.contrib.testing.worker import start_worker

    from apps.ingest.tasks import ingest_upload_task

    response = post_demo(alice_client)
    assert response.status_code == 202, response.content[:500]
    job = IngestJob.objects.get()

    use_broker(os.environ["REDIS_URL"], eager=False)
    # A queue of this test's own, so no other worker sharing the Redis instance takes the message.
    queue = f"ioboard-fault-{uuid.uuid4().hex[:12]}"
    monkeypatch.setattr(ingest_upload_task, "delay", lambda *args: ingest_upload_task.apply_async(args, queue=queue))
    with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=30, queues=[queue]):
        assert requeue_jobs(timedelta(0)) == [job.pk]

        def done():
            job.refresh_from_db()
            return job.status in (IngestJob.Status.DONE, IngestJob.Status.FAILED)

        wait_for(done, timeout=60, what="the swept job to be ingested by the worker")
    assert job.status == IngestJob.Status.DONE, job.error
    assert Run.objects.filter(upload=job.upload).count() == 1
