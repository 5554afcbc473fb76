"""The rows of docs/performance.md: one entry per bench, the command it runs and the figures it reports.

``python -m bench report`` runs every registered row's command with ``--json FILE`` added, hands the JSON to
the row's ``figures`` function and writes one table. A row has a command per scale: ``small`` runs
in minutes on a 2-CPU machine (what the committed table shows unless it says otherwise), ``full``
is the size the targets are set at (100k runs, 1000 logs, 3 rounds) and takes much longer.

Adding a row: give the benchmark (registered by name in ``bench/registry.py``) a ``--json FILE`` option
(``bench.harness.output.add_json_option`` / ``write_json``), then register the row here with ``@row(...)``:
its name, what it measures, the benchmark it runs and its arguments per scale, what it needs (``postgres``,
``corpus``), and a function from the JSON to a list of ``Figure``; ``time_limits`` when its command may need
longer than ``TIME_LIMITS`` (the report ends a command that runs past its limit and shows the row as not measured).
Nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bench.harness import statistics
from rig.databases import database_prefix


@dataclass(frozen=True)
class Figure:
    """One measured number as the table shows it: what it is, its value with its unit."""

    label: str
    value: str


#: Seconds a row's command may run, per scale, before ``python -m bench report`` ends it (the row is then shown as
#: not measured, with that reason): several times what the slowest rows take on a 2-CPU host, so that only a command
#: that is stuck, not one that is slow, meets it.
TIME_LIMITS = {"small": 3600, "full": 4 * 3600}


@dataclass(frozen=True)
class BenchRow:
    name: str
    title: str
    benchmark: str  # its name in bench/registry.py
    arguments: dict[str, tuple[str, ...]]
    figures: Callable[[dict], list[Figure]]
    needs: tuple[str, ...] = field(default=())
    time_limits: dict[str, int] = field(default_factory=lambda: dict(TIME_LIMITS))

    def command(self, scale: str, prefix: str | None = None) -> list[str]:
        """The command as documented and run (``--json FILE`` is added when it runs), its databases named with
        ``prefix`` (``database_prefix()`` unless given)."""
        named = prefix or database_prefix()
        return [
            ".venv/bin/python",
            "-m",
            "bench",
            self.benchmark,
            *(argument.replace(PREFIX, named) for argument in self.arguments[scale]),
        ]


ROWS: dict[str, BenchRow] = {}

#: Where a row's arguments name a PostgreSQL database, its name starts with this placeholder, replaced by
#: ``database_prefix()`` when the command is run or documented.
PREFIX = "{database_prefix}"


def database(name: str) -> str:
    return f"{PREFIX}_{name}"


def database_url(name: str) -> str:
    return f"postgres://postgres@127.0.0.1:5432/{database(name)}"


def row(
    name: str,
    *,
    title: str,
    benchmark: str,
    small: tuple[str, ...],
    full: tuple[str, ...],
    needs: tuple[str, ...] = (),
    time_limits: dict[str, int] | None = None,
) -> Callable[[Callable[[dict], list[Figure]]], Callable[[dict], list[Figure]]]:
    """Register the decorated function as the figures of one bench row (``time_limits``: ``TIME_LIMITS`` unless
    given)."""

    def register(figures: Callable[[dict], list[Figure]]) -> Callable[[dict], list[Figure]]:
        if name in ROWS:
            raise ValueError(f"bench row {name!r} is registered twice")
        ROWS[name] = BenchRow(
            name=name,
            title=title,
            benchmark=benchmark,
            arguments={"small": small, "full": full},
            figures=figures,
            needs=needs,
            time_limits=dict(time_limits or TIME_LIMITS),
        )
        return figures

    return register


def _ms(value: float) -> str:
    return f"{value:.1f} ms"


def _ingest_against_floor(result: dict) -> list[Figure]:
    ratios = result["ratios"]
    return [
        Figure(
            f"ingest of {result['runs']} runs ({result['files']} files, {result['megabytes']:.1f} MB), "
            f"median of {result['rounds']}",
            f"{result['ingest_seconds']:.2f} s ({result['ingest_cpu_seconds']:.2f} s CPU)",
        ),
        Figure("read + regular expression floor, same files, same run", f"{result['floor_seconds']:.2f} s"),
        Figure(
            "ingest / floor, median (range) (target: within 5x)",
            f"{result['ratio_median']:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}x)",
        ),
        Figure("database queries per run", f"{result['queries_per_run']:.1f}"),
        Figure("ingest peak RSS (target: under 300 MiB)", f"{result['peak_rss_mib']:.0f} MiB"),
    ]


row(
    "ingest_corpus",
    title="IO500 corpus bulk ingest into PostgreSQL vs the read + regular expression floor of its files",
    benchmark="ingest_corpus",
    small=("--repeat", "3"),
    full=("--repeat", "5"),
    needs=("postgres", "corpus"),
)(_ingest_against_floor)

row(
    "ingest_corpus_x10",
    title=(
        "Generated IO500 tree ten times the corpus (each copy other systems' distinct results, `synth.io500_tree`) "
        "bulk ingest into PostgreSQL vs the read + regular expression floor of its files"
    ),
    benchmark="ingest_corpus",
    small=("--times", "10", "--repeat", "2"),
    full=("--times", "10", "--repeat", "5"),
    needs=("postgres", "corpus"),
)(_ingest_against_floor)


def _parallel_against_one(result: dict) -> list[Figure]:
    def each(key: str, workers: int) -> str:
        return ", ".join(f"{t[key]:.1f}" for t in result["timings"] if t["workers"] == workers)

    workers = result["workers"]
    return [
        Figure(
            "one process: the command's wall s each (median); the ingest itself, median",
            f"{each('wall_seconds', 1)} ({result['one_process_wall_seconds']:.1f}); "
            f"{result['one_process_ingest_seconds']:.1f}",
        ),
        Figure(
            f"--workers {workers}: the command's wall s each (median); the ingest itself, median",
            f"{each('wall_seconds', workers)} ({result['parallel_wall_seconds']:.1f}); "
            f"{result['parallel_ingest_seconds']:.1f}",
        ),
        Figure(f"--workers {workers} / one process, the command (target <= 0.67)", f"{result['ratio']:.2f}"),
        Figure(
            f"--workers {workers} / one process, the ingest itself (start-up left out)",
            f"{result['ingest_ratio']:.2f}",
        ),
        Figure(
            "CPU s each, one process | workers (every process of the command)",
            f"{each('cpu_seconds', 1)} | {each('cpu_seconds', workers)}",
        ),
        Figure("the same counts from both forms", "yes" if result["same_counts"] else "NO"),
    ]


row(
    "ingest_parallel",
    title="`ingest --workers 2` against one process, the IO500 corpus, alternately, whole command timed",
    benchmark="ingest_parallel",
    small=("--repeat", "3"),
    full=("--repeat", "5"),
    needs=("postgres", "corpus"),
)(_parallel_against_one)

row(
    "ingest_parallel_x10",
    title="`ingest --workers 2` against one process, the generated tree ten times the corpus, alternately",
    benchmark="ingest_parallel",
    small=("--times", "10", "--repeat", "2"),
    full=("--times", "10", "--repeat", "3"),
    needs=("postgres", "corpus"),
)(_parallel_against_one)


@row(
    "mdtest_ingest",
    title="mdtest ingest of a generated DNE scaling series (`manage.py ingest --kind mdtest`, SQLite)",
    benchmark="mdtest_ingest",
    small=("--logs", "200"),
    full=("--logs", "1000"),
)
def mdtest_ingest(result: dict) -> list[Figure]:
    logs = result["logs"]
    return [
        Figure(
            f"first ingest of {logs} logs ({result['points']} points), whole command",
            f"{result['first_seconds']:.1f} s = {logs / result['first_seconds']:.0f} logs/s",
        ),
        Figure("re-ingest, every log unchanged", f"{result['reingest_seconds']:.1f} s"),
    ]


@row(
    "ior_ingest",
    title="IOR ingest of a generated parameter study (`manage.py ingest --kind ior`, SQLite)",
    benchmark="ior_ingest",
    small=("--logs", "1000"),
    full=("--logs", "1000"),
)
def ior_ingest(result: dict) -> list[Figure]:
    logs = result["logs"]
    return [
        Figure(
            f"first ingest of {logs} IOR logs ({result['points']} points), whole command (target: under 30 s)",
            f"{result['first_seconds']:.1f} s = {logs / result['first_seconds']:.0f} logs/s",
        ),
        Figure("re-ingest, every log unchanged", f"{result['reingest_seconds']:.1f} s"),
        Figure(
            f"`export_study` with {result['comparisons']:,} pairwise comparisons", f"{result['export_seconds']:.1f} s"
        ),
    ]


@row(
    "list_latency",
    title="List pages over HTTP (gunicorn, DEBUG off), full render, next to /healthz",
    benchmark="list_latency",
    small=(
        "--runs",
        "1000",
        "--requests",
        "50",
        "--warmup",
        "5",
        "--cold-requests",
        "10",
    ),
    full=("--runs", "100000"),
    needs=("postgres",),
)
def list_latency(result: dict) -> list[Figure]:
    """Only the full renders (each request right after a data-version bump, so the page cache misses):
    speed figures are of the work a page does, not of a cache hit. /healthz is timed on the same server
    in the same run."""
    timings = {timing["url"]: timing for timing in result["timings"]}
    page, health = timings["/lists/io500/"], timings["/healthz"]
    figures = [
        Figure(
            f"`/lists/io500/` at {result['runs']:,} runs, median / p95",
            f"{_ms(page['cold_median'])} / {_ms(page['cold_p95'])}",
        ),
        Figure("`/healthz`, median / p95", f"{_ms(health['median'])} / {_ms(health['p95'])}"),
        Figure("`/lists/io500/` / `/healthz` (medians)", f"{page['cold_median'] / health['median']:.1f}x"),
    ]
    if "/api/v1/lists/io500/" in timings:
        api = timings["/api/v1/lists/io500/"]
        figures.append(
            Figure("`/api/v1/lists/io500/`, median / p95", f"{_ms(api['cold_median'])} / {_ms(api['cold_p95'])}")
        )
    return figures


COLD_PATH_SORTS = "historic list sorted by "  # the bench's label of each of the historic list's sorts


def cold_path(result: dict) -> list[Figure]:
    """Median / p95 of each URL and its ratio to /healthz's (the bound: 5x the median, 10x the p95). The
    historic list's 38 sorts are one figure, their range and the slowest of them; every other URL is its own."""
    timings, labels = result["timings_ms"], result.get("labels", {})
    floor_median = statistics.median(timings["/healthz"])
    floor_p95 = statistics.percentile(timings["/healthz"], 0.95)
    runs = f"{result['runs']:,} runs"

    def ratios(values: list[float]) -> tuple[float, float, float, float]:
        median, p95 = statistics.median(values), statistics.percentile(values, 0.95)
        return median, p95, median / floor_median, p95 / floor_p95

    figures = []
    sorts = {url: ratios(values) for url, values in timings.items() if labels.get(url, "").startswith(COLD_PATH_SORTS)}
    for url, values in timings.items():
        if url in sorts:
            continue
        median, p95, median_x, p95_x = ratios(values)
        figures.append(
            Figure(
                f"`{url}` at {runs}, median / p95 (x `/healthz`)",
                f"{_ms(median)} / {_ms(p95)} ({median_x:.1f}x / {p95_x:.1f}x)",
            )
        )
    if sorts:
        slowest = max(sorts, key=lambda url: sorts[url][2])
        low, high = min(value[2] for value in sorts.values()), max(value[2] for value in sorts.values())
        worst_p95 = max(value[3] for value in sorts.values())
        figures.append(
            Figure(
                f"the historic list's {len(sorts)} sorts at {runs}: medians / x `/healthz`; "
                f"slowest `{slowest}`; worst p95",
                f"{low:.1f}x to {high:.1f}x; {_ms(sorts[slowest][0])}; {worst_p95:.1f}x",
            )
        )
    within = sum(1 for _, _, median_x, p95_x in map(ratios, timings.values()) if median_x <= 5 and p95_x <= 10)
    figures.append(
        Figure(f"URLs within 5x (median) and 10x (p95) of `/healthz` at {runs}", f"{within} of {len(timings)}")
    )
    if result.get("seed_seconds"):
        figures.append(
            Figure(
                f"`manage.py seed_synthetic --runs {result['runs']}` into an empty database, run by "
                "the bench (target at 1M: under 10 minutes)",
                f"{result['seed_seconds']:.0f} s",
            )
        )
    upload = result["upload"]
    figures.append(
        Figure(
            f"one upload's ingest at {runs}; first read of the list after it",
            f"{upload['ingest_seconds']:.2f} s; {_ms(upload['first_read_ms'])}, rank "
            f"{upload['rank_shown']} (reference {upload['rank_expected']})",
        )
    )
    return figures


