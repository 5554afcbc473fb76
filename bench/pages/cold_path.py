"""Cold-path latency of every page, page cache off, next to /healthz on the same server in the same run.

    .venv/bin/python -m bench cold_path --runs 100000 --database-url postgres://postgres@127.0.0.1:5432/NAME

The database is created if missing, migrated and, unless it already holds exactly --runs synthetic runs, seeded with
`manage.py seed_synthetic --replace --runs N`. No manual ANALYZE or VACUUM: the pages are measured
on the statistics the product itself gathered (seed_synthetic analyses what it loads; `SHOW autovacuum`
is printed, and is off on the development machine). What seeding makes none of is added once, before anything
is timed: io500.org's published record with the public submissions it links to (as `load_demo` imports them), an
edition frozen from the live IO500 list, the demo IOR study and stack, a custom list, and one upload (awaiting
review) of the ordinary account the signed-in pages are read as. gunicorn serves the site with DEBUG off and
IOBOARD_PAGE_CACHE_SECONDS=0, so every request renders and runs its queries.

Each round requests every URL once, /healthz among them, in a shuffled order; --rounds rounds after
--warmup rounds. Interleaving puts every URL under the same background load as /healthz. The table
gives median and p95 per URL and their ratio to /healthz's median and p95.

Then one upload: a sample IO500 result directory (tests/data/io500/capp-result-dir) is ingested as
an upload's ingest task does, timed; the first read of the IO500 list after it must show the new run
with the rank a reference count over the run table gives (1 + systems whose best eligible run scores
higher). Maintenance tasks (settle, medians) are queued on a private Redis, not run inline, as a
worker elsewhere would run them; their duration is measured separately. The run is deleted after.

Prints a Markdown section (and --json PATH writes the numbers) for docs/performance.md.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness import in_process, output, statistics
from rig import REPO_ROOT, client, databases, processes, servers

SAMPLE = REPO_ROOT / "tests" / "data" / "io500" / "capp-result-dir"
#: The signed-in reader's own upload: another submission than SAMPLE, which the timed upload would find published.
READER_SAMPLE = REPO_ROOT / "tests" / "data" / "io500" / "bash-results"
MEDIAN_BOUND, P95_BOUND = 5.0, 10.0


def prepare(database_url: str, runs: int) -> dict:
    database = database_url.rsplit("/", 1)[1]
    if not databases.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}'", capture=True).strip():
        databases.psql(f'CREATE DATABASE "{database}"')
    env = {"DATABASE_URL": database_url}
    processes.manage(["migrate", "--noinput", "-v", "0"], env=env, timeout=900)
    from apps.results.models import Run

    synthetic = Run.objects.filter(submission_id="synthetic").count()
    seeded = None
    if synthetic != runs:
        print(f"seeding {runs} synthetic runs (found {synthetic})…", flush=True)
        started = time.monotonic()
        seeded_report = processes.manage(
            ["seed_synthetic", "--replace", "--runs", str(runs), "--batch", "20000"], env=env, timeout=7200
        )
        seeded = time.monotonic() - started
        print(seeded_report.strip(), flush=True)
    return {"env": env, "seed_seconds": seeded}


def pages() -> list[tuple[str, str]]:
    from apps.results.models import ListEntry, Run, ScalingSeries, StorageSystem
    from apps.results.models.list_columns import SORT_CHOICES

    run = ListEntry.objects.filter(kind="ten-node").order_by("run_id").values_list("run_id", flat=True).first()
    system = Run.objects.filter(pk=run).values_list("system_id", flat=True).get()
    busiest = StorageSystem.objects.order_by("pk").values_list("pk", flat=True)[10]
    compared = ListEntry.objects.listed("io500").values_list("run_id", flat=True)[:3]
    series = ScalingSeries.objects.order_by("pk").values_list("pk", flat=True).first()
    urls = [
        ("/healthz", "health check (the floor)"),
        ("/", "front door"),
        ("/systems/", "systems index"),
        ("/systems/?q=lustre&page=3", "systems search, page 3"),
        ("/compare/?q=ddn", "compare run picker"),
        ("/lists/io500/", "IO500 list"),
        ("/lists/io500/?filesystem=Lustre&nodes_min=10&sort=-bw", "IO500 list, filtered and sorted"),
        ("/lists/ten-node/", "10-node list"),
        ("/lists/ten-node/?vendor=DDN&sort=-md", "10-node list, filtered and sorted"),
        ("/lists/historic/?page=20", "historic list, page 20"),
        ("/lists/production/", "Production list"),
        ("/lists/full/?sort=-bw", "Full list, sorted"),
        ("/lists/historic/?year=2020&sort=nodes", "historic list, filtered and sorted"),
        *[(f"/lists/historic/?sort={key}", f"historic list sorted by {key}") for key, _ in SORT_CHOICES],
        ("/lists/io500/?sort=institution", "IO500 list sorted by institution"),
        ("/api/v1/lists/historic/?ordering=-score_per_node", "API historic list sorted by -score_per_node"),
        ("/api/v1/lists/historic/?ordering=institution", "API historic list sorted by institution"),
        (f"/runs/{run}/", "run page"),
        (f"/systems/{system}/", "system page"),
        (f"/systems/{busiest}/", "another system page"),
        (f"/compare/?runs={','.join(map(str, compared))}", "compare 3 runs"),
        ("/api/v1/lists/io500/", "API IO500 list"),
        ("/api/v1/lists/ten-node/?nodes_min=10&ordering=-bw", "API 10-node list, filtered and sorted"),
        ("/api/v1/lists/historic/?page=20", "API historic list, page 20"),
        ("/api/v1/runs/?page_size=50", "API runs"),
        (f"/api/v1/runs/{run}/", "API run detail"),
    ]
    if series:
        urls.append((f"/scaling/{series}/", "scaling series page"))
    custom = custom_list()
    urls += [
        (f"/lists/custom/{custom}/", "custom list"),
        (f"/lists/custom/{custom}/?page=20", "custom list, page 20"),
        (f"/api/v1/custom-lists/{custom}/", "API custom list"),
    ]
    study, stack = study_and_stack()
    release, audited_kind, published_pk = published_record()
    frozen = frozen_edition()
    submission = signed_in_upload()
    urls += [
        (f"/systems/{busiest}/history/", "system history"),
        ("/changes/feed/", "changes feed"),
        ("/scaling/", "scaling index"),
        ("/studies/", "studies index"),
        (f"/studies/{study}/", "study page"),
        ("/stacks/", "stacks index"),
        (f"/stacks/{stack}/", "stack page"),
        ("/editions/", "editions index"),
        (f"/editions/{frozen}/", "frozen edition (IO500 list)"),
        (f"/editions/{frozen}/io500/?sort=-bw", "frozen edition, sorted"),
        (f"/editions/{frozen}/awards/", "frozen edition's awards"),
        (f"/editions/{release}/", "published release as an edition"),
        (f"/published/{release}/", "published release"),
        (f"/published/{release}/{audited_kind}/", "published release's longest list"),
        (f"/published/{release}/changes/", "published release's change log"),
        (f"/published/{release}/{audited_kind}/audit/", "published list's audit"),
        ("/published/audit/", "published record's audit summary"),
        ("/api/v1/published-editions/", "API published editions"),
        (f"/api/v1/published-editions/{published_pk}/", "API published edition"),
        (f"/api/v1/published-editions/{published_pk}/changes/", "API published edition's change log"),
        (f"/api/v1/published-editions/{published_pk}/audit/", "API published edition's audit"),
        ("/api/v1/published-editions/audit-summary/", "API published audit summary"),
        ("/api/v1/published-entries/", "API published entries"),
        (f"/api/v1/published-entries/?release={release}", "API published entries of a release"),
        ("/api/v1/systems/", "API systems"),
        (f"/api/v1/systems/{busiest}/", "API system detail"),
        ("/api/v1/editions/", "API editions"),
        ("/api/v1/scaling-series/", "API scaling series"),
        ("/api/v1/studies/", "API studies"),
        ("/api/v1/stacks/", "API stacks"),
        ("/api/v1/changes/", "API changes"),
        ("/api/v1/rules-editions/", "API rules editions"),
        (f"/systems/{busiest}/changes/feed/", "system changes feed"),
        ("/lists/custom/check/?equation=sqrt(ior_easy_write*mdtest_easy_write)", "builder's live equation check"),
        ("/lists/custom/new/", "custom-list builder (signed in)"),
        ("/upload/", "upload page (signed in)"),
        ("/submissions/", "my submissions (signed in)"),
        (f"/submissions/{submission}/", "a submission's status (signed in)"),
        ("/account/", "account page (signed in)"),
        ("/account/tokens/", "API tokens page (signed in)"),
    ]
    return urls


#: The pages served only to a signed-in account: measured with the session of an ordinary account.
SIGNED_IN = ("/lists/custom/new/", "/upload/", "/submissions/", "/account/")
#: The ordinary account the signed-in pages are read as; it owns one upload (signed_in_upload).
READER = "bench-reader"
PUBLISHED_SUBMISSIONS = REPO_ROOT / "fixtures" / "demo-published"
PUBLISHED_RECORD = REPO_ROOT / "fixtures" / "io500-webpage-sql"
FROZEN_EDITION = "bench-frozen"


def published_record() -> tuple[str, str, int]:
    """io500.org's published record (fixtures/io500-webpage-sql) with the public submissions it links to
    (fixtures/demo-published), imported before anything is timed if the database has none, as `load_demo` does:
    synthetic seeding makes neither. Returns the release with the most rows, its longest list's kind and that
    list's edition pk."""
    from django.db.models import Count

    from apps.ingest.published.importer import import_published
    from apps.ingest.tools.io500.pipeline import ingest_path
    from apps.results.models import Edition

    published = Edition.objects.filter(source=Edition.Source.PUBLISHED)
    if not published.exists():
        started = time.monotonic()
        ingest_path(PUBLISHED_SUBMISSIONS)
        import_published(PUBLISHED_RECORD)
        print(f"published record imported in {time.monotonic() - started:.1f} s", flush=True)
    releases = published.values("name").annotate(rows=Count("entries")).order_by("-rows", "name")
    release = releases[0]["name"]
    longest = published.filter(name=release).annotate(rows=Count("entries")).order_by("-rows", "list_kind").first()
    return release, longest.list_kind, longest.pk


