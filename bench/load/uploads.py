"""Load test: N concurrent authenticated uploads through the API, two Celery workers, PostgreSQL and Redis.

    .venv/bin/python -m bench load_uploads [--uploads 50] [--corpus DIR] [--timeout 900] [--json FILE]

Starts, on 127.0.0.1 only: a private redis-server on a free port (or --redis-url), a fresh PostgreSQL
database (--db), gunicorn (4 sync workers) and two ``celery -A config worker`` processes (concurrency
1 each). Builds N distinct real archives from corpus submissions (each packed under its
Institution/System/Filesystem/Year/submission-N path; when the corpus has fewer ingestible
submissions than N, copies are made distinct with an ``ioboard.yaml`` sidecar and their own top
folder), parses each beforehand to know exactly which runs it must produce, then fires all uploads
at once from N threads released by a barrier, polls every status URL until it is done or failed (each as
often as its Retry-After asks), and checks in the database that every job is done, every expected run exists
exactly once and is attached to its upload, and every stored file is intact. Prints figures (``--json FILE`` also writes
them for ``python -m bench report``). Exit status 1 when any check fails.
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import tarfile
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.harness import in_process, ingestion, output, statistics
from rig import client, databases, processes, servers

USERS = 5


def pack(folder: Path, corpus: Path, destination: Path, *, copy: int = 0) -> Path:
    """A .tar.gz of a submission under its corpus path; copy > 0 adds a top folder and a distinct sidecar."""
    relative = folder.relative_to(corpus)
    with tarfile.open(destination, "w:gz") as archive:
        top = Path(f"copy-{copy}") / relative if copy else relative
        archive.add(folder, arcname=str(top))
        if copy:
            sidecar = destination.with_suffix(".yaml")
            sidecar.write_text(f"notes: load-test copy {copy}\n")
            archive.add(sidecar, arcname=str(top / "ioboard.yaml"))
            sidecar.unlink()
    return destination


def expected_runs(archive: Path) -> tuple[set[str], list[str]]:
    """The run identities the ingest of this archive must produce, and any parse failures (Django set up)."""
    return ingestion.expected_run_identities(archive)


def build_archives(corpus: Path, count: int, scratch: Path) -> list[dict]:
    folders = sorted(p for p in corpus.rglob("submission-*") if p.is_dir())
    usable = []
    for index, folder in enumerate(folders):
        archive = pack(folder, corpus, scratch / f"{index:03d}-{folder.name}.tar.gz")
        identities, failures = expected_runs(archive)
        if identities and not failures:
            usable.append({"folder": folder, "archive": archive, "identities": identities})
        else:
            archive.unlink()
    if not usable:
        raise SystemExit(f"{corpus}: no ingestible submission found")
    # Evenly spread over the corpus (eras, sites, sizes) rather than the first N by name.
    step = max(1, len(usable) // count)
    chosen = usable[::step][:count]
    copy = 0
    while len(chosen) < count:
        copy += 1
        for item in usable[: count - len(chosen)]:
            archive = pack(item["folder"], corpus, scratch / f"copy{copy}-{item['archive'].name}", copy=copy)
            identities, failures = expected_runs(archive)
            if failures or not identities:
                raise SystemExit(f"{archive}: copy does not parse: {failures}")
            chosen.append({"folder": item["folder"], "archive": archive, "identities": identities})
    for item in chosen:
        data = item["archive"].read_bytes()
        item["sha256"], item["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    if len({item["sha256"] for item in chosen}) != len(chosen):
        raise SystemExit("archives are not distinct")
    all_identities = [i for item in chosen for i in item["identities"]]
    if len(all_identities) != len(set(all_identities)):
        raise SystemExit("two archives would produce the same run; pick distinct submissions")
    return chosen


def uploads_env(database_url: str, redis_url: str, media: Path) -> dict:
    """The services' settings for a burst of uploads: this database, Redis and media folder, and throttles
    lifted so that the accounts' uploads all go through (the throttles are tested on their own)."""
    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "MEDIA_ROOT": str(media),
        "THROTTLE_UPLOADS": "100000/hour",
        "THROTTLE_USER": "1000000/min",
    }