#: The cold path at 100k and 1M runs and the exports at 100k, the same at both scales: the sizes the read path's
#: acceptance is set at (a smaller database would not say whether a page grows with the data).
COLD_PATH_SCENARIO = ("--runs", "100000", "--rounds", "20", "--database-url", database_url("cold_100k"))
COLD_PATH_MILLION_SCENARIO = ("--runs", "1000000", "--rounds", "20", "--database-url", database_url("cold_1m"))
EXPORTS_SCENARIO = (
    "--runs", "100000", "--freeze-edition", "bench-exports", "--database-url", database_url("exports_100k"),
)  # fmt: skip


row(
    "cold_path",
    title="Every page over HTTP with the page cache off, next to /healthz (gunicorn, PostgreSQL, "
    "no manual ANALYZE), at 100k runs",
    benchmark="cold_path",
    small=COLD_PATH_SCENARIO,
    full=COLD_PATH_SCENARIO,
    needs=("postgres",),
)(cold_path)

# A million runs at both scales: the acceptance size of the read path. Seeding it takes about five minutes the
# first time; later reports find the database seeded and only measure.
row(
    "cold_path_million",
    title="The same at a million runs",
    benchmark="cold_path",
    small=COLD_PATH_MILLION_SCENARIO,
    full=COLD_PATH_MILLION_SCENARIO,
    needs=("postgres",),
)(cold_path)