def frozen_edition() -> str:
    """The name of an edition frozen from the live IO500 list (every ranked system's best run), frozen before
    anything is timed if the database has none."""
    from apps.results.models import Edition
    from apps.results.services.editions import freeze_lists

    if not Edition.objects.filter(name=FROZEN_EDITION).exists():
        started = time.monotonic()
        freeze_lists(FROZEN_EDITION, ["io500"], title="bench: the IO500 list frozen")
        print(f"IO500 list frozen in {time.monotonic() - started:.1f} s", flush=True)
    return FROZEN_EDITION


def signed_in_upload() -> int:
    """The pk of the reader's one upload (tests/data/io500/bash-results, awaiting review, so no list shows it),
    received and ingested before anything is timed if the reader has none: its submissions page lists it."""
    from django.contrib.auth import get_user_model

    from apps.results.models import Upload

    reader, _ = get_user_model().objects.get_or_create(username=READER)
    upload = Upload.objects.filter(uploader=reader).order_by("pk").first()
    if upload is None:
        upload, _, _ = ingested_sample(READER_SAMPLE, reader, f"Bench reader {time.time_ns()}")
    return upload.pk


def ingested_sample(sample: Path, uploader, system: str) -> tuple:
    """A sample result directory received as an upload of ``uploader`` (as a new system) and ingested as an
    upload's ingest task does: the upload, its runs and the seconds the ingest took."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from apps.ingest.pipelines import ingest_upload
    from apps.ingest.uploads import receive_upload

    scratch = Path(tempfile.mkdtemp(prefix="ioboard-bench-upload-"))
    try:
        archive = shutil.make_archive(str(scratch / "upload"), "gztar", sample.parent, sample.name)
        name = f"bench-{time.time_ns()}.tar.gz"
        upload = receive_upload(
            SimpleUploadedFile(name, Path(archive).read_bytes()),
            name=name,
            kind="io500",
            uploader=uploader,
            metadata={"institution": "Bench Institute", "system": system},
        ).upload
        started = time.perf_counter()
        runs = ingest_upload(upload)
        return upload, runs, time.perf_counter() - started
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def study_and_stack() -> tuple[int, str]:
    """The pk of an IOR study and the name of a stack, the demo's (fixtures/demo-ior-study, fixtures/demo-stack),
    ingested before anything is timed if the database has none: synthetic seeding makes neither."""
    from apps.ingest.tools.ior.pipeline import ingest_ior_paths
    from apps.ingest.tools.stack.pipeline import ingest_paths as ingest_stack_paths
    from apps.results.models import Stack, Study

    if not Study.objects.exists():
        ingest_ior_paths([REPO_ROOT / "fixtures" / "demo-ior-study"], study_name="bench: demo IOR study")
    if not Stack.objects.exists():
        ingest_stack_paths([REPO_ROOT / "fixtures" / "demo-stack"], {"name": "bench-beacon"})
    return Study.objects.order_by("pk").values_list("pk", flat=True)[0], Stack.objects.order_by("pk")[0].name


def session_cookie() -> str:
    """A Cookie header of the signed-in reader (an ordinary account), for the pages only it is served."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(username=READER)
    browser = Client()
    browser.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"


