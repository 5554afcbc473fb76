"""List page and API latency against /healthz at 1k, 10k and 100k runs: the ratio, and every query's plan.

    .venv/bin/python -m bench list_scaling [--sizes 1000,10000,100000] [--requests 200] [--json FILE]

For each size N this runs ``python -m bench list_latency --runs N`` (seeding a database of its own,
ioboard_scale_N, serving it with gunicorn and timing every URL next to /healthz on the same server
in the same run; that script prints the EXPLAIN of the list query), reads its table, and then, in a
child process against the same database, captures every SQL statement each list URL runs, EXPLAINs
it (ANALYZE) and looks for a sequential scan of the run table (``results_run``), and splits the
in-process time of a request into database time and the rest (view and template). The printed summary
holds, per size: median and p95 of the list page, the API list and /healthz, the two ratios to
/healthz, queries per request, and whether any plan scans ``results_run`` sequentially.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import time

import rig
from bench.harness import in_process, output, statistics, timing
from rig import REPO_ROOT, databases, processes

LIST = "/lists/io500/"
API = "/api/v1/lists/io500/"
HEALTH = "/healthz"
CHECKED = [
    LIST,
    "/lists/io500/?filesystem=Lustre&nodes_min=10&sort=-bw",
    "/lists/ten-node/",
    "/lists/historic/?page=20",
    API,
]
SEQ_SCAN_ON_RUNS = re.compile(r"Seq Scan on results_run\b(?!\w)")
TARGET_RATIO = 3.0


def parse_table(stdout: str) -> dict[str, dict]:
    """list_latency's Markdown table: URL -> median, p95 (ms) and queries."""
    rows = {}
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and cells[0].startswith("`/"):
            number = lambda text: float(text.replace(",", ""))  # noqa: E731
            rows[cells[0].strip("`")] = {
                "median": number(cells[2]),
                "p95": number(cells[3]),
                "queries": int(number(cells[5])),
                "cold_median": number(cells[7]),
                "cold_p95": number(cells[8]),
            }
    return rows


def child_explain(database_url: str) -> dict:
    """Every query of every checked URL, EXPLAINed; database time vs the rest, in-process."""
    in_process.django_setup(database_url)
    from django.conf import settings
    from django.test import Client
    from django.test.utils import override_settings

    # Plain static storage: this process renders pages without a collected manifest.
    storages = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    with override_settings(STORAGES=storages):
        return explain_urls(Client(SERVER_NAME="127.0.0.1"))


