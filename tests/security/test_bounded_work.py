"""The work one upload can cost is bounded before it is spent (issue #22, "bounded work per upload").

An attacker with an ordinary account held the worker for 30-52 s and 1.1-1.8 GB with uploads under
a megabyte (nested YAML aliases, long runs of spaces, millions of bad lines), and the web workers
with archives expanded inside the request. Here each of those uploads is sent again: a bomb is a 400
from the request itself within 3 s, without being expanded; the rest end on a real Celery worker
(prefork, the deployment's time limits) within 10 s each, failing with a message naming the file and
line and storing nothing, the worker's memory under 600 MB, while another user's ordinary upload
still goes through within 20 s.
"""

import gzip
import io
import secrets
import sys
import tarfile
import threading
import time
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest

from apps.ingest.core.metadata import SidecarError, read_sidecar
from apps.ingest.models import IngestJob
from apps.ingest.tasks import ingest_upload_task
from apps.results.models import Run, StorageSystem, Upload
from tests.api.uploading import DEMO_SUBMISSION, client_with_token, named_file
from tests.factories import UserFactory
from tests.faults.conftest import needs_real_services, prefork_worker_argv, wait_for, worker_env

# 9 levels of 9 aliases: 9**9 (387 million) strings from about 750 bytes, the attacker's sidecar.
ALIAS_BOMB = "\n".join(
    ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    + [f"lol{level}: &lol{level} [" + ", ".join([f"*lol{level - 1}"] * 9) + "]" for level in range(1, 9)]
    + ["institution: *lol8"]
).encode()
MDTEST_HEAD = b"-- started at 11/26/2026 05:00:00 --\n\nmdtest-3.3.0 was launched with 4 total task(s) on 1 node(s)\n"
IOR_HEAD = b"IOR-3.3.0: MPI Coordinated Test of Parallel I/O\n\nBegan               : Thu Nov 26 05:00:00 2026\n"
WORKER_MEMORY_BYTES = 600 * 1024 * 1024


def tar_gz(files: dict[str, bytes], folder: Path | None = None, prefix: str = "") -> bytes:
    """A .tar.gz of ``folder``'s files (under ``prefix``) and of ``files``, which replace or add to them."""
    entries = {f"{prefix}{path.name}": path.read_bytes() for path in sorted(folder.iterdir())} if folder else {}
    entries.update(files)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in entries.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def zip_bomb() -> bytes:
    """Five entries of 16 MiB of zeros (80 MiB) in 80 KB: each compresses about 1000:1."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for index in range(5):
            archive.writestr(f"results/zeros-{index}.txt", bytes(16 * 1024 * 1024))
    return buffer.getvalue()


def tar_bomb() -> bytes:
    """A gzip'd tar whose one header declares 4 GiB, followed by a mere megabyte of zeros."""
    header = tarfile.TarInfo("results/zeros.txt")
    header.size = 4 * 1024**3
    return gzip.compress(header.tobuf() + bytes(1024 * 1024))


# --- the sidecar ---------------------------------------------------------------------------------


def test_a_sidecar_of_nested_aliases_is_refused_before_it_is_built(tmp_path):
    sidecar = tmp_path / "ioboard.yaml"
    sidecar.write_bytes(ALIAS_BOMB)

    started = time.perf_counter()
    with pytest.raises(SidecarError) as refused:
        read_sidecar(sidecar)

    assert time.perf_counter() - started < 0.5
    assert str(refused.value) == f"{sidecar}:1: YAML anchors and aliases (& and *) are not accepted in a sidecar"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("institution: ACME\nsystem:\n  - a\n  - b\n", 3, "'system' must be a single value"),
        ("institution: ACME\nlustre: [notes]\n", 2, "'lustre' must be a mapping of keys"),
        ("tunables: lctl set_param x=1\n", 1, "'tunables' must be a list"),
        (
            "striping:\n  - lfs setstripe -c 4 dir\n  - {nested: mapping}\n",
            3,
            "each item of 'striping' must be a single command line",
        ),
    ],
)
def test_a_sidecar_key_of_the_wrong_shape_is_refused_naming_file_key_and_line(tmp_path, text, line, message):
    sidecar = tmp_path / "ioboard.yaml"
    sidecar.write_text(text)

    with pytest.raises(SidecarError) as refused:
        read_sidecar(sidecar)

    assert str(refused.value) == f"{sidecar}:{line}: {message}"