def custom_list() -> str:
    """The token of a custom list over the Full list, saved (its values computed) before anything is timed."""
    from apps.results.models import CustomList
    from apps.results.services.custom_lists import complete, save_custom_list

    name, equation = "bench: easy write x easy write", "sqrt(ior_easy_write * mdtest_easy_write)"
    saved = CustomList.objects.filter(name=name, equation=equation, base_list="full").first()
    if saved is None:
        started = time.monotonic()
        saved = save_custom_list(name, equation, base_list="full")
        complete(saved.pk)  # what the fill task runs after the save, run here so it can be timed
        print(f"custom list saved and filled in {time.monotonic() - started:.1f} s", flush=True)
    return saved.token


def measure(base: str, urls: list[tuple[str, str]], rounds: int, warmup: int) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {url: [] for url, _ in urls}
    order = [url for url, _ in urls]
    signed_in = {"Cookie": session_cookie()}
    shuffler = random.Random(13)
    for round_number in range(warmup + rounds):
        shuffler.shuffle(order)
        for url in order:
            headers = signed_in if url.startswith(SIGNED_IN) else None
            status, _, seconds = client.http("GET", base + url, headers=headers, timeout=180)
            if status != 200:
                raise SystemExit(f"{url} answered {status}")
            if round_number >= warmup:
                timings[url].append(seconds * 1000)
    return timings


