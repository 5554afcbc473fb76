"""Load at the deadline: readers browse lists, runs and compare while accounts upload through the API.

    .venv/bin/python -m bench load_deadline [--runs 100000] [--readers 32] [--uploads 50] [--bursts 3]
                                             [--think MIN MAX] [--worker-nice N (19)] [--uploads-at-once]
                                             [--reader-processes N] [--json FILE]

Starts, on 127.0.0.1 only: a private redis-server, a fresh PostgreSQL database (--db) seeded with --runs
synthetic runs (`seed_synthetic`), gunicorn (--gunicorn-workers sync workers), two real Celery workers and
`celery beat`, as deployed: its periodic sweep is what takes over a job whose worker the ingest's hard time limit
killed (Celery acknowledges a killed task's message, so the job stays "processing" until the sweep sends another;
a stack without beat waited for such a job until the timeout, which looked like a hang in the third burst).
First warms the workers on the readers' pages and measures the readers' pages asked for one at a time (what a
page costs alone on this stack now: the yardstick) and idle `/healthz` (beside it), then runs
--readers readers (threads, spread over --reader-processes processes of their own), each looping over list
pages (filtered, sorted, deep pages), run pages and compare pages of the seeded runs, while 5 accounts post
--uploads real corpus archives through the API with their tokens, the accounts at once and each account's
archives one after another (--uploads-at-once: all at the same instant), and poll them until done, each as
often as its Retry-After asks (as `python -m bench load_uploads` does, whose archive building, polling and
database checks this reuses). Readers keep reading until every upload is done. The page cache is off (the cold
path) unless --page-cache. By default a reader asks for its next page as soon as it is answered (a closed loop: 32 such
readers keep every CPU busy, so their latency is N / throughput whatever the pages cost); --think MIN MAX makes
each pause between pages as a person (or locust's `between(MIN, MAX)`) does, which is the load 32 concurrent
people put on a site.

The deadline is run --bursts times on the same stack, one after another, each burst with archives of its own,
and the readers' p95 is taken for each burst apart. A burst is the unit of replication: its requests are not
independent of each other (the few hundred of them share one burst of uploads), so their pooled p95 would hide
how much a whole deadline varies; on a shared 2-CPU machine one burst's p95 moved between 22x and 39x of
`/healthz` from one run of the same code to the next.

Checks: no reader error (any status but 200, or no answer), every upload done, each expected run stored exactly
once; exit status 1 when one fails. Every wait has a deadline: a burst's uploads have --timeout seconds from the
first POST; one still unfinished then is named with the status it was last seen in and its job's state, and no
further burst runs. The latency target, the readers' p95 during the bursts within 2.5x the idle
p95 of the same pages asked for one at a time on the same stack in the same run, is judged on the bursts' median
p95, with how many bursts were within it beside it, and reported as met or not without failing the command, so
that `python -m bench report` still writes the figures that miss it. Why not `/healthz`: on a 2-CPU host shared by
PostgreSQL, the workers and the load generator, a reader's page against an empty answer measures the host more
than the code; the same pages alone measure what handling the uploads adds to them.

The Celery workers run at niceness 19 (`--worker-nice`, through the workers' own setting IOBOARD_WORKER_NICE,
config/celery.py), as a deployment on one host runs them: readers first.

Each latency is reported twice: as the readers saw it (the target's figure), and as gunicorn timed the same
requests (its access log, from the request read to the response written), which has no client in it: the
difference is the load generator's own share (urllib's per-request cost, threads waiting on one interpreter
lock). The readers run in processes apart from the uploaders, as locust runs its users in worker processes, so
that building and posting the archives and polling the jobs does not hold the readers' interpreter.

Why threads and urllib rather than locust: the bench harness already drives gunicorn, Celery and the uploads
this way (`rig`, `python -m bench load_uploads`), and the load is a fixed set of 32 readers, which
needs no event loop; locust would add gevent to the shared environment for that.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import random
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from bench.harness import in_process, ingestion, output, statistics
from bench.load.uploads import (
    USERS,
    build_archives,
    poll_until_finished,
    post_upload,
    uploads_env,
    verify,
)
from rig import client, databases, processes, servers

#: Readers' p95 during the bursts must stay within this multiple of the idle p95 of their pages asked one at a time.
BOUND_X_PAGES_ALONE = 2.5
#: The requests that bracket, in gunicorn's access log, the idle yardsticks: /healthz, then the readers' pages one at a
#: time (`reading_marks` bracket each burst's reading window).
IDLE_MARKS = ("/healthz?mark=idle-start", "/healthz?mark=idle-stop")
#: The page types the readers ask for (`reader_pages`): the rest of the window's requests are the uploaders'.
READER_PAGES = ("/lists/", "/runs/", "/compare/")


def reader_pages(run_ids: list[int], rng: random.Random) -> list[str]:
    """What one reader asks for next: a list page, a run page or a compare page (lists twice as often)."""
    kind = rng.choice(["list", "list", "run", "compare"])
    if kind == "list":
        return [
            rng.choice(
                [
                    "/lists/io500/",
                    "/lists/ten-node/",
                    "/lists/historic/",
                    "/lists/io500/?filesystem=Lustre&nodes_min=10&sort=-bw",
                    "/lists/ten-node/?sort=-md",
                    f"/lists/historic/?page={rng.randint(2, 40)}",
                ]
            )
        ]
    if kind == "run":
        return [f"/runs/{rng.choice(run_ids)}/"]
    first, second = rng.sample(run_ids, 2)
    return [f"/compare/?runs={first}&runs={second}"]


def read_until(
    base: str,
    run_ids: list[int],
    stop: threading.Event,
    seed: int,
    samples: list,
    think: tuple[float, float] = (0.0, 0.0),
) -> None:
    """One reader: ask for a page, wait for the answer, then think for a time drawn uniformly from ``think``
    (seconds; locust's ``between(a, b)``) before the next page. ``(0, 0)``: a closed loop with no pause."""
    rng = random.Random(seed)
    if think[1] > 0:
        stop.wait(rng.uniform(0, think[1]))  # people arrive over time (locust spawns users at a rate), not at once
    while not stop.is_set():
        for path in reader_pages(run_ids, rng):
            status, _, seconds = client.http("GET", base + path, timeout=60)
            samples.append((page_type(path), status, seconds, path))
        if think[1] > 0:
            stop.wait(rng.uniform(*think))


def read_in_process(
    base: str, run_ids: list[int], seeds: list[int], think: tuple[float, float], stop, results, longest: float
) -> None:
    """A process of readers: a thread per seed (`read_until`) until `stop` (a multiprocessing Event) is set, or
    for ``longest`` seconds at most (a bench killed before it set `stop` leaves no reader behind), then every sample
    they took, sent back on `results`."""
    samples: list = []
    readers = [
        threading.Thread(target=read_until, args=(base, run_ids, stop, seed, samples, think), daemon=True)
        for seed in seeds
    ]
    for reader in readers:
        reader.start()
    if not stop.wait(longest):
        stop.set()
    finished_by = time.monotonic() + 90  # a reader's last page takes at most its 60 s timeout
    for reader in readers:
        reader.join(timeout=max(0.0, finished_by - time.monotonic()))
    results.put(list(samples))


def post_all(base: str, tokens: list[str], chosen: list[dict], *, at_once: bool) -> list[dict]:
    """Post every archive, account n taking archives n, n + USERS, ...: by default each account posts its
    archives one after another (an uploader waits for its 202 before sending the next), the accounts all at once;
    `at_once`: every archive at the same instant, each from a thread of its own."""
    numbered = list(enumerate(chosen))
    senders = [[pair] for pair in numbered] if at_once else [numbered[account::USERS] for account in range(USERS)]
    barrier = threading.Barrier(len(senders))

    def post_in_turn(archives: list[tuple[int, dict]]) -> list[tuple[int, dict]]:
        """One sender's archives, the first once every sender is ready."""
        return [
            (n, post_upload(base, tokens[n % USERS], item, barrier if index == 0 else None))
            for index, (n, item) in enumerate(archives)
        ]

    with ThreadPoolExecutor(max_workers=len(senders)) as pool:
        answered = [pair for answers in pool.map(post_in_turn, senders) for pair in answers]
    return [answer for _, answer in sorted(answered, key=lambda pair: pair[0])]


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages: the machine is shared, so they say what else was running."""
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def warm_pages(base: str, run_ids: list[int], gunicorn_workers: int) -> None:
    """Ask each gunicorn worker for every page type a few times before anything is timed, as `/healthz` is
    warmed before its yardstick is taken: a worker's first page compiles its templates and opens its database
    connection, which is start-up, not the answer a reader gets from a running site."""
    rng = random.Random(0)
    for _ in range(8 * gunicorn_workers):
        for path in reader_pages(run_ids, rng):
            client.http("GET", base + path, timeout=60)


def idle_pages(base: str, run_ids: list[int], requests: int = 200) -> list[tuple[str, float]]:
    """The readers' pages asked for one at a time before anything else runs: what a page costs alone on this stack
    now, the yardstick the readers' p95 is judged against (200 requests, so that ten of them lie above its p95, not
    one or two outliers)."""
    rng = random.Random(1)
    paths = [reader_pages(run_ids, rng)[0] for _ in range(requests)]
    return [(page_type(path), client.http("GET", base + path, timeout=60)[2]) for path in paths]


def page_type(path: str) -> str:
    """A reader's page's type: "lists", "runs" or "compare"."""
    return path.split("?")[0].split("/")[1]


def idle_healthz(base: str, requests: int = 100) -> list[float]:
    for _ in range(10):
        client.http("GET", f"{base}/healthz")
    return [client.http("GET", f"{base}/healthz")[2] for _ in range(requests)]


def reading_marks(burst: int) -> tuple[str, str]:
    """The requests that bracket one burst's reading window in gunicorn's access log."""
    return f"/healthz?mark=readers-start-{burst}", f"/healthz?mark=readers-stop-{burst}"


#: Seconds the reader processes have, once told to stop, to finish their last pages (each at most 60 s) and send
#: their samples back.
READERS_STOP_SECONDS = 120


def collect_samples(readers: list, results) -> list:
    """Every reader process's samples, once `stop` is set; a process that sends none within
    `READERS_STOP_SECONDS` ends the wait with its name and state, and every reader still running is ended."""
    samples: list = []
    try:
        for received in range(len(readers)):
            try:
                samples += results.get(timeout=READERS_STOP_SECONDS)
            except queue.Empty:
                states = ", ".join(
                    f"{reader.name} " + ("still running" if reader.is_alive() else f"exited {reader.exitcode}")
                    for reader in readers
                )
                raise RuntimeError(
                    f"{len(readers) - received} of {len(readers)} reader processes sent no samples within "
                    f"{READERS_STOP_SECONDS} s of being told to stop ({states})"
                ) from None
    finally:
        for reader in readers:
            reader.join(timeout=30)
            if reader.is_alive():
                reader.terminate()
    return samples


def one_burst(base: str, run_ids: list[int], tokens: list[str], archives: list[dict], args, burst: int) -> dict:
    """One deadline: the readers start reading, then the accounts post `archives` and poll them until done, or
    until ``--timeout`` has passed since the first POST; the readers stop then. Returns the readers' samples, the
    uploads' answers (each upload's final status: done, failed, or "not done" and the status it was last seen in),
    the uploads still unfinished at the timeout, described, and the window."""
    context = multiprocessing.get_context("spawn")
    stop, results = context.Event(), context.Queue()
    seeds = [list(range(args.readers))[n :: args.reader_processes] for n in range(args.reader_processes)]
    longest = 5 + args.think[1] + 2 * args.timeout  # the posts' own waits (each POST's 300 s) and the polls'
    readers = [
        context.Process(
            target=read_in_process, args=(base, run_ids, group, args.think, stop, results, longest), daemon=True
        )
        for group in seeds
        if group
    ]
    start_mark, stop_mark = reading_marks(burst)
    try:
        client.http("GET", f"{base}{start_mark}")
        reading_started = time.perf_counter()
        for reader in readers:
            reader.start()
        time.sleep(5 + args.think[1])  # every reader reading before the uploads start
        started = time.perf_counter()
        posted = post_all(base, tokens, archives, at_once=args.uploads_at_once)
        unfinished = poll_until_finished(base, posted, deadline=started + args.timeout)
        uploads_seconds = time.perf_counter() - started
        stop.set()
        samples = collect_samples(readers, results)
        reading_seconds = time.perf_counter() - reading_started
        client.http("GET", f"{base}{stop_mark}")
    finally:
        stop.set()
    return {
        "samples": samples,
        "posted": posted,
        "unfinished": unfinished,
        "uploads_seconds": uploads_seconds,
        "reading_seconds": reading_seconds,
        "reader_processes": len(readers),
    }


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench load_deadline", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--readers", type=int, default=32)
    parser.add_argument("--uploads", type=int, default=50, help="archives posted in each burst")
    parser.add_argument(
        "--bursts",
        type=int,
        default=3,
        help="deadlines run one after another on the same stack, each with archives of its own: the readers' p95 "
        "is reported for each, since one burst's p95 (a few hundred requests) moves by half between runs",
    )
    parser.add_argument("--corpus", type=Path, default=ingestion.CORPUS)
    parser.add_argument("--db", default="ioboard_load_deadline")
    parser.add_argument("--gunicorn-workers", type=int, default=4)
    parser.add_argument(
        "--reader-processes",
        type=int,
        default=4,
        help="processes the readers are spread over, apart from the uploaders' (each reader is a thread)",
    )
    parser.add_argument("--gunicorn-threads", type=int, default=1, help="threads per gunicorn worker (gthread above 1)")
    parser.add_argument(
        "--worker-nice",
        type=int,
        default=19,
        help="the Celery workers' niceness (IOBOARD_WORKER_NICE, which they set themselves and give their session; "
        "0: as the web)",
    )
    parser.add_argument(
        "--uploads-at-once",
        action="store_true",
        help="post every archive at the same instant (default: each account posts its archives one after another)",
    )
    parser.add_argument("--page-cache", action="store_true", help="serve anonymous pages from the page cache")
    parser.add_argument(
        "--timeout",
        type=float,
        default=1800,
        help="seconds each burst's uploads have, from the first POST, to be done or failed; an upload still "
        "unfinished then is named with its last status, no further burst runs and the command fails",
    )
    parser.add_argument(
        "--stuck-upload-minutes",
        type=int,
        help="IOBOARD_STUCK_UPLOAD_MINUTES for the workers (the sweep's: beat asks every 5 minutes for the jobs "
        "stuck that long); default: the deployment's (15)",
    )
    parser.add_argument("--keep-db", action="store_true")
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("MIN", "MAX"),
        help="seconds each reader pauses between pages, drawn uniformly (locust's between(MIN, MAX)); "
        "default 0 0: every reader asks again as soon as it is answered",
    )
    output.add_json_option(parser)
    return parser.parse_args(argv)


@dataclass
class Stack:
    """The site as deployed on one host, seeded and warm: its address, the runs the readers visit, the uploaders'
    tokens and archives (every burst's), and where the uploads' files land."""

    base: str
    run_ids: list[int]
    seeded: int
    tokens: list[str]
    archives: list[dict]
    media: Path


@dataclass
class Deadline:
    """What one run of the scenario measured: the idle yardsticks, each burst, and the uploads' checks."""

    healthz: list[float]
    #: The readers' pages asked for one at a time before the bursts: (page type, seconds).
    alone: list[tuple[str, float]]
    bursts: list[dict]
    posted: list[dict]
    failures: list[str]
    figures: dict
    load_before: str
    load_after: str
    idle_log: list[tuple[str, int, float]] = field(default_factory=list)


def start_stack(args: argparse.Namespace, scratch: Path, services: list[processes.Service]) -> Stack:
    """A private Redis, a fresh database seeded with ``--runs`` runs, the archives and accounts of every burst,
    gunicorn and two Celery workers (appended to ``services`` as each starts), every worker warm."""
    media, archives, logs, static = (scratch / name for name in ("media", "archives", "logs", "static"))
    for folder in (media, archives, logs):
        folder.mkdir()
    redis_port = processes.free_port()
    services.append(servers.private_redis(redis_port, log_dir=logs))
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    url = databases.fresh_database(args.db)
    seed_started = time.perf_counter()
    processes.manage(["seed_synthetic", "--runs", str(args.runs)], env={"DATABASE_URL": url}, timeout=3600)
    print(f"seeded {args.runs} runs in {time.perf_counter() - seed_started:.0f} s")
    in_process.django_setup(url)
    from apps.results.models import Run

    run_ids = list(Run.objects.order_by("?").values_list("pk", flat=True)[:2000])
    seeded = Run.objects.count()
    print(f"building {args.uploads * args.bursts} distinct archives from {args.corpus} …")
    chosen = build_archives(args.corpus.resolve(), args.uploads * args.bursts, archives)
    tokens = [databases.create_token_user(f"deadline{n}") for n in range(USERS)]
    env = {
        **uploads_env(url, redis_url, media),
        "STATIC_ROOT": str(static),
        "THROTTLE_ANON": "1000000/min",
        "IOBOARD_PAGE_CACHE_SECONDS": "600" if args.page_cache else "0",
    }
    processes.manage(["collectstatic", "--noinput", "-v", "0"], env=env, timeout=900)  # DEBUG=0: the manifest
    port = processes.free_port()
    services.append(
        servers.gunicorn(
            port, env=env, log_dir=logs, workers=args.gunicorn_workers, threads=args.gunicorn_threads, timeout=300
        )
    )
    worker_env = {**env, "IOBOARD_WORKER_NICE": str(args.worker_nice)}
    if args.stuck_upload_minutes is not None:
        worker_env["IOBOARD_STUCK_UPLOAD_MINUTES"] = str(args.stuck_upload_minutes)
    workers = [servers.celery_worker(f"deadline{n}", env=worker_env, log_dir=logs) for n in (1, 2)]
    services += workers
    services.append(servers.celery_beat("deadline-beat", env=worker_env, log_dir=logs))
    base = f"http://127.0.0.1:{port}"
    servers.wait_until_serving(base, timeout=90)
    servers.wait_until_workers_ready(workers)
    warm_pages(base, run_ids, args.gunicorn_workers)
    return Stack(base=base, run_ids=run_ids, seeded=seeded, tokens=tokens, archives=chosen, media=media)


def run_bursts(args: argparse.Namespace, stack: Stack) -> Deadline:
    """The idle yardsticks (/healthz, then the readers' pages one at a time), then ``--bursts`` deadlines one
    after another, each with archives of its own; the uploads checked against what their archives hold."""
    base = stack.base
    client.http("GET", f"{base}{IDLE_MARKS[0]}")
    healthz = idle_healthz(base)
    alone = idle_pages(base, stack.run_ids)
    client.http("GET", f"{base}{IDLE_MARKS[1]}")
    load_before = load_average()
    bursts = []
    for burst in range(args.bursts):
        print(
            f"burst {burst + 1} of {args.bursts}: {args.readers} readers and {args.uploads} uploads "
            f"from {USERS} accounts at {base} …"
        )
        archives_of_burst = stack.archives[burst * args.uploads : (burst + 1) * args.uploads]
        bursts.append(one_burst(base, stack.run_ids, stack.tokens, archives_of_burst, args, burst))
        if bursts[-1]["unfinished"]:
            print(
                f"burst {burst + 1}: {len(bursts[-1]['unfinished'])} of {args.uploads} uploads not done within "
                f"--timeout {args.timeout:g} s; no further burst is run:"
            )
            for unfinished in bursts[-1]["unfinished"]:
                print(f"  {unfinished}")
            break
    load_after = load_average()
    posted = [p for burst in bursts for p in burst["posted"]]
    failures, figures = verify(stack.archives, posted, seeded_runs=stack.seeded)
    return Deadline(healthz, alone, bursts, posted, failures, figures, load_before, load_after)


def run_deadline(args: argparse.Namespace) -> Deadline:
    """Start the stack, run the bursts, stop every service (printing their last lines on a failure), read what
    gunicorn timed from its access log, drop the database unless ``--keep-db``."""
    with tempfile.TemporaryDirectory(prefix="ioboard-deadline-") as scratch:
        with in_process.services_on(args.db, keep_database=args.keep_db) as services:
            deadline = run_bursts(args, start_stack(args, Path(scratch), services))
        web = next(service for service in services if service.name.startswith("gunicorn"))
        deadline.idle_log = servers.server_times(web.log, between=IDLE_MARKS)
        for number, burst in enumerate(deadline.bursts):
            burst["served"] = servers.server_times(web.log, between=reading_marks(number))
    return deadline


def time_each_burst(bursts: list[dict]) -> None:
    """Each burst's readers' p95 and request count as they saw them, and their 200s as gunicorn timed them."""
    for burst in bursts:
        times = [s[2] for s in burst["samples"] if s[1] == 200]
        burst["p95_seconds"] = statistics.percentile(times, 0.95) if times else float("inf")
        burst["requests"] = len(burst["samples"])
        burst["served_readers"] = [
            (path, seconds)
            for path, status, seconds in burst.get("served", [])
            if path.startswith(READER_PAGES) and status == 200
        ]


def page_type_figures(
    samples: list, served_readers: list, alone: list[tuple[str, float]]
) -> tuple[dict, list[list[str]]]:
    """Per page type (lists, runs, compare), over every burst: the readers' median and p95 next to the same type's
    idle p95 (asked one at a time), and the p95 as gunicorn timed it; the figures and their rows."""
    rows = []
    page_types = {}
    for kind in sorted({s[0] for s in samples}):
        times = [s[2] for s in samples if s[0] == kind and s[1] == 200]
        alone_times = [seconds for alone_kind, seconds in alone if alone_kind == kind]
        if not times or not alone_times:
            continue
        p95, alone_p95 = statistics.percentile(times, 0.95), statistics.percentile(alone_times, 0.95)
        page_types[kind] = {
            "requests": len(times),
            "median_seconds": statistics.median(times),
            "p95_seconds": p95,
            "alone_p95_seconds": alone_p95,
        }
        served_kind = [seconds for path, seconds in served_readers if path.startswith(f"/{kind}/")]
        as_served = ""
        if served_kind:
            page_types[kind]["server_p95_seconds"] = statistics.percentile(served_kind, 0.95)
            as_served = f"; as gunicorn timed them {page_types[kind]['server_p95_seconds'] * 1e3:.1f}"
        rows.append(
            [
                f"readers, every burst: /{kind}/ ({len(times)} requests) median / p95 ms "
                f"(p95 x its idle p95 of {alone_p95 * 1e3:.1f} ms; server-side p95 ms)",
                f"{statistics.median(times) * 1e3:.1f} / {p95 * 1e3:.1f} ({p95 / alone_p95:.1f}x{as_served})",
            ]
        )
    return page_types, rows


def server_figures(
    bursts: list[dict], idle_served: list[tuple[str, int, float]], served_readers: list
) -> tuple[dict, list]:
    """The readers' pages as gunicorn timed them (no client in the figure), next to the same pages alone and
    /healthz timed the same way; nothing when the access log lacks a window."""
    rows = []
    server = {}
    healthz_served = [seconds for path, status, seconds in idle_served if path == "/healthz" and status == 200]
    alone_served = [seconds for path, status, seconds in idle_served if path.startswith(READER_PAGES) and status == 200]
    if healthz_served and alone_served and all(burst["served_readers"] for burst in bursts):
        server_p95s = [statistics.percentile([t for _, t in burst["served_readers"]], 0.95) for burst in bursts]
        alone_p95 = statistics.percentile(alone_served, 0.95)
        server = {
            "healthz_median_seconds": statistics.median(healthz_served),
            "pages_alone_p95_seconds": alone_p95,
            "readers_requests": len(served_readers),
            "readers_median_seconds": statistics.median([seconds for _, seconds in served_readers]),
            "readers_p95_seconds": statistics.median(server_p95s),
        }
        for burst, p95 in zip(bursts, server_p95s, strict=True):
            burst["server_p95_seconds"] = p95
        rows.append(
            [
                "as gunicorn timed them (no client): idle /healthz median ms; the pages alone p95 ms; the readers' "
                f"{server['readers_requests']} pages median ms / each burst's p95 ms (x the pages alone p95)",
                f"{server['healthz_median_seconds'] * 1e3:.2f}; {alone_p95 * 1e3:.1f}; "
                f"{server['readers_median_seconds'] * 1e3:.1f} / "
                + ", ".join(f"{p95 * 1e3:.1f} ({p95 / alone_p95:.1f}x)" for p95 in server_p95s),
            ]
        )
    return server, rows


def judge(args: argparse.Namespace, deadline: Deadline) -> int:
    """The readers' figures during the bursts against the idle p95 of the same pages asked for one at a time, per
    burst and per page type, as the readers saw them and as gunicorn timed them (idle /healthz beside them);
    printed as a table, written as JSON with ``--json``. Exit status 1 when any check failed."""
    healthz, alone, bursts, posted = deadline.healthz, deadline.alone, deadline.bursts, deadline.posted
    failures, figures, idle_log = deadline.failures, deadline.figures, deadline.idle_log
    load_before, load_after = deadline.load_before, deadline.load_after
    healthz_median = statistics.median(healthz)
    alone_times = [seconds for _, seconds in alone]
    alone_p95 = statistics.percentile(alone_times, 0.95)
    bound = BOUND_X_PAGES_ALONE * alone_p95
    samples = [sample for burst in bursts for sample in burst["samples"]]
    errors = [s for s in samples if s[1] != 200]
    if errors:
        failures.append(f"{len(errors)} reader requests failed, e.g. {errors[0][3]} -> {errors[0][1]}")
    time_each_burst(bursts)
    burst_p95s = [burst["p95_seconds"] for burst in bursts]
    p95_median = statistics.median(burst_p95s)
    within_bursts = sum(p95 <= bound for p95 in burst_p95s)
    within_bound = p95_median <= bound
    healthz_p95 = statistics.percentile(healthz, 0.95)
    rows = [
        [
            f"readers' pages alone (one at a time, no uploads; the yardstick), {len(alone)} requests: median / p95 ms",
            f"{statistics.median(alone_times) * 1e3:.1f} / {alone_p95 * 1e3:.1f}",
        ],
        ["idle /healthz median / p95 ms (beside it)", f"{healthz_median * 1e3:.1f} / {healthz_p95 * 1e3:.1f}"],
    ]
    served_readers = [pair for burst in bursts for pair in burst["served_readers"]]
    page_types, page_rows = page_type_figures(samples, served_readers, alone)
    rows += page_rows
    server, server_rows = server_figures(bursts, idle_log, served_readers)
    rows += server_rows
    reading_seconds = sum(burst["reading_seconds"] for burst in bursts)
    finals = Counter(p["final"].get("status") for p in posted)
    twice = ">0" if any("more than once" in f for f in failures) else "0"
    throughput = len(samples) / reading_seconds
    rows += [
        [
            "readers: each burst's requests / p95 ms (x the pages alone p95)",
            ", ".join(
                f"{burst['requests']} / {burst['p95_seconds'] * 1e3:.1f} ({burst['p95_seconds'] / alone_p95:.1f}x)"
                for burst in bursts
            ),
        ],
        [
            "readers: errors; the bursts' median p95 ms (x the pages alone p95)",
            f"{len(errors)}; {p95_median * 1e3:.1f} ({p95_median / alone_p95:.1f}x)",
        ],
        [
            "readers: requests/s over the reading windows; mean latency it implies for closed-loop readers (N / X)",
            f"{throughput:.1f}; {args.readers / throughput * 1e3:.0f} ms",
        ],
        [
            "uploads: bursts x archives from accounts / final states",
            f"{len(bursts)} x {args.uploads} from {USERS} / "
            + ", ".join(f"{state}: {n}" for state, n in sorted(finals.items())),
        ],
        [
            "uploads: each burst's first POST to last done s",
            ", ".join(f"{burst['uploads_seconds']:.1f}" for burst in bursts),
        ],
        [
            "uploads: each POST's answer (the archive stored, the job queued) median / max s",
            f"{statistics.median([p['seconds'] for p in posted]):.2f} / {max(p['seconds'] for p in posted):.2f}",
        ],
        [
            "runs from uploads expected / stored / stored twice",
            f"{figures['expected_runs']} / {figures['runs']} / {twice}",
        ],
        ["job attempts (attempts: jobs)", ", ".join(f"{a}: {n}" for a, n in sorted(figures["attempts"].items()))],
        ["load average before / after (other engineers share the machine)", f"{load_before} / {load_after}"],
        [
            "checks (reader errors, uploads done exactly once)",
            "all passed" if not failures else f"{len(failures)} FAILED",
        ],
        [
            f"readers' p95 within {BOUND_X_PAGES_ALONE}x the pages alone p95: the bursts' median (bursts within)",
            f"{'yes' if within_bound else 'NO'} ({within_bursts} of {len(bursts)})",
        ],
    ]
    print()
    print(output.table(["figure", "value"], rows))
    for failure in failures:
        print("FAILED:", failure)
    output.write_json(
        args.json,
        {
            "runs": args.runs,
            "readers": args.readers,
            "think_seconds": list(args.think),
            "uploads": args.uploads,
            "healthz_median_seconds": healthz_median,
            "pages_alone_median_seconds": statistics.median(alone_times),
            "pages_alone_p95_seconds": alone_p95,
            "pages_alone_requests": len(alone),
            "bound_x_pages_alone_p95": BOUND_X_PAGES_ALONE,
            "worker_nice": args.worker_nice,
            "readers_p95_seconds": p95_median,
            "bursts": [
                {
                    "readers_p95_seconds": burst["p95_seconds"],
                    "server_p95_seconds": burst.get("server_p95_seconds"),
                    "reader_requests": burst["requests"],
                    "uploads_seconds": burst["uploads_seconds"],
                    "within_bound": burst["p95_seconds"] <= bound,
                }
                for burst in bursts
            ],
            "reader_errors": len(errors),
            "reader_requests": len(samples),
            "reading_seconds": reading_seconds,
            "page_types": page_types,
            "server": server,
            "reader_processes": bursts[0]["reader_processes"] if bursts else 0,
            "cpus": os.cpu_count(),
            "load_before": load_before,
            "load_after": load_after,
            "within_bound": within_bound,
            "failures": failures,
        },
    )
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    args = parse_arguments(argv)
    return judge(args, run_deadline(args))