def post_upload(base: str, token: str, item: dict, barrier: threading.Barrier | None) -> dict:
    """POST one archive with the account's token (after every thread reached `barrier`, if given)."""
    archive = item["archive"]
    body, content_type = client.multipart({"kind": "io500"}, "file", archive.name, archive.read_bytes())
    if barrier:
        barrier.wait(timeout=120)
    sent = time.perf_counter()
    answer = client.http_answer(
        "POST",
        f"{base}/api/v1/uploads/",
        data=body,
        timeout=300,
        headers={"Authorization": f"Token {token}", "Content-Type": content_type, "Accept": "application/json"},
    )
    try:
        parsed = json.loads(answer.body or b"{}")
    except ValueError:
        parsed = {"raw": answer.body[:300].decode(errors="replace")}
    return {
        "item": item,
        "status": answer.status,
        "seconds": answer.seconds,
        "sent": sent,
        "answer": parsed,
        "token": token,
        "retry_after": retry_after(answer.headers),
    }


#: How long the poller waits before asking again about an upload whose answer gave no Retry-After.
POLL_SECONDS_WITHOUT_HINT = 0.5


def poll_until_finished(base: str, posted: list[dict], deadline: float) -> list[str]:
    """Ask for each upload's status until it is done or failed, as a client that honours Retry-After does: an
    unfinished upload is asked about again when its last answer (the 202, then each status) said to, or after
    `POLL_SECONDS_WITHOUT_HINT` when it said nothing. One client asks for one status at a time.

    Polling ends at `deadline` (a `time.perf_counter()` instant) whatever the jobs' states: each upload still
    unfinished then gets the final status "not done" with the status it was last seen in, and is returned described
    (its archive, its upload's id, that status), so a job that never finishes ends the wait with its name rather than
    holding it. An upload whose POST was not accepted is never polled: its final status says so."""
    due = [(p["sent"] + p["seconds"] + p["retry_after"], n) for n, p in enumerate(posted) if p["status"] in (200, 202)]
    for p in posted:
        if p["status"] not in (200, 202):
            p["final"] = {"status": f"not accepted (POST answered {p['status']})"}
    heapq.heapify(due)
    while due and time.perf_counter() < deadline:
        when, n = heapq.heappop(due)
        time.sleep(max(0.0, min(when, deadline) - time.perf_counter()))
        p = posted[n]
        answer = client.http_answer(
            "GET",
            f"{base}/api/v1/uploads/{p['answer']['id']}/",
            headers={"Authorization": f"Token {p['token']}", "Accept": "application/json"},
            timeout=max(1.0, min(30.0, deadline - time.perf_counter())),
        )
        status = json.loads(answer.body) if answer.status == 200 else {}
        p["last_seen"] = status.get("status") or f"no status (HTTP {answer.status})"
        if status.get("status") in ("done", "failed"):
            p["final"], p["finished_seen"] = status, time.perf_counter()
        else:
            heapq.heappush(due, (time.perf_counter() + retry_after(answer.headers), n))
    unfinished = []
    for _, n in sorted(due, key=lambda pair: pair[1]):
        p = posted[n]
        last_seen = p.get("last_seen", "not polled yet")
        p["final"] = {"status": "not done", "last_seen": last_seen}
        unfinished.append(f"{p['item']['archive'].name} (upload {p['answer']['id']}): last seen {last_seen}")
    return unfinished


def retry_after(headers: Mapping[str, str]) -> float:
    """The seconds an answer's Retry-After asks for (its delay-seconds form), else `POLL_SECONDS_WITHOUT_HINT`."""
    value = headers.get("Retry-After", "")
    return float(value) if value.isdigit() else POLL_SECONDS_WITHOUT_HINT