def reference_rank(score: float) -> int:
    """1 + storage systems with an accepted research run scoring higher (the IO500 list is the Research list
    since SC21): counted over runs, not list entries."""
    from datetime import UTC, datetime

    from apps.results.models import Run

    research = Run.objects.ranked().exclude(
        run_timestamp__gte=datetime(2021, 11, 1, tzinfo=UTC),
        production_accepted=True,
        reproducibility_level="fully_reproducible",
    )
    return 1 + research.filter(score_total__gt=score).values("system_id").distinct().count()


def _submitter():
    """A site submitter whose uploads are published without review, so the upload is ranked at once."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    user, _ = get_user_model().objects.get_or_create(username="bench-submitter")
    user.user_permissions.add(Permission.objects.get(codename="publish_without_review"))
    return user


def one_upload(base: str) -> dict:
    from apps.results.models import ListEntry
    from apps.results.services import list_entries
    from apps.results.services.runs import delete as delete_runs

    upload, runs, ingest_seconds = ingested_sample(SAMPLE, _submitter(), f"Bench {time.time_ns()}")
    run = runs[0]
    run.refresh_from_db()
    started = time.perf_counter()
    status, body, _ = client.http("GET", f"{base}/api/v1/lists/io500/?system={run.system_id}")
    first_read_ms = (time.perf_counter() - started) * 1000
    listed = json.loads(body)["results"] if status == 200 else []
    shown = next((row["rank"] for row in listed if row["run"] == run.pk), None)
    expected = reference_rank(run.score_total) if run.is_ranked else None
    maintenance = {}
    for kind in ListEntry.objects.filter(run=run).values_list("kind", flat=True):
        started = time.perf_counter()
        list_entries.refresh_statistics(kind)
        maintenance[kind] = time.perf_counter() - started
    delete_runs([run])
    upload.delete()
    return {
        "ingest_seconds": ingest_seconds,
        "first_read_ms": first_read_ms,
        "rank_shown": shown,
        "rank_expected": expected,
        "statistics_refresh_seconds": maintenance,
    }


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench cold_path", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100000)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--rounds", type=int, default=20, help="timed requests per URL")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="PATTERN",
        help="measure only the URLs matching a shell-style PATTERN ('/', '/stacks/*'; repeatable; /healthz is"
        " always measured) and skip the upload: before/after figures of a few pages on a seeded database",
    )
    output.add_json_option(parser)
    args = parser.parse_args(argv)
    if not args.database_url:
        raise SystemExit("give --database-url (a database of yours; it is seeded if it lacks the runs)")
    return args


@dataclass
class ColdRun:
    """What one run measured: each URL's timings (ms) and label, how the database was prepared, the load
    average either side of the timing, and the one upload (None with ``--only``)."""

    timings: dict[str, list[float]]
    urls: list[tuple[str, str]]
    prepared: dict
    autovacuum: str
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    upload: dict | None


def measure_on_a_server(args: argparse.Namespace) -> ColdRun:
    """Seed the database if it lacks the runs, start a private Redis and gunicorn with the page cache off, time
    every page (or those ``--only`` matches) next to /healthz, then one upload; stop both."""
    with in_process.django_on_private_redis(args.database_url, "ioboard-bench-cold-") as (scratch, redis_url):
        port, server = processes.free_port(), None
        try:
            prepared = prepare(args.database_url, args.runs)
            autovacuum = databases.psql("SHOW autovacuum", database=args.database_url.rsplit("/", 1)[1], capture=True)
            urls = [
                (url, label)
                for url, label in pages()
                if not args.only or url == "/healthz" or any(fnmatch.fnmatchcase(url, pattern) for pattern in args.only)
            ]
            env = {
                **prepared["env"],
                "REDIS_URL": redis_url,
                "IOBOARD_PAGE_CACHE_SECONDS": "0",
                "STATIC_ROOT": str(scratch / "static"),
            }
            processes.manage(["collectstatic", "--noinput", "-v", "0"], env=env, timeout=900)
            server = servers.gunicorn(port, env=env, log_dir=scratch, workers=args.workers, timeout=120)
            base = f"http://127.0.0.1:{port}"
            servers.wait_until_serving(base)
            load_before = os.getloadavg()
            timings = measure(base, urls, args.rounds, args.warmup)
            load_after = os.getloadavg()
            upload = None if args.only else one_upload(base)
        finally:
            if server:
                server.stop()
    return ColdRun(timings, urls, prepared, autovacuum, load_before, load_after, upload)


def bound_rows(cold: ColdRun) -> tuple[list[tuple[str, ...]], list[bool]]:
    """Each URL's median and p95 and their ratios to /healthz's; whether each is within the bound."""
    timings, urls = cold.timings, cold.urls
    floor_median = statistics.median(timings["/healthz"])
    floor_p95 = statistics.percentile(timings["/healthz"], 0.95)
    rows, verdicts = [], []
    for url, label in urls:
        median, p95 = statistics.median(timings[url]), statistics.percentile(timings[url], 0.95)
        within = median <= MEDIAN_BOUND * floor_median and p95 <= P95_BOUND * floor_p95
        verdicts.append(within)
        rows.append(
            (
                f"`{url}`",
                label,
                f"{median:.1f}",
                f"{p95:.1f}",
                f"{median / floor_median:.1f}x",
                f"{p95 / floor_p95:.1f}x",
                "yes" if within else "NO",
            )
        )
    return rows, verdicts


def report(args: argparse.Namespace, cold: ColdRun) -> None:
    """The table and what it was measured on, printed; the figures as JSON with ``--json``."""
    from apps.results.models import Run

    prepared, autovacuum, upload, timings, urls = cold.prepared, cold.autovacuum, cold.upload, cold.timings, cold.urls
    load_before, load_after = cold.load_before, cold.load_after
    rows, verdicts = bound_rows(cold)
    runs_total = Run.objects.count()
    table = output.table(
        [
            "URL",
            "page",
            "median ms",
            "p95 ms",
            "median / healthz",
            "p95 / healthz",
            f"within {MEDIAN_BOUND:.0f}x / {P95_BOUND:.0f}x",
        ],
        rows,
    )
    seeded = f"seed_synthetic took {prepared['seed_seconds']:.0f} s in this run; " if prepared["seed_seconds"] else ""
    body = (
        f"{runs_total:,} runs in PostgreSQL (autovacuum {autovacuum.strip()}; {seeded}no manual ANALYZE), gunicorn "
        f"{args.workers} sync workers, DEBUG off, page cache off (IOBOARD_PAGE_CACHE_SECONDS=0). {args.rounds} "
        f"rounds of one request per URL in shuffled order after {args.warmup} warm-up rounds, one client on "
        f"127.0.0.1. Load average (1/5/15 min) {'/'.join(f'{x:.1f}' for x in load_before)} before, "
        f"{'/'.join(f'{x:.1f}' for x in load_after)} after; the machine has {os.cpu_count()} CPUs shared with "
        f"other work.\n\n{table}\n\n"
        f"{sum(verdicts)} of {len(verdicts)} URLs within the bound.\n\n"
    )
    if upload:
        body += (
            f"One upload (tests/data/io500/capp-result-dir as a new system): ingest {upload['ingest_seconds']:.2f} s; "
            f"first read of the API IO500 list after it {upload['first_read_ms']:.1f} ms, showing rank "
            f"{upload['rank_shown']} (reference count over the run table: {upload['rank_expected']}). "
            f"Median refresh after it (a worker's task): "
            + ", ".join(f"{kind} {seconds:.2f} s" for kind, seconds in upload["statistics_refresh_seconds"].items())
            + ".\n"
        )
    print(body)
    output.write_json(
        args.json,
        {
            "runs": runs_total,
            "timings_ms": timings,
            "labels": dict(urls),
            "upload": upload,
            "seed_seconds": prepared["seed_seconds"],
            "load_before": load_before,
            "load_after": load_after,
        },
    )


def main(argv: list[str]) -> None:
    args = parse_arguments(argv)
    report(args, measure_on_a_server(args))
