"""Fault scenarios on real processes: a worker killed or its scratch disk full, PostgreSQL restarted, Redis stopped or
flushed, a web host killed mid-upload.

    .venv/bin/python -m bench fault_scenarios [--scenario all|worker|postgres|redis|flush|scratch|web] [--corpus DIR]

Everything runs on 127.0.0.1 in processes this script starts and stops by pid: a private
redis-server, a private PostgreSQL instance (initdb in a temporary directory, so restarting it
disturbs nobody else's database), gunicorn and ``celery -A config worker`` processes.

worker    An upload of the whole corpus as one archive (139 runs, one transaction, several seconds of
          ingest) is taken by a worker; when its job is ``processing``:
          (a) the pool process running the task gets SIGKILL: Celery sees the worker process lost,
              rejects the message back to the queue (acks_late + reject_on_worker_lost) and a fresh
              pool process runs it again;
          (b) the whole worker (main process and pool) gets SIGKILL; a new worker is started once the
              Redis visibility timeout (CELERY_VISIBILITY_TIMEOUT, 10 s here) has passed, and the
              unacknowledged message is redelivered to it.
          Pass: the job ends done and every run of the archive exists exactly once.
postgres  Four client threads request /healthz, the API and the list page without pause while an
          upload is being ingested; PostgreSQL is stopped (fast shutdown) for a few seconds and started
          again. Pass: during the outage every answer is a clean 5xx (503 from /healthz) within a few
          seconds, never a hang or a dropped connection; after the restart everything answers 200 again
          without restarting gunicorn or the worker (same pids); the upload ends done, its runs once.
redis     Redis is stopped; five distinct uploads are sent. Pass: each is answered 202 and kept (file
          stored, job pending); Redis is started again and, after the sweep (`manage.py requeue_uploads
          --older-than 0`, what the periodic task does), every job ends done with its runs exactly once.

flush     Five distinct uploads accepted while no worker runs; FLUSHALL on the private Redis loses their
          messages. Pass: the sweep (`manage.py requeue_uploads --older-than 0`) enqueues them again and each
          ends done with its runs exactly once (the started worker's own start-up sweep duplicates are dropped).
scratch   A worker whose TMPDIR is a 1 MiB tmpfs filled to the last byte (root only). Pass: the upload is tried,
          given back (pending, no error), the web answers meanwhile; once the filler is removed it ends done,
          its runs once, no extraction directory left.
web       A 4 MiB upload sent slowly; gunicorn killed (SIGKILL, master and workers) halfway through its body.
          Pass: the client gets an error; no upload, stored file or job of it remains; sent again to a new
          gunicorn it is accepted (202) and done, its runs once; sent once more, answered with that upload.

Each scenario prints a table and PASS or FAIL; the exit status is 1 when any scenario fails. These are
checks of behaviour under faults, not speed figures, so docs/performance.md does not carry them.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench.harness import in_process, ingestion, output, statistics
from rig import REPO_ROOT, client, databases, filesystems, processes, servers

VISIBILITY_TIMEOUT = 10


class Stack:
    """Private Redis + private PostgreSQL + gunicorn + workers, torn down in reverse order."""

    def __init__(self, scratch: Path, *, gunicorn_workers: int = 4):
        self.scratch, self.logs, self.media = scratch, scratch / "logs", scratch / "media"
        self.logs.mkdir()
        self.media.mkdir()
        self.services: list[processes.Service] = []
        self.pg = None
        try:
            self._start(gunicorn_workers)
        except BaseException:
            self.close()
            raise

    def _start(self, gunicorn_workers: int) -> None:
        scratch = self.scratch
        self.redis_port = processes.free_port()
        self.redis = self.add(servers.private_redis(self.redis_port, log_dir=self.logs))
        self.pg = databases.PrivatePostgres()
        self.database_url = databases.fresh_database("ioboard_faults", port=self.pg.port)
        self.redis_url = f"redis://127.0.0.1:{self.redis_port}/0"
        self.env = {
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "MEDIA_ROOT": str(self.media),
            "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            "THROTTLE_UPLOADS": "100000/hour",
            "THROTTLE_USER": "1000000/min",
            "THROTTLE_ANON": "1000000/min",
            "DB_CONN_MAX_AGE": "60",
            "STATIC_ROOT": str(scratch / "static"),
        }
        processes.manage(["collectstatic", "--noinput", "-v", "0"], env=self.env, timeout=900)
        in_process.django_setup(self.database_url)
        self.token = databases.create_token_user("faults")
        from django.db import connections

        connections.close_all()
        self.port = processes.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.web = self.add(
            servers.gunicorn(self.port, env=self.env, log_dir=self.logs, workers=gunicorn_workers, timeout=120)
        )
        servers.wait_until_serving(self.base)

    def add(self, service: processes.Service) -> processes.Service:
        self.services.append(service)
        return service

    def worker(self, name: str) -> processes.Service:
        worker = self.add(servers.celery_worker(name, env=self.env, log_dir=self.logs))
        servers.wait_until_workers_ready([worker])
        return worker

    def get(self, path: str, timeout: float = 30) -> tuple[int, bytes, float]:
        return client.http(
            "GET",
            self.base + path,
            timeout=timeout,
            headers={"Authorization": f"Token {self.token}", "Accept": "application/json"},
        )

    def upload(self, archive: Path) -> tuple[int, dict, float]:
        body, content_type = client.multipart({"kind": "io500"}, "file", archive.name, archive.read_bytes())
        status, answer, seconds = client.http(
            "POST",
            f"{self.base}/api/v1/uploads/",
            data=body,
            timeout=120,
            headers={
                "Authorization": f"Token {self.token}",
                "Content-Type": content_type,
                "Accept": "application/json",
            },
        )
        try:
            parsed = json.loads(answer or b"{}")
        except ValueError:
            parsed = {"raw": answer[:200].decode(errors="replace")}
        return status, parsed, seconds

    def job_status(self, upload_id: int) -> dict:
        status, body, _ = self.get(f"/api/v1/uploads/{upload_id}/", timeout=10)
        return json.loads(body) if status == 200 else {"status": f"http {status}"}

    def wait_for_job(self, upload_id: int, states: tuple[str, ...], timeout: float) -> dict:
        return processes.wait_until(
            lambda: (s := self.job_status(upload_id)).get("status") in states and s,
            timeout=timeout,
            interval=0.2,
            what=f"upload {upload_id} to be {'/'.join(states)}",
        )

    def close(self) -> None:
        from django.db import connections

        connections.close_all()
        for service in reversed(self.services):
            service.stop()
        if self.pg is not None:
            self.pg.destroy()

    def dump_logs(self) -> None:
        for service in self.services:
            print(f"--- {service.name} (last lines)\n{service.tail(25)}")


def corpus_archive(corpus: Path, destination: Path, *, prefix: str = "") -> Path:
    """The whole corpus as one .tar.gz (optionally under a top folder, which makes distinct runs)."""
    with tarfile.open(destination, "w:gz") as archive:
        for child in sorted(corpus.iterdir()):
            archive.add(child, arcname=str(Path(prefix) / child.name) if prefix else child.name)
    return destination


def submission_archives(corpus: Path, count: int, scratch: Path) -> list[Path]:
    folders = sorted(p for p in corpus.rglob("submission-*") if p.is_dir())
    chosen = folders[:: max(1, len(folders) // count)][:count]
    archives = []
    for folder in chosen:
        path = scratch / f"{folder.name}.tar.gz"
        with tarfile.open(path, "w:gz") as archive:
            archive.add(folder, arcname=str(folder.relative_to(corpus)))
        archives.append(path)
    return archives


def expected_identities(archive: Path) -> set[str]:
    identities, failures = ingestion.expected_run_identities(archive)
    if failures:
        raise RuntimeError(f"{archive.name} does not parse cleanly: {failures[:3]}")
    return identities


def runs_check(upload_id: int, expected: set[str]) -> tuple[bool, str]:
    from django.db import connections
    from django.db.models import Count

    from apps.ingest.models import IngestJob
    from apps.results.models import Run

    connections.close_all()
    stored = list(Run.objects.filter(upload_id=upload_id).values_list("identity", flat=True))
    doubles = Run.objects.values("content_hash", "source_path").annotate(n=Count("pk")).filter(n__gt=1).count()
    jobs = list(IngestJob.objects.filter(upload_id=upload_id).values_list("status", "attempts"))
    ok = set(stored) == expected and len(stored) == len(expected) and doubles == 0
    return ok, (
        f"{len(stored)} runs stored for {len(expected)} expected, {doubles} stored twice; "
        f"jobs (status, attempts): {jobs}"
    )


# ---------------------------------------------------------------- scenario: worker killed


def scenario_worker(corpus: Path, scratch: Path) -> tuple[bool, str]:
    stack = Stack(scratch)
    rows, ok_all = [], True
    try:
        for variant, prefix in (("pool process killed", ""), ("whole worker killed", "copy-b")):
            archive = corpus_archive(corpus, scratch / f"corpus-{prefix or 'a'}.tar.gz", prefix=prefix)
            expected = expected_identities(archive)
            worker = stack.worker(f"victim-{prefix or 'a'}")
            status, answer, _ = stack.upload(archive)
            if status != 202:
                raise RuntimeError(f"upload answered {status}: {answer}")
            upload_id = answer["id"]
            stack.wait_for_job(upload_id, ("processing",), timeout=120)
            time.sleep(2)  # well inside the ingest's transaction
            killed_at = time.perf_counter()
            if variant == "pool process killed":
                pool = processes.children_of(worker.pid)
                if not pool:
                    raise RuntimeError("the worker has no pool process to kill")
                for pid in pool:
                    os.kill(pid, signal.SIGKILL)
                how = f"SIGKILL to pool process {pool}; the worker main process {worker.pid} lives on"
                survivor = worker
            else:
                worker.kill9()
                how = f"SIGKILL to the whole worker (process group {worker.pid}); a new worker started"
                time.sleep(VISIBILITY_TIMEOUT + 1)
                survivor = stack.worker("survivor")
            final = stack.wait_for_job(upload_id, ("done", "failed"), timeout=600)
            recovered = time.perf_counter() - killed_at
            ok, detail = runs_check(upload_id, expected)
            ok = ok and final["status"] == "done"
            ok_all &= ok
            rows.append(
                [variant, how, final["status"], f"{recovered:.1f}", len(expected), detail, "pass" if ok else "FAIL"]
            )
            survivor.stop()
    except Exception:
        stack.dump_logs()
        raise
    finally:
        stack.close()
    text = output.table(
        ["variant", "fault", "job", "kill to done s", "runs expected", "database check", "result"], rows
    )
    body = (
        f"Upload of the whole corpus as one archive (one transaction of {rows[0][4]} runs), killed while its job "
        f"was `processing`, 2 s into the ingest. Visibility timeout {VISIBILITY_TIMEOUT} s (production default "
        "900 s: after a whole-worker crash the message comes back after that long, or the "
        "`requeue_stuck_uploads` sweep requeues it).\n\n" + text
    )
    return ok_all, body


# ---------------------------------------------------------------- scenario: PostgreSQL restarted


class Load:
    """Client threads requesting URLs without pause until stopped (bounded by count and by time)."""

    def __init__(
        self, stack: Stack, paths: list[str], threads: int = 4, max_seconds: float = 120, max_requests: int = 50_000
    ):
        self.stack, self.paths = stack, paths
        self.samples: list[tuple[float, str, int, float]] = []
        self.stop_event = threading.Event()
        self.started = time.perf_counter()
        self.deadline, self.max_requests = self.started + max_seconds, max_requests
        self.threads = [threading.Thread(target=self.loop, args=(n,), daemon=True) for n in range(threads)]
        for thread in self.threads:
            thread.start()

    def loop(self, offset: int) -> None:
        n = offset
        while (
            not self.stop_event.is_set()
            and time.perf_counter() < self.deadline
            and len(self.samples) < self.max_requests
        ):
            path = self.paths[n % len(self.paths)]
            n += 1
            sent = time.perf_counter()
            status, _, seconds = client.http(
                "GET", self.stack.base + path, timeout=30, headers={"Accept": "application/json"}
            )
            self.samples.append((sent - self.started, path, status, seconds))

    def stop(self) -> None:
        self.stop_event.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def at(self, start: float, end: float) -> list[tuple[float, str, int, float]]:
        return [s for s in self.samples if start <= s[0] < end]


def scenario_postgres(corpus: Path, scratch: Path, outage: float = 5.0) -> tuple[bool, str]:
    stack = Stack(scratch)
    try:
        processes.manage(["seed_synthetic", "--runs", "2000"], env={"DATABASE_URL": stack.database_url})
        worker = stack.worker("pg-worker")
        web_pids = sorted([stack.web.pid, *processes.children_of(stack.web.pid)])
        worker_pids = sorted([worker.pid, *processes.children_of(worker.pid)])
        archive = corpus_archive(corpus, scratch / "corpus.tar.gz")
        expected = expected_identities(archive)
        paths = ["/healthz", "/api/v1/runs/", "/api/v1/lists/io500/", "/lists/io500/"]
        load = Load(stack, paths)
        time.sleep(3)
        status, answer, _ = stack.upload(archive)
        if status != 202:
            raise RuntimeError(f"upload answered {status}: {answer}")
        upload_id = answer["id"]
        stack.wait_for_job(upload_id, ("processing",), timeout=120)
        time.sleep(1)
        down_at = time.perf_counter() - load.started
        stack.pg.stop("fast")
        stopped_at = time.perf_counter() - load.started
        time.sleep(outage)
        during_upload = stack.upload(submission_archives(corpus, 1, scratch)[0])
        start_called = time.perf_counter() - load.started
        stack.pg.start()
        up_at = time.perf_counter() - load.started
        time.sleep(15)
        load.stop()
        final = stack.wait_for_job(upload_id, ("done", "failed"), timeout=600)
        ok_runs, detail = runs_check(upload_id, expected)
        web_pids_after = sorted([stack.web.pid, *processes.children_of(stack.web.pid)])
        worker_pids_after = sorted([worker.pid, *processes.children_of(worker.pid)])
    except Exception:
        stack.dump_logs()
        raise
    finally:
        stack.close()

    # Answered before the stop began (requests still in flight when it began may fail, as they should).
    before = [s for s in load.at(0, down_at) if s[0] + s[3] < down_at]
    # Sent and answered while the server was down (from the stop's end to the start command).
    outage_samples = [s for s in load.at(stopped_at, start_called) if s[0] + s[3] < start_called]
    after = load.at(up_at, float("inf"))
    first_ok = {}
    for t, path, code, _ in after:
        if code == 200 and path not in first_ok:
            first_ok[path] = t - up_at
    recovered_in = max(first_ok.values()) if len(first_ok) == len(paths) else float("nan")
    settled = [s for s in after if s[0] >= up_at + (recovered_in if recovered_in == recovered_in else 0)]
    codes_outage = Counter(code for _, _, code, _ in outage_samples)
    # A clean failure is a 5xx; a 200 while the database is down can only come from the cache.
    clean = all(code >= 500 or code == 200 for _, _, code, _ in outage_samples) and all(
        code == 503 for _, path, code, _ in outage_samples if path == "/healthz"
    )
    before_ok = all(code == 200 for _, _, code, _ in before)
    no_drop = all(code != 0 for _, _, code, _ in load.samples)
    max_outage_latency = max((s[3] for s in outage_samples), default=float("nan"))
    settled_ok = all(code == 200 for _, _, code, _ in settled)
    same_processes = web_pids == web_pids_after and worker_pids == worker_pids_after
    # recovered_in is NaN (every comparison False) when some URL never answered 200 again.
    ok = (
        before_ok
        and clean
        and no_drop
        and max_outage_latency < 5
        and recovered_in < 10
        and settled_ok
        and same_processes
        and final["status"] == "done"
        and ok_runs
    )
    rows = [
        ["requests answered before the stop", f"{len(before)}: " + fmt_codes(before)],
        ["requests while PostgreSQL was down", f"{len(outage_samples)}: " + fmt_codes(outage_samples)],
        *[[f"`{path}` while down", fmt_codes([s for s in outage_samples if s[1] == path])] for path in paths],
        [
            "every answer while down a clean 5xx (or 200 from cache); /healthz 503",
            "yes" if clean else f"no ({dict(codes_outage)})",
        ],
        ["dropped connections / hangs (status 0) over the whole run", sum(1 for s in load.samples if s[2] == 0)],
        ["slowest answer while down s", f"{max_outage_latency:.3f}"],
        ["median answer while down s", f"{statistics.median([s[3] for s in outage_samples]):.3f}"],
        ["upload sent while down", f"{during_upload[0]} in {during_upload[2]:.2f} s"],
        ["all URLs answering 200 again after restart s", f"{recovered_in:.2f}"],
        ["requests after recovery", f"{len(settled)}: " + fmt_codes(settled)],
        ["gunicorn and worker pids unchanged (no restart)", "yes" if same_processes else "NO"],
        ["upload being ingested across the outage", f"{final['status']}; {detail}"],
    ]
    return figures(
        ok,
        f"4 client threads without pause on {', '.join(f'`{p}`' for p in paths)} against gunicorn (4 sync workers, "
        f"DB_CONN_MAX_AGE=60 with health checks), 2,000 seeded runs; a private PostgreSQL instance stopped "
        f"(`pg_ctl stop -m fast`) {down_at:.1f} s in, down for {start_called - stopped_at:.1f} s, then started "
        f"(`pg_ctl start -w`, {up_at - start_called:.1f} s); meanwhile a worker was "
        "ingesting a whole-corpus upload.",
        rows,
    )


def figures(ok: bool, what_was_done: str, rows: list[list]) -> tuple[bool, str]:
    """A scenario's outcome as `main` prints it: the verdict, and what was done above the figures, the verdict last."""
    return ok, what_was_done + "\n\n" + output.table(["figure", "value"], [*rows, ["result", "pass" if ok else "FAIL"]])