def verify(chosen: list[dict], posted: list[dict], *, seeded_runs: int = 0) -> tuple[list[str], dict]:
    """Everything the load test promises, checked in the database (an upload's file too, read through the storage
    that keeps it: apps.results.storage). Returns (failures, figures).

    `seeded_runs` were in the database before the uploads (bench.load_deadline seeds synthetic runs)."""
    from django.db.models import Count

    from apps.ingest.models import IngestJob
    from apps.results.models import Run, Upload

    failures = []
    by_sha = {item["sha256"]: item for item in chosen}
    uploads = list(Upload.objects.all())
    if len(uploads) != len(chosen):
        failures.append(f"{len(uploads)} uploads stored, expected {len(chosen)}")
    attempts = Counter()
    job_seconds = []
    for upload in uploads:
        item = by_sha.get(upload.sha256)
        if item is None:
            failures.append(f"upload {upload.pk} has bytes nobody sent")
            continue
        jobs = list(IngestJob.objects.filter(upload=upload))
        if len(jobs) != 1:
            failures.append(f"upload {upload.pk}: {len(jobs)} ingest jobs")
        for job in jobs:
            attempts[job.attempts] += 1
            if job.status != IngestJob.Status.DONE:
                claimed = f", last claimed {job.started_at:%H:%M:%S} UTC" if job.started_at else ""
                failures.append(
                    f"upload {upload.pk} ({item['folder'].name}): job {job.status} after {job.attempts} attempts"
                    f"{claimed}: {job.error[:200]}"
                )
            if job.finished_at:
                job_seconds.append((job.finished_at - job.created_at).total_seconds())
            if set(job.runs.values_list("identity", flat=True)) != item["identities"]:
                failures.append(f"upload {upload.pk}: job runs differ from the expected runs")
        stored = set(Run.objects.filter(upload=upload).values_list("identity", flat=True))
        if stored != item["identities"]:
            failures.append(f"upload {upload.pk}: runs {len(stored)} stored, {len(item['identities'])} expected")
        kept = upload.file.storage.exists(upload.file.name)
        if not kept or hashlib.sha256(upload.file.storage.open(upload.file.name).read()).hexdigest() != upload.sha256:
            failures.append(f"upload {upload.pk}: stored file missing or altered")
    expected = {i for item in chosen for i in item["identities"]}
    runs = Run.objects.count() - seeded_runs
    duplicates = Run.objects.values("content_hash", "source_path").annotate(n=Count("pk")).filter(n__gt=1).count()
    if runs != len(expected):
        failures.append(f"{runs} runs in the database, expected exactly {len(expected)}")
    if duplicates:
        failures.append(f"{duplicates} runs stored more than once")
    missing = expected - set(Run.objects.values_list("identity", flat=True))
    if missing:
        failures.append(f"{len(missing)} expected runs missing")
    for p in posted:
        if p["status"] != 202:
            failures.append(f"{p['item']['archive'].name}: POST answered {p['status']} {str(p['answer'])[:200]}")
    return failures, {
        "runs": runs,
        "expected_runs": len(expected),
        "attempts": dict(attempts),
        "job_seconds": job_seconds,
    }


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench load_uploads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=50)
    parser.add_argument("--corpus", type=Path, default=ingestion.CORPUS)
    parser.add_argument("--db", default="ioboard_load")
    parser.add_argument("--redis-url", help="use this (loopback) Redis instead of a private redis-server")
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=900, help="seconds allowed for every upload to finish")
    parser.add_argument("--keep-db", action="store_true")
    output.add_json_option(parser)
    args = parser.parse_args(argv)
    if not 1 <= args.uploads <= 500:
        raise SystemExit("--uploads must be between 1 and 500")
    if args.redis_url:
        client.require_loopback(args.redis_url)
    return args


@dataclass
class Fired:
    """The uploads fired at once and followed to their end: the archives, each POST's answer and final status,
    the first POST sent, the last accepted and the last seen done, the services' peak memory, the checks."""

    chosen: list[dict]
    posted: list[dict]
    first_sent: float
    accepted_at: float
    finished_at: float
    rss: dict[str, float]
    rss_children: dict[str, float]
    failures: list[str]
    figures: dict


def start_stack(args: argparse.Namespace, scratch: Path, services: list[processes.Service]) -> tuple[str, Path]:
    """Redis (``--redis-url`` or a private one), a fresh database, gunicorn and two Celery workers (appended to
    ``services`` as each starts); the site's address and where the uploads' files land."""
    media, logs = scratch / "media", scratch / "logs"
    for folder in (media, logs):
        folder.mkdir()
    if args.redis_url:
        redis_url = args.redis_url
    else:
        redis_port = processes.free_port()
        services.append(servers.private_redis(redis_port, log_dir=logs))
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
    url = databases.fresh_database(args.db)
    in_process.django_setup(url)
    env = uploads_env(url, redis_url, media)
    port = processes.free_port()
    services.append(servers.gunicorn(port, env=env, log_dir=logs, workers=args.gunicorn_workers, timeout=300))
    workers = [servers.celery_worker(f"load{n}", env=env, log_dir=logs) for n in (1, 2)]
    services += workers
    base = f"http://127.0.0.1:{port}"
    servers.wait_until_serving(base)
    servers.wait_until_workers_ready(workers)
    return base, media