def list_exports(result: dict) -> list[Figure]:
    """One figure per list (both formats), then the verdict: complete everywhere and the slowest request within
    a third of the worker timeout."""
    by_list: dict[str, list[dict]] = {}
    for export in result["exports"]:
        by_list.setdefault(export["label"], []).append(export)
    timeout = result["worker_timeout_seconds"]
    figures = [
        Figure(
            f"{label} at {result['runs']:,} runs: pages, rows received / in the database, total, slowest request",
            "; ".join(
                f"{export['fmt'].upper()} {len(export['seconds'])} pages, {export['rows']:,} / "
                f"{export['expected_rows']:,}, {sum(export['seconds']):.1f} s, {max(export['seconds']):.2f} s"
                + ("" if export["complete"] else " INCOMPLETE")
                for export in exports
            ),
        )
        for label, exports in by_list.items()
    ]
    complete = sum(export["complete"] for export in result["exports"])
    figures += [
        Figure(
            f"exports complete (every page 200, no run id missing or twice); slowest request / worker timeout "
            f"({result['page_rows']:,} rows a page; bound: {result['headroom']:.2g} of the timeout)",
            f"{complete} of {len(result['exports'])}; {result['slowest_seconds']:.2f} s / {timeout} s: "
            + ("PASS" if result["passed"] else "FAIL"),
        ),
        Figure(
            "load average (1, 5, 15 min) before / after: other engineers' work on the shared 2-CPU machine",
            f"{'/'.join(f'{x:.1f}' for x in result['load_before'])} / "
            f"{'/'.join(f'{x:.1f}' for x in result['load_after'])}",
        ),
    ]
    return figures