def fmt_codes(samples) -> str:
    return ", ".join(f"{code}: {n}" for code, n in sorted(Counter(s[2] for s in samples).items()))


# ---------------------------------------------------------------- scenario: Redis stopped


def scenario_redis(corpus: Path, scratch: Path, count: int = 5) -> tuple[bool, str]:
    stack = Stack(scratch)
    rows, ok = [], True
    try:
        archives = submission_archives(corpus, count, scratch)
        expected = {a.name: expected_identities(a) for a in archives}
        worker = stack.worker("redis-worker")
        stack.redis.stop()
        processes.wait_until(lambda: not servers.redis_ping(stack.redis_port), timeout=10, what="redis to stop")
        health = stack.get("/healthz", timeout=30)
        reads = stack.get("/api/v1/runs/", timeout=30)
        answers = [stack.upload(a) for a in archives]
        from django.db import connections

        from apps.ingest.models import IngestJob
        from apps.results.models import Upload

        connections.close_all()
        kept = Upload.objects.count()
        pending = IngestJob.objects.filter(status="pending").count()
        files = sum(1 for u in Upload.objects.all() if u.file.storage.exists(u.file.name))
        stack.redis = stack.add(servers.private_redis(stack.redis_port, log_dir=stack.logs))
        time.sleep(10)
        processed_without_sweep = IngestJob.objects.filter(status="done").count()
        swept = processes.manage(["requeue_uploads", "--older-than", "0"], env=stack.env).strip()
        by_sha = {hashlib.sha256(a.read_bytes()).hexdigest(): a for a in archives}
        stored = list(Upload.objects.values_list("pk", "sha256"))
        finals = {pk: stack.wait_for_job(pk, ("done", "failed"), timeout=300)["status"] for pk, _ in stored}
        checks = [runs_check(pk, expected[by_sha[sha].name])[0] for pk, sha in stored]
        alive = worker.alive()
        codes = Counter(a[0] for a in answers)
        ok = (
            codes == Counter({202: len(archives)})
            and kept == len(archives)
            and pending == len(archives)
            and files == len(archives)
            and all(s == "done" for s in finals.values())
            and all(checks)
            and alive
        )
        rows = [
            ["/healthz with Redis down", f"{health[0]} in {health[2]:.2f} s"],
            ["GET /api/v1/runs/ with Redis down", f"{reads[0]} in {reads[2]:.2f} s"],
            [
                f"{len(archives)} uploads with Redis down",
                ", ".join(f"{c}: {n}" for c, n in sorted(codes.items()))
                + f"; {statistics.median([a[2] for a in answers]):.2f} s median",
            ],
            ["kept: uploads / jobs pending / stored files", f"{kept} / {pending} / {files}"],
            ["done 10 s after Redis returned, before any sweep", processed_without_sweep],
            ["sweep (`manage.py requeue_uploads --older-than 0`)", swept],
            ["final job states", ", ".join(f"{s}: {n}" for s, n in sorted(Counter(finals.values()).items()))],
            ["every run exactly once", "yes" if all(checks) and checks else "NO"],
            ["worker survived the outage (reconnected)", "yes" if alive else "NO"],
        ]
        if codes.get(202, 0) != len(archives):
            rows.insert(
                3, ["first refused answer", next((f"{a[0]} {str(a[1])[:160]}" for a in answers if a[0] != 202), "")]
            )
    except Exception:
        stack.dump_logs()
        raise
    finally:
        stack.close()
    return figures(
        ok,
        f"A private redis-server (broker and cache) stopped with a worker running; {count} distinct corpus "
        "submissions uploaded while it was down; Redis started again on the same port.",
        rows,
    )