def test_an_oversized_sidecar_is_refused_unread(tmp_path):
    sidecar = tmp_path / "ioboard.yml"
    sidecar.write_text("notes: |\n" + "  a long note\n" * 10_000)

    with pytest.raises(SidecarError, match=r"ioboard\.yml: 140009 bytes is over the sidecar limit of 65536 bytes"):
        read_sidecar(sidecar)


def test_a_sidecar_of_keys_and_values_still_reads(tmp_path):
    sidecar = tmp_path / "ioboard.yaml"
    sidecar.write_text(
        "institution: ACME\nclient_nodes: 10\nlustre:\n  server_version: 2.15.3\n"
        "tunables:\n  - lctl set_param osc.*.max_dirty_mb=512\n"
    )

    assert read_sidecar(sidecar) == {
        "institution": "ACME",
        "client_nodes": 10,
        "lustre": {"server_version": "2.15.3"},
        "tunables": ["lctl set_param osc.*.max_dirty_mb=512"],
    }


# --- bombs: refused by the request itself --------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "build", "problem"),
    [
        ("bomb.zip", zip_bomb, "'results/zeros-0.txt': compression ratio of 1"),
        ("bomb.tgz", tar_bomb, "'results/zeros.txt': declared size of 4294967296 bytes exceeds the per-file limit"),
    ],
)
def test_an_archive_bomb_is_a_400_from_the_request_within_3_seconds_and_nothing_is_written(
    name, build, problem, settings, tmp_path, monkeypatch
):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(scratch))
    client = client_with_token(UserFactory(username="mallory"))
    data = build()
    client.get("/api/v1/uploads/")  # a served worker has its views imported (config/wsgi.py); so has this one now

    started = time.perf_counter()
    response = client.post("/api/v1/uploads/", {"file": named_file(data, name)}, format="multipart")
    elapsed = time.perf_counter() - started

    assert response.status_code == 400, response.content[:300]
    assert problem in str(response.json())
    assert elapsed < 3
    assert Upload.objects.count() == IngestJob.objects.count() == 0
    assert not list(scratch.iterdir())  # the request kept nothing, and wrote no expanded byte
    assert not (tmp_path / "media").exists() or not any((tmp_path / "media").rglob("*.*"))


# --- the rest: on a real worker ------------------------------------------------------------------


def process_tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and each of its children, the largest of them (each must stay under the cap)."""
    largest = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(child) for child in children.read_text().split()]
    for each in pids:
        try:
            status = Path(f"/proc/{each}/status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                largest = max(largest, int(line.split()[1]) * 1024)
    return largest


class PeakMemory(threading.Thread):
    """Samples the worker's processes every 50 ms; ``peak`` is the largest resident size seen."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.running = pid, 0, True

    def run(self):
        while self.running:
            self.peak = max(self.peak, process_tree_rss(self.pid))
            time.sleep(0.05)