# At 100k runs at both scales: issue #40's acceptance size; fewer runs would not say whether a page nears the timeout.
row(
    "list_exports",
    title="Every list's CSV and JSON export followed to its last page over HTTP (gunicorn, its default timeout, "
    "page cache off), checked complete against the database",
    benchmark="list_exports",
    small=EXPORTS_SCENARIO,
    full=EXPORTS_SCENARIO,
    needs=("postgres",),
)(list_exports)


@row(
    "memory",
    title="Peak memory: largest corpus submission ingested as an upload; `export_runs` over seeded runs",
    benchmark="memory",
    small=("--runs", "1000"),
    full=("--runs", "10000,100000"),
    needs=("postgres", "corpus"),
)
def memory(result: dict) -> list[Figure]:
    figures = [
        Figure(
            f"upload ingest of `{item['folder']}` ({item['files']} files, {item['bytes'] / 1e6:.2f} MB): "
            "peak RSS, added by the ingest",
            f"{item['peak_rss_mib']:.0f} MiB, {item['peak_rss_mib'] - item['rss_before_mib']:.1f} MiB",
        )
        for item in result["ingest"] or []
    ]
    for export in result["exports"] or []:
        for fmt in ("json", "csv"):
            figures.append(
                Figure(
                    f"`export_runs --format {fmt}` of {export['runs']:,} runs: time, peak RSS",
                    f"{export[fmt]['wall']:.1f} s, {export[fmt]['peak_rss_mib']:.0f} MiB",
                )
            )
    return figures