# ---------------------------------------------------------------- scenario: Redis flushed


def scenario_flush(corpus: Path, scratch: Path, count: int = 5) -> tuple[bool, str]:
    stack = Stack(scratch)
    try:
        archives = submission_archives(corpus, count, scratch)
        expected = {a.name: expected_identities(a) for a in archives}
        answers = [stack.upload(a) for a in archives]
        queued = servers.redis_cli(stack.redis_port, "LLEN", "celery")
        flushed = servers.redis_cli(stack.redis_port, "FLUSHALL")
        after_flush = servers.redis_cli(stack.redis_port, "LLEN", "celery")
        swept = processes.manage(["requeue_uploads", "--older-than", "0"], env=stack.env).strip()
        after_sweep = servers.redis_cli(stack.redis_port, "LLEN", "celery")
        stack.worker("after-flush")
        ids = {answer["id"]: archive.name for archive, (_, answer, _) in zip(archives, answers, strict=True)}
        finals = {pk: stack.wait_for_job(pk, ("done", "failed"), timeout=300) for pk in ids}
        checks = {pk: runs_check(pk, expected[name]) for pk, name in ids.items()}
    except Exception:
        stack.dump_logs()
        raise
    finally:
        stack.close()
    codes = Counter(status for status, _, _ in answers)
    ok = (
        codes == Counter({202: count})
        and after_flush == "0"
        and after_sweep == str(count)
        and all(f["status"] == "done" for f in finals.values())
        and all(check for check, _ in checks.values())
    )
    rows = [
        [f"{count} uploads, no worker running", ", ".join(f"{c}: {n}" for c, n in sorted(codes.items()))],
        ["messages queued / after FLUSHALL / after the sweep", f"{queued} / {after_flush} ({flushed}) / {after_sweep}"],
        ["sweep (`manage.py requeue_uploads --older-than 0`)", swept],
        ["final job states (attempts)", ", ".join(f"{f['status']} ({f['attempts']})" for f in finals.values())],
        ["database check", "; ".join(detail for _, detail in checks.values())],
    ]
    return figures(
        ok,
        f"{count} distinct corpus submissions accepted while no worker ran; FLUSHALL on the private Redis lost their "
        "messages; the sweep enqueued them again, then a worker started (its start-up sweep enqueues them once "
        "more: the claim drops the duplicates).",
        rows,
    )


