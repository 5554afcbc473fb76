"""Redis refused or silent: pages serve, uploads are answered 202 within 5 s and ingested once Redis is back,
custom lists save and read.

Two faults, each with real sockets: *refused* is a loopback port nothing listens on; *silent* is a local
TCP server on an ephemeral port that accepts every connection and never answers (a Redis hung, or a
half-open connection through a firewall), the fault that hangs a client without socket timeouts. Cache
and broker are both pointed at the fault, as they share one Redis in production.
"""

import hashlib
import shutil
import socket
import sys
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest

from apps.ingest.models import IngestJob
from apps.ingest.tasks import requeue_jobs
from apps.results.models import CustomList, Run, Upload
from apps.results.services import freshness
from rig import processes, servers
from tests.factories import RunFactory
from tests.faults.conftest import needs_real_services, prefork_worker_argv, wait_for, worker_env
from tests.faults.test_broker_down import closed_loopback_port, post_demo, use_broker

pytestmark = pytest.mark.django_db(transaction=True)

#: What a client may wait for an answer while Redis is away.
ANSWER_SECONDS = 5
#: From Redis back to the upload's runs stored: a prefork worker starting (~10 s on a loaded 2-CPU machine), its
#: worker_ready sweep enqueueing the job, and one ingest.
INGESTED_SECONDS = 90


@contextmanager
def silent_server():
    """A TCP server that accepts connections and never sends a byte; yields its port."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(128)
    server.settimeout(0.1)
    held, stop = [], threading.Event()

    def accept_and_hold():
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept_and_hold, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        server.close()


@contextmanager
def redis_at(url: str, settings):
    """Cache and broker of this process on ``url``, with the production socket timeouts; restored after."""
    from config.celery import app as celery_app

    cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "socket_connect_timeout": settings.IOBOARD_CACHE_SOCKET_TIMEOUT,
            "socket_timeout": settings.IOBOARD_CACHE_SOCKET_TIMEOUT,
        },
    }
    settings.CACHES = {"default": cache, "pages": cache}
    previous = celery_app.conf.broker_url, celery_app.conf.task_always_eager
    previous_options = dict(celery_app.conf.broker_transport_options or {})
    celery_app.conf.broker_transport_options = {
        **previous_options,
        "socket_timeout": settings.IOBOARD_BROKER_SOCKET_TIMEOUT,
        "socket_connect_timeout": settings.IOBOARD_BROKER_SOCKET_TIMEOUT,
    }
    use_broker(url, eager=False)
    freshness.forget_shared_cache_failure()
    try:
        yield
    finally:
        celery_app.conf.broker_transport_options = previous_options
        use_broker(previous[0], eager=previous[1])


@pytest.fixture(params=["refused", "silent"])
def redis_away(request, settings):
    """Cache and broker on a Redis that refuses, or that accepts and never answers (with the production timeouts)."""
    with silent_server() as silent_port:
        port = closed_loopback_port() if request.param == "refused" else silent_port
        with redis_at(f"redis://127.0.0.1:{port}/0", settings):
            yield request.param


def timed(call):
    started = time.monotonic()
    response = call()
    return response, time.monotonic() - started


def test_an_upload_is_answered_202_within_5_s_and_ingested_once_redis_is_back(
    alice_client, private_storage, redis_away
):
    response, seconds = timed(lambda: post_demo(alice_client))

    assert response.status_code == 202, response.content[:500]
    assert seconds < ANSWER_SECONDS, f"{redis_away}: answered after {seconds:.1f} s"
    job = IngestJob.objects.get()
    assert job.status == IngestJob.Status.PENDING
    assert hashlib.sha256(Upload.objects.get().file.open("rb").read()).hexdigest() == Upload.objects.get().sha256

    use_broker(None, eager=True)  # Redis is back: the sweep (worker start, periodic) enqueues the job
    assert requeue_jobs(timedelta(0)) == [job.pk]
    job.refresh_from_db()
    assert job.status == IngestJob.Status.DONE, job.error
    assert Run.objects.filter(upload=job.upload).count() == 1


def test_pages_serve_without_the_page_cache(client, settings, redis_away):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 600  # the page cache is on, as in production with Redis
    RunFactory()
    for path in ("/", "/api/v1/lists/full/", "/api/v1/runs/"):
        for _ in range(3):
            response, seconds = timed(lambda path=path: client.get(path))
            assert response.status_code == 200, (path, response.status_code)
            assert seconds < ANSWER_SECONDS, f"{redis_away}: {path} answered after {seconds:.1f} s"


def test_a_custom_list_saves_and_reads_as_being_ranked(alice_client, client, redis_away):
    RunFactory()
    response, seconds = timed(lambda: alice_client.post("/api/v1/custom-lists/", {"equation": "score"}, format="json"))
    assert response.status_code == 201, response.content[:500]
    assert seconds < ANSWER_SECONDS
    token = response.json()["token"]
    assert CustomList.objects.filter(token=token).exists()

    for _ in range(2):
        answer, seconds = timed(lambda: client.get(f"/api/v1/custom-lists/{token}/"))
        assert answer.status_code == 200, answer.content[:500]
        assert (answer.json()["complete"], answer.json()["members"]) == (False, 1)
        assert seconds < ANSWER_SECONDS
    page = client.get(f"/lists/custom/{token}/")
    assert page.status_code == 200
    assert "Being ranked" in page.content.decode()


@contextmanager
def stopped_redis(port: int, log_dir):
    """A private redis-server started on ``port`` and stopped again: what a client meets when Redis went down."""
    servers.private_redis(port, log_dir=log_dir).stop()
    yield


@pytest.mark.services
@pytest.mark.parametrize("fault", ["stopped", "silent"])
def test_an_upload_kept_while_redis_is_away_is_ingested_once_by_a_real_worker_when_it_is_back(
    alice_client, private_storage, settings, workers, fault
):
    needs_real_services()
    if not shutil.which("redis-server"):
        pytest.skip("no redis-server binary to start a private Redis that can be stopped")
    logs = private_storage / "logs"
    logs.mkdir()
    port = processes.free_port()
    away = stopped_redis(port, logs) if fault == "stopped" else silent_server()
    with away as silent_port:
        port = silent_port or port
        url = f"redis://127.0.0.1:{port}/0"
        with redis_at(url, settings):
            response, seconds = timed(lambda: post_demo(alice_client))
    assert response.status_code == 202, response.content[:500]
    assert seconds < ANSWER_SECONDS, f"{fault}: answered after {seconds:.1f} s"
    job = IngestJob.objects.get()
    assert job.status == IngestJob.Status.PENDING

    redis = servers.private_redis(port, log_dir=logs)  # Redis is back, on the address the site was given
    worker = None
    try:
        back = time.monotonic()
        worker = workers.start(
            prefork_worker_argv("celery"),
            worker_env(private_storage / "media", REDIS_URL=url),
            private_storage / "worker.log",
        )

        def finished():
            job.refresh_from_db()
            return job.status in (IngestJob.Status.DONE, IngestJob.Status.FAILED)

        wait_for(finished, timeout=INGESTED_SECONDS, what="the kept upload to be ingested", worker=worker)
        ingested = time.monotonic() - back
    finally:
        if worker:
            worker.stop()
        redis.stop()
    assert job.status == IngestJob.Status.DONE, job.error
    assert Run.objects.count() == 1
    assert list(job.runs.all()) == list(Run.objects.filter(upload=job.upload))
    print(f"{fault}: answered in {seconds:.2f} s; ingested {ingested:.1f} s after Redis was back", file=sys.stderr)