@row(
    "concurrent_uploads",
    title="Concurrent API uploads, two Celery workers, PostgreSQL and Redis",
    benchmark="load_uploads",
    small=("--uploads", "20"),
    full=("--uploads", "50"),
    needs=("postgres", "corpus"),
)
def concurrent_uploads(result: dict) -> list[Figure]:
    return [
        Figure(
            f"{result['uploads']} uploads at once: first POST to last job done", f"{result['all_done_seconds']:.2f} s"
        ),
        Figure("POST latency, median", f"{result['post_median_seconds']:.2f} s"),
        Figure("end-to-end throughput", f"{result['runs_per_second']:.2f} runs/s"),
        Figure(
            "runs expected / stored; checks",
            f"{result['runs_expected']} / {result['runs_stored']}; "
            + ("all passed" if not result["failures"] else f"{len(result['failures'])} FAILED"),
        ),
    ]


#: The deadline scenario as deployed on one host (deadline_load's docstring).
DEADLINE_SCENARIO = (
    "--runs", "100000", "--readers", "32", "--uploads", "50", "--think", "1", "5", "--worker-nice", "19",
)  # fmt: skip


@row(
    "deadline_load",
    title="Readers during a deadline burst of uploads (gunicorn, two Celery workers, page cache off)",
    benchmark="load_deadline",
    small=DEADLINE_SCENARIO,
    full=DEADLINE_SCENARIO,
    needs=("postgres", "corpus"),
    # The same scenario at both scales: seeding 100k runs, then three bursts of at most its --timeout (1800 s) each.
    time_limits={"small": 7200, "full": 7200},
)
def deadline_load(result: dict) -> list[Figure]:
    """The scenario is defined at its size (32 readers at 100k runs, 50 uploads from 5 accounts), at both scales:
    fewer readers or runs would not say whether a deadline is survived.

    The readers are 32 people: each pauses 1 to 5 s between pages (locust's `between(1, 5)`) and they arrive
    over the first 5 s, not at one instant. The five accounts post at once, each its archives one after another.
    The Celery workers run at niceness 19 (`--worker-nice 19`, the workers' own default: docs/deployment.md).
    `python -m bench load_deadline` with `--think 0 0 --uploads-at-once --worker-nice 0` runs the harshest form
    (readers in a closed loop, every archive at the same instant, workers at the web's priority), where the
    readers' latency is the number of readers over the throughput (Little's law).

    The yardstick is the readers' own pages asked for one at a time on the same stack in the same run, before the
    bursts (their idle p95): what the uploads add to a page, not what the host costs an empty answer (`/healthz`,
    shown beside it)."""
    alone = result["pages_alone_p95_seconds"]
    bound = result["bound_x_pages_alone_p95"]
    think = result.get("think_seconds") or [0, 0]
    pauses = f"{think[0]:g} to {think[1]:g} s between pages" if think[1] else "no think time"
    bursts = result["bursts"]
    figures = [
        Figure(
            f"{result['readers']} readers at {result['runs']:,} runs, {pauses}: p95, the median of "
            f"{len(bursts)} bursts (x the same pages' idle p95; target {bound:g}x)",
            f"{result['readers_p95_seconds'] * 1e3:.1f} ms ({result['readers_p95_seconds'] / alone:.1f}x: "
            + ("met" if result["within_bound"] else "NOT met")
            + ")",
        ),
        Figure(
            "each burst's p95 (x the same pages' idle p95); bursts within the target",
            ", ".join(f"{burst['readers_p95_seconds'] / alone:.1f}x" for burst in bursts)
            + f"; {sum(burst['within_bound'] for burst in bursts)} of {len(bursts)}",
        ),
        Figure(
            "the readers' pages alone (one at a time, before the readers and uploads start), median / p95; "
            "idle `/healthz` median beside them",
            f"{result['pages_alone_median_seconds'] * 1e3:.1f} ms / {alone * 1e3:.1f} ms; "
            f"{result['healthz_median_seconds'] * 1e3:.1f} ms",
        ),
    ]
    if result.get("server"):
        server = result["server"]
        figures.append(
            Figure(
                "the same readers' pages as gunicorn timed them (request read to response written, no client): "
                "median / the bursts' median p95 (p95 x the pages alone p95 as gunicorn timed it)",
                f"{server['readers_median_seconds'] * 1e3:.1f} ms / {server['readers_p95_seconds'] * 1e3:.1f} ms "
                f"({server['readers_p95_seconds'] / server['pages_alone_p95_seconds']:.1f}x of "
                f"{server['pages_alone_p95_seconds'] * 1e3:.1f} ms)",
            )
        )
    figures += [
        Figure(
            f"reader errors; {len(bursts)} x {result['uploads']} uploads from 5 accounts, checks",
            f"{result['reader_errors']}; "
            + ("all passed" if not result["failures"] else f"{len(result['failures'])} FAILED"),
        ),
    ]
    if result.get("page_types"):
        figures.append(
            Figure(
                "p95 per page type (which pages make the readers' p95), as the readers saw it (as gunicorn timed it)",
                ", ".join(
                    f"/{kind}/ {page['p95_seconds'] * 1e3:.0f} ms"
                    + (f" ({page['server_p95_seconds'] * 1e3:.0f} ms)" if "server_p95_seconds" in page else "")
                    for kind, page in sorted(result["page_types"].items())
                ),
            )
        )
    if result.get("reading_seconds") and not think[1]:
        throughput = result["reader_requests"] / result["reading_seconds"]
        target = bound * alone
        figures.append(
            Figure(
                f"readers' throughput X and the mean latency it makes for {result['readers']} closed-loop readers "
                f"(N / X); CPU per request on {result['cpus']} CPUs, measured / what a {target * 1e3:.0f} ms target "
                "would allow (N / X <= target)",
                f"{throughput:.0f} requests/s, {result['readers'] / throughput * 1e3:.0f} ms; "
                f"{result['cpus'] / throughput * 1e3:.1f} ms / "
                f"{result['cpus'] * target / result['readers'] * 1e3:.1f} ms",
            )
        )
    figures.append(
        Figure(
            "load average (1, 5, 15 min) before / after: other engineers' work on the shared 2-CPU machine",
            f"{result.get('load_before', 'n/a')} / {result.get('load_after', 'n/a')}",
        )
    )
    return figures