# ---------------------------------------------------------------- scenario: a worker's scratch disk full


def scenario_scratch(corpus: Path, scratch: Path) -> tuple[bool, str]:
    stack = Stack(scratch)
    try:
        with filesystems.tiny_filesystem(scratch / "worker-tmp") as tmp:
            worker = stack.add(
                servers.celery_worker("scratch-worker", env={**stack.env, "TMPDIR": str(tmp)}, log_dir=stack.logs)
            )
            servers.wait_until_workers_ready([worker])
            filler = filesystems.fill(tmp)
            archive = submission_archives(corpus, 1, scratch)[0]
            expected = expected_identities(archive)
            status, answer, _ = stack.upload(archive)
            if status != 202:
                raise RuntimeError(f"upload answered {status}: {answer}")
            upload_id = answer["id"]
            waiting = processes.wait_until(
                lambda: (s := stack.job_status(upload_id))["status"] == "pending" and s["attempts"] >= 1 and s,
                timeout=60,
                what="a try that met the full scratch disk",
            )
            health = stack.get("/healthz", timeout=10)
            filler.unlink()
            freed = time.perf_counter()
            final = stack.wait_for_job(upload_id, ("done", "failed"), timeout=300)
            recovered = time.perf_counter() - freed
            leftovers = list(tmp.glob("ioboard-upload-*"))
            worker.stop()
        ok_runs, detail = runs_check(upload_id, expected)
    except Exception:
        stack.dump_logs()
        raise
    finally:
        stack.close()
    ok = waiting["error"] == "" and health[0] == 200 and final["status"] == "done" and ok_runs and not leftovers
    rows = [
        ["after the first try", f"{waiting['status']}, attempts {waiting['attempts']}, error {waiting['error']!r}"],
        ["/healthz meanwhile", f"{health[0]} in {health[2]:.2f} s"],
        ["room made to done s", f"{recovered:.1f}"],
        ["final", f"{final['status']}, attempts {final['attempts']}"],
        ["extraction directories left on the scratch disk", len(leftovers)],
        ["database check", detail],
    ]
    return figures(
        ok,
        "A worker whose TMPDIR is a 1 MiB tmpfs, filled to the last byte; one corpus submission uploaded; the filler "
        "removed once the job had been tried and given back.",
        rows,
    )