def explain_urls(browser) -> dict:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    found = {}
    for url in CHECKED:
        browser.get(url)  # warm caches and connections
        with CaptureQueriesContext(connection) as captured:
            response = browser.get(url)
        if response.status_code != 200:
            found[url] = {"status": response.status_code}
            continue
        statements = [query["sql"] for query in captured.captured_queries]  # before the next request resets them
        seq_scans, plans = [], []
        for sql in statements:
            if not sql.lstrip().upper().startswith("SELECT"):
                continue
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql)
                plan = "\n".join(row[0] for row in cursor.fetchall())
            plans.append(plan)
            if SEQ_SCAN_ON_RUNS.search(plan):
                seq_scans.append(sql[:300])
        totals, db_times = [], []
        for _ in range(20):
            spent = {"db": 0.0}

            def timed(execute, sql, params, many, context, spent=spent):
                started = time.perf_counter()
                try:
                    return execute(sql, params, many, context)
                finally:
                    spent["db"] += time.perf_counter() - started

            started = time.perf_counter()
            with connection.execute_wrapper(timed):
                browser.get(url)
            totals.append((time.perf_counter() - started) * 1000)
            db_times.append(spent["db"] * 1000)
        found[url] = {
            "queries": len(statements),
            "seq_scans_on_runs": seq_scans,
            "inprocess_ms": statistics.median(totals),
            "db_ms": statistics.median(db_times),
        }
    runs = connection.cursor()
    runs.execute("SELECT count(*) FROM results_run")
    found["_runs"] = runs.fetchone()[0]
    return found


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench list_scaling", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--keep-db", action="store_true", help="keep the ioboard_scale_N databases")
    output.add_json_option(parser)
    parser.add_argument("--child-explain", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_explain:
        print(json.dumps(child_explain(args.child_explain)))
        return
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    if any(not 1 <= size <= 1_000_000 for size in sizes):
        raise SystemExit("sizes must be between 1 and 1,000,000")

    results = []
    for size in sizes:
        database = f"ioboard_scale_{size}"
        url = databases.database_url(database)
        print(f"== {size} runs", flush=True)
        argv = [
            rig.PYTHON,
            "-m",
            "bench",
            "list_latency",
            "--runs",
            str(size),
            "--requests",
            str(args.requests),
            "--database-url",
            url,
        ]
        done = subprocess.run(
            argv, cwd=REPO_ROOT, env=processes.child_env(), capture_output=True, text=True, timeout=7200, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"bench list_latency --runs {size} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
        timings = parse_table(done.stdout)
        explained = timing.run_measured(
            [rig.PYTHON, "-m", "bench", "list_scaling", "--child-explain", url], timeout=1800
        )
        if explained.returncode != 0:
            raise SystemExit(f"explain child failed:\n{explained.stderr[-4000:]}")
        results.append({"size": size, "timings": timings, "explained": explained.json()})
        print(json.dumps(results[-1], indent=1)[:3000], flush=True)
        if not args.keep_db:
            databases.drop_database(database)
    report(results, args)


def report(results: list[dict], args) -> None:
    rows, plans, verdicts = [], [], []
    for result in results:
        t, e = result["timings"], result["explained"]
        health = t[HEALTH]["median"]
        list_ratio, api_ratio = t[LIST]["median"] / health, t[API]["median"] / health
        seq = sorted({url for url in CHECKED if e.get(url, {}).get("seq_scans_on_runs")})
        rows.append(
            [
                f"{e['_runs']:,}",
                f"{t[LIST]['median']:.1f} / {t[LIST]['p95']:.1f}",
                f"{t[API]['median']:.1f} / {t[API]['p95']:.1f}",
                f"{health:.2f} / {t[HEALTH]['p95']:.2f}",
                f"{list_ratio:.1f}x",
                f"{api_ratio:.1f}x",
                f"{t[LIST]['cold_median']:.1f} / {t[LIST]['cold_p95']:.1f}",
                f"{t[API]['cold_median']:.1f} / {t[API]['cold_p95']:.1f}",
                f"{t[LIST]['cold_median'] / health:.1f}x",
                f"{t[LIST]['queries']} / {t[API]['queries']}",
                f"{e[LIST]['db_ms']:.1f} of {e[LIST]['inprocess_ms']:.1f}",
                "none" if not seq else "on " + ", ".join(seq),
            ]
        )
        verdicts.append((result["size"], list_ratio, t[LIST]["cold_median"] / health))
        for url in CHECKED:
            info = e.get(url, {})
            scans = len(info.get("seq_scans_on_runs", [])) if "queries" in info else f"HTTP {info.get('status')}"
            plans.append(
                [
                    f"{e['_runs']:,}",
                    f"`{url}`",
                    info.get("queries", "-"),
                    f"{info.get('db_ms', float('nan')):.1f}",
                    f"{info.get('inprocess_ms', float('nan')):.1f}",
                    scans,
                ]
            )
    text = output.table(
        [
            "runs",
            "list median / p95 ms",
            "API list median / p95 ms",
            "/healthz median / p95 ms",
            "list / healthz",
            "API / healthz",
            "list after a write median / p95 ms",
            "API after a write median / p95 ms",
            "list after a write / healthz",
            "queries list / API (render)",
            "list DB ms of in-process ms",
            "seq scan of results_run",
        ],
        rows,
    )
    detail = output.table(
        ["runs", "URL", "queries", "DB ms (median)", "in-process ms (median)", "plans with a seq scan of results_run"],
        plans,
    )
    offenders = [
        f"- {result['size']:,} runs, `{url}`: `{sql[:160]}…`"
        for result in results
        for url in CHECKED
        for sql in result["explained"].get(url, {}).get("seq_scans_on_runs", [])
    ]
    largest_size, largest_ratio, largest_cold = verdicts[-1]
    met = largest_ratio < TARGET_RATIO
    body = (
        "Latency over HTTP from `python -m bench list_latency` (gunicorn, DEBUG off, Redis cache and page cache on "
        f"as in production, the same server and run for the list and /healthz, {args.requests} sequential "
        "requests per URL; 'after a write' = each request right after a data-version bump, a full render); "
        "the ratio is of warm reads, what readers get between writes. bench list_latency prints the "
        "EXPLAIN ANALYZE of the ranking query per size. Query plans and the DB/rest split below come from a child "
        "process that captured every SQL statement of each URL and EXPLAINed it (ANALYZE) against the same "
        "database.\n\n"
        f"{text}\n\nPer URL (in-process, Django test client, median of 20):\n\n{detail}\n\n"
        + (
            "Statements whose plan scans results_run sequentially:\n\n" + "\n".join(offenders) + "\n\n"
            if offenders
            else "No statement of these URLs scans results_run sequentially at any size.\n\n"
        )
        + f"**{largest_size:,} runs: list / healthz = {largest_ratio:.1f}x; target under {TARGET_RATIO:.0f}x: "
        f"{'met' if met else 'NOT met'}.** The first read after a write renders the page: "
        f"{largest_cold:.1f}x /healthz at {largest_size:,} runs.\n"
    )
    print(body)
    output.write_json(args.json, {"sizes": results})