def fire_uploads(args: argparse.Namespace, scratch: Path, services: list[processes.Service]) -> Fired:
    """Build ``--uploads`` distinct archives and an account per uploader, post them all at the same instant,
    poll each until done, then check the database against what the archives hold."""
    base, _ = start_stack(args, scratch, services)
    archives = scratch / "archives"
    archives.mkdir()
    print(f"building {args.uploads} distinct archives from {args.corpus} …")
    chosen = build_archives(args.corpus.resolve(), args.uploads, archives)
    tokens = [databases.create_token_user(f"load{n}") for n in range(USERS)]
    print(f"firing {len(chosen)} concurrent uploads at {base} …")
    barrier = threading.Barrier(len(chosen))
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(chosen)) as pool:
        posted = list(
            pool.map(lambda pair: post_upload(base, tokens[pair[0] % USERS], pair[1], barrier), enumerate(chosen))
        )
    first_sent = min(p["sent"] for p in posted)
    accepted_at = max(p["sent"] + p["seconds"] for p in posted)
    for unfinished in poll_until_finished(base, posted, deadline=started + args.timeout):
        print(f"not done within --timeout {args.timeout:g} s: {unfinished}")
    finished_at = max(p.get("finished_seen", accepted_at) for p in posted)
    measured = [s for s in services if s.name.startswith(("load", "gunicorn"))]
    rss = {s.name: processes.peak_rss_mib(s.pid) for s in measured}
    rss_children = {
        s.name: max([processes.peak_rss_mib(c) for c in processes.children_of(s.pid)] or [0]) for s in measured
    }
    failures, figures = verify(chosen, posted)
    return Fired(chosen, posted, first_sent, accepted_at, finished_at, rss, rss_children, failures, figures)


def run_uploads(args: argparse.Namespace) -> Fired:
    """Fire the uploads on a stack of their own; stop every service (printing their last lines on a failure)
    and drop the database unless ``--keep-db``."""
    with (
        tempfile.TemporaryDirectory(prefix="ioboard-load-") as scratch,
        in_process.services_on(args.db, keep_database=args.keep_db) as services,
    ):
        return fire_uploads(args, Path(scratch), services)


def report(args: argparse.Namespace, fired: Fired) -> int:
    """The uploads' figures as a table, and as JSON with ``--json``; exit status 1 when any check failed."""
    chosen, posted, failures, figures = fired.chosen, fired.posted, fired.failures, fired.figures
    first_sent, accepted_at, rss, rss_children = fired.first_sent, fired.accepted_at, fired.rss, fired.rss_children
    finished_at = fired.finished_at
    latencies = [p["seconds"] for p in posted]
    sizes = [item["bytes"] for item in chosen]
    twice = ">0" if any("more than once" in f for f in failures) else "0"
    mbytes = sum(item["bytes"] for item in chosen) / 1e6
    codes = Counter(p["status"] for p in posted)
    finals = Counter(p["final"].get("status") for p in posted)
    total = finished_at - first_sent
    rows = [
        ["uploads fired at once", len(chosen)],
        [
            "archives: total MB (.tar.gz), smallest-largest KB",
            f"{mbytes:.2f} MB, {min(sizes) / 1e3:.0f}-{max(sizes) / 1e3:.0f} KB",
        ],
        ["POST answers", ", ".join(f"{code}: {n}" for code, n in sorted(codes.items()))],
        [
            "POST latency median / p95 / max s",
            f"{statistics.median(latencies):.2f} / {statistics.percentile(latencies, 0.95):.2f} / {max(latencies):.2f}",
        ],
        ["all accepted after s", f"{accepted_at - first_sent:.2f}"],
        ["final job states (API)", ", ".join(f"{state}: {n}" for state, n in sorted(finals.items()))],
        ["all finished after s (first POST to last done)", f"{total:.2f}"],
        [
            "job queue-to-done median / p95 / max s",
            f"{statistics.median(figures['job_seconds']):.2f} / "
            f"{statistics.percentile(figures['job_seconds'], 0.95):.2f} / {max(figures['job_seconds'] or [0]):.2f}",
        ],
        ["runs expected / stored / stored twice", f"{figures['expected_runs']} / {figures['runs']} / {twice}"],
        ["end-to-end throughput", f"{figures['runs'] / total:.2f} runs/s, {mbytes / total:.2f} MB/s"],
        ["job attempts (attempts: jobs)", ", ".join(f"{a}: {n}" for a, n in sorted(figures["attempts"].items()))],
        [
            "peak RSS MiB (main process / largest child)",
            ", ".join(f"{name} {rss[name]:.0f}/{rss_children[name]:.0f}" for name in rss),
        ],
        ["checks", "all passed" if not failures else f"{len(failures)} FAILED"],
    ]
    text = output.table(["figure", "value"], rows)
    print()
    print(text)
    for failure in failures:
        print("FAILED:", failure)
    output.write_json(
        args.json,
        {
            "uploads": len(chosen),
            "post_median_seconds": statistics.median(latencies),
            "all_done_seconds": total,
            "runs_expected": figures["expected_runs"],
            "runs_stored": figures["runs"],
            "runs_per_second": figures["runs"] / total,
            "failures": failures,
        },
    )
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    args = parse_arguments(argv)
    return report(args, run_uploads(args))