# ---------------------------------------------------------------- scenario: a web host killed mid-upload


def scenario_web(corpus: Path, scratch: Path) -> tuple[bool, str]:
    stack = Stack(scratch, gunicorn_workers=2)
    try:
        stack.worker("web-kill-worker")
        folder = submission_archives(corpus, 1, scratch)[0]
        archive = scratch / "large.tar.gz"
        with tarfile.open(folder, "r:gz") as source, tarfile.open(archive, "w:gz") as target:
            for member in source:
                target.addfile(member, source.extractfile(member) if member.isfile() else None)
            padding = os.urandom(4 * 1024 * 1024)
            entry = tarfile.TarInfo("padding.bin")
            entry.size = len(padding)
            target.addfile(entry, io.BytesIO(padding))
        expected = expected_identities(archive)
        sha256 = hashlib.sha256(archive.read_bytes()).hexdigest()
        body, content_type = client.multipart({"kind": "io500"}, "file", archive.name, archive.read_bytes())
        headers = {"Authorization": f"Token {stack.token}", "Content-Type": content_type, "Accept": "application/json"}
        seen = client.post_and_kill_midway(f"{stack.base}/api/v1/uploads/", body, headers=headers, kill=stack.web.kill9)
        left = stack_rows(sha256)
        stack.web = stack.add(servers.gunicorn(stack.port, env=stack.env, log_dir=stack.logs, workers=2, timeout=120))
        servers.wait_until_serving(stack.base)
        first = stack.upload(archive)
        again = stack.upload(archive)
        final = stack.wait_for_job(first[1]["id"], ("done", "failed"), timeout=300)
        ok_runs, detail = runs_check(first[1]["id"], expected)
        after = stack_rows(sha256)
    except Exception:
        stack.dump_logs()
        raise
    finally:
        stack.close()
    ok = (
        seen is None
        and left == (0, 0, 0)
        and first[0] == 202
        and (again[0], again[1].get("id")) == (200, first[1]["id"])
        and final["status"] == "done"
        and ok_runs
        and after == (1, 1, 1)
    )
    rows = [
        ["the killed upload's client", "no answer (connection dropped)" if seen is None else f"answered {seen}"],
        ["left of it: uploads / stored files / jobs", " / ".join(map(str, left))],
        ["sent again / and once more", f"{first[0]} (id {first[1].get('id')}) / {again[0]} (id {again[1].get('id')})"],
        ["final", f"{final['status']}, attempts {final['attempts']}"],
        ["after: uploads / stored files / jobs", " / ".join(map(str, after))],
        ["database check", detail],
    ]
    return figures(
        ok,
        f"A {archive.stat().st_size / 2**20:.1f} MiB upload (a corpus submission and 4 MiB of random padding) sent "
        "slowly; gunicorn (master and workers) killed with SIGKILL halfway through its body, then started "
        "again.",
        rows,
    )