def hostile_uploads() -> list[tuple[str, str, bytes, str]]:
    """(name, kind, bytes, what the job's error must say) for each hostile upload the request lets through."""
    random_bad_rows = b"".join(b"   File creation : " + secrets.token_hex(8).encode() + b"\n" for _ in range(400_000))
    return [
        (
            "alias-bomb.tgz",
            "io500",
            tar_gz({"ioboard.yaml": ALIAS_BOMB}, DEMO_SUBMISSION),
            "ioboard.yaml:1: YAML anchors and aliases (& and *) are not accepted in a sidecar",
        ),
        (
            "spaces.log",
            "mdtest",
            MDTEST_HEAD + b"-- finished at " + b" " * 1_000_000 + b"x --\n",
            "spaces.log:4: line of 1000019 characters is over the limit of 262144 characters",
        ),
        (
            "spaces-ior.log",
            "ior",
            IOR_HEAD + b"Test 0 started: " + b" " * 1_000_000 + b"x\n",
            "spaces-ior.log:4: line of 1000017 characters is over the limit of 262144 characters",
        ),
        (
            "spaces-under-cap.log",
            "mdtest",
            MDTEST_HEAD
            + b"".join(
                b"Command line used: mdtest" + b" " * 200_000 + b"-n 1 " + bytes([65 + n]) + b"\n" for n in range(20)
            ),
            "spaces-under-cap.log:",
        ),
        (
            "million-rows.log",
            "mdtest",
            MDTEST_HEAD + b"SUMMARY rate: (of 1 iterations)\n" + random_bad_rows,
            "million-rows.log:5: ",
        ),
        (
            "many-runs.tgz",
            "io500",
            tar_gz(
                {
                    f"site-{n}/{path.name}": path.read_bytes()
                    for n in range(4)
                    for path in sorted(DEMO_SUBMISSION.iterdir())
                }
            ),
            "many-runs.tgz: holds 4 IO500 result directories, over the limit of 3 runs per upload",
        ),
    ]


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_hostile_uploads_end_within_10_s_each_on_a_real_worker_while_an_ordinary_one_goes_through(
    settings, tmp_path, fault_queue, workers
):
    needs_real_services()
    settings.MEDIA_ROOT = str(tmp_path / "media")
    mallory = client_with_token(UserFactory(username="mallory"))
    alice = client_with_token(UserFactory(username="alice"))
    env = worker_env(tmp_path / "media", IOBOARD_UPLOAD_MAX_RUNS="3")
    worker = workers.start(prefork_worker_argv(fault_queue), env, tmp_path / "worker.log")
    wait_for(lambda: "ready" in worker.output(), timeout=60, what="the worker to start", worker=worker)
    memory = PeakMemory(worker.process.pid)
    memory.start()

    hostile = []
    for name, kind, data, message in hostile_uploads():
        response = mallory.post("/api/v1/uploads/", {"file": named_file(data, name), "kind": kind}, format="multipart")
        assert response.status_code in (201, 202), (name, response.content[:300])
        job = IngestJob.objects.get(upload__original_name=name)
        ingest_upload_task.apply_async((job.pk,), queue=fault_queue)
        hostile.append((job, message, time.monotonic()))
    response = alice.post(
        "/api/v1/uploads/", {"file": named_file(tar_gz({}, DEMO_SUBMISSION), "demo.tgz")}, format="multipart"
    )
    ordinary = IngestJob.objects.get(upload__original_name="demo.tgz")
    ingest_upload_task.apply_async((ordinary.pk,), queue=fault_queue)
    ordinary_sent = time.monotonic()

    def finished(job):
        job.refresh_from_db()
        return job.status in (IngestJob.Status.DONE, IngestJob.Status.FAILED)

    wait_for(lambda: finished(ordinary), timeout=20, what="the ordinary upload to be ingested", worker=worker)
    assert ordinary.status == IngestJob.Status.DONE, ordinary.error
    assert time.monotonic() - ordinary_sent < 20
    memory.running = False
    memory.join()

    for job, message, _ in hostile:
        job.refresh_from_db()
        assert job.status == IngestJob.Status.FAILED, (job.upload.original_name, job.status, worker.output())
        assert message in job.error, job.error[:500]
        assert job.finished_at - job.started_at < timedelta(seconds=10), job.upload.original_name
        assert not job.runs.exists()
    assert Run.objects.count() == 1
    assert Run.objects.get().upload.original_name == "demo.tgz"
    assert StorageSystem.objects.count() == 1
    assert 0 < memory.peak < WORKER_MEMORY_BYTES, f"worker peak RSS {memory.peak / 2**20:.0f} MiB"
    print(
        f"worker peak RSS {memory.peak / 2**20:.0f} MiB; hostile jobs took "
        + ", ".join(
            f"{job.upload.original_name} {(job.finished_at - job.started_at).total_seconds():.2f} s"
            for job, _, _ in hostile
        ),
        file=sys.stderr,
    )


def test_the_ingest_limits_end_a_task_within_10_s_and_keep_a_worker_under_600_mb(settings):
    assert settings.IOBOARD_INGEST_SOFT_TIME_LIMIT < settings.IOBOARD_INGEST_TIME_LIMIT <= 10
    assert settings.CELERY_WORKER_MAX_MEMORY_PER_CHILD * 1024 < WORKER_MEMORY_BYTES
    assert ingest_upload_task.time_limit == settings.IOBOARD_INGEST_TIME_LIMIT