def stack_rows(sha256: str) -> tuple[int, int, int]:
    """Uploads of these bytes, stored files and ingest jobs, as the database holds them."""
    from django.db import connections

    from apps.ingest.models import IngestJob
    from apps.results.models import Upload, UploadBlob

    connections.close_all()
    uploads = Upload.objects.filter(sha256=sha256)
    return (
        uploads.count(),
        UploadBlob.objects.filter(name__contains=sha256).count(),
        IngestJob.objects.filter(upload__in=uploads).count(),
    )


SCENARIOS = {
    "worker": ("Fault: Celery worker killed mid-ingest", scenario_worker),
    "postgres": ("Fault: PostgreSQL restarted under load", scenario_postgres),
    "redis": ("Fault: Redis stopped during uploads", scenario_redis),
    "flush": ("Fault: Redis flushed with uploads queued", scenario_flush),
    "scratch": ("Fault: a worker's scratch disk full", scenario_scratch),
    "web": ("Fault: a web host killed during an upload", scenario_web),
}


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench fault_scenarios", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=["all", *SCENARIOS], default="all")
    parser.add_argument("--corpus", type=Path, default=ingestion.CORPUS)
    args = parser.parse_args(argv)
    if args.scenario == "all":
        # One process per scenario: each configures Django against its own private PostgreSQL.
        failed = []
        for name in SCENARIOS:
            argv = [sys.executable, "-m", "bench", "fault_scenarios", "--scenario", name, "--corpus", str(args.corpus)]
            if subprocess.run(argv, cwd=REPO_ROOT, check=False).returncode:
                failed.append(name)
        print("failed scenarios: " + ", ".join(failed) if failed else "all scenarios passed")
        sys.exit(1 if failed else 0)
    names = [args.scenario]
    results = {}
    for name in names:
        title, function = SCENARIOS[name]
        print(f"== {title}")
        with tempfile.TemporaryDirectory(prefix=f"ioboard-fault-{name}-") as scratch:
            ok, body = function(args.corpus.resolve(), Path(scratch))
        results[name] = ok
        print(body)
        print("PASS" if ok else "FAIL")
    sys.exit(0 if all(results.values()) else 1)
