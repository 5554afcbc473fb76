"""Every list's export followed page by page to its last, checked complete against the database, each request timed.

    .venv/bin/python -m bench list_exports --runs 100000 --database-url postgres://postgres@127.0.0.1:5432/NAME

Issue #40's acceptance: every published list exports completely at 100k runs, with no request holding a worker
past its timeout. The database is prepared as for cold_path (created, migrated, seeded with
`manage.py seed_synthetic --replace --runs N` unless it holds exactly N synthetic runs); a custom list over the
Full list is saved and filled if none is (cold_path's), and with `--freeze-edition NAME` every list is frozen
as edition NAME when no edition is present, so the edition exports are read at the same size.

gunicorn serves the site as deployed: DEBUG off, the page cache off (IOBOARD_PAGE_CACHE_SECONDS=0), sync
workers with the timeout the image runs them with (docker/Dockerfile passes none, so gunicorn's default, read
from gunicorn itself) and the export page size of the settings (IOBOARD_EXPORT_PAGE_ROWS).

For every live list of the registry (apps.results.models.list_kinds.LIST_KINDS), every edition list present and
every custom list, in CSV and in JSON, the client asks for the first page and follows each `Link: rel="next"`
to the last, timing each request to its last byte. Completeness is checked against the database, read
directly (the list's entries by `values_list`, not through the export code): the rows received equal the list's
entries, no run id twice, none missing, none extra, every page answered 200. The verdict passes when every
list is complete and the slowest request took at most a third of the worker timeout (`HEADROOM`).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import time
from collections import Counter
from dataclasses import asdict, dataclass, field

from bench.harness import in_process, output
from bench.pages.cold_path import custom_list, prepare
from rig import client, databases, processes, servers

#: A request passes when it took at most this share of the worker timeout: a loaded host (a deadline) may run
#: it several times slower than the bench's did.
HEADROOM = 1 / 3
NEXT_LINK = re.compile(r'<([^>]+)>;\s*rel="next"')


@dataclass
class ExportRun:
    """One list's export in one format, followed to its last page, and what the database says it holds."""

    label: str
    url: str
    fmt: str
    expected_rows: int
    statuses: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    rows_per_page: list[int] = field(default_factory=list)
    duplicates: int = 0
    missing: int = 0
    extra: int = 0

    @property
    def rows(self) -> int:
        return sum(self.rows_per_page)

    @property
    def complete(self) -> bool:
        return (
            self.rows == self.expected_rows
            and not (self.duplicates or self.missing or self.extra)
            and all(status == 200 for status in self.statuses)
        )


def worker_timeout() -> int:
    """The timeout docker/Dockerfile's gunicorn runs with: it passes no --timeout, so gunicorn's own default."""
    from gunicorn.config import Config

    return Config().timeout


def exports_to_follow() -> list[tuple[str, str, list]]:
    """(label, path without the format, the run ids the database lists) of every live list, edition list and
    custom list present."""
    from apps.results.models import CustomList, CustomListEntry, Edition, EditionEntry, ListEntry
    from apps.results.models.list_kinds import LIST_KINDS

    found = [
        (
            f"live {kind}",
            f"/lists/{kind}/export",
            list(ListEntry.objects.filter(kind=kind).values_list("run_id", flat=True)),
        )
        for kind in LIST_KINDS
    ]
    for edition in Edition.objects.order_by("name", "list_kind"):
        runs = list(EditionEntry.objects.filter(edition=edition).values_list("run_id", flat=True))
        found.append(
            (
                f"edition {edition.name} {edition.list_kind}",
                f"/editions/{edition.name}/{edition.list_kind}/export",
                runs,
            )
        )
    for custom in CustomList.objects.order_by("pk"):
        runs = list(CustomListEntry.objects.filter(custom_list=custom).values_list("run_id", flat=True))
        found.append((f"custom {custom.name} (over {custom.base_list})", f"/lists/custom/{custom.token}/export", runs))
    return found


def page_run_ids(body: bytes, fmt: str, id_field: str) -> list:
    """The run ids of one export page: the `id` (live, custom) or `run_id` (edition) of each row; an edition row
    whose run was deleted has none (None)."""
    if fmt == "json":
        return [row[id_field] for row in json.loads(body)["rows"]]
    rows = csv.DictReader(io.StringIO(body.decode("utf-8")))
    return [int(row[id_field]) if row[id_field] else None for row in rows]


def follow(base: str, label: str, path: str, fmt: str, expected: list, timeout: int) -> ExportRun:
    """Ask for page 1 and follow every next link; compare the run ids received with `expected`."""
    run = ExportRun(label=label, url=f"{path}.{fmt}", fmt=fmt, expected_rows=len(expected))
    id_field = "run_id" if label.startswith("edition") else "id"
    received: list = []
    url: str | None = f"{base}{path}.{fmt}"
    while url:
        # The client waits past the worker timeout, so a request gunicorn kills shows as what it is.
        answer = client.http_answer("GET", url, timeout=timeout * 2)
        run.statuses.append(answer.status)
        run.seconds.append(answer.seconds)
        if answer.status != 200:
            print(f"  {url} answered {answer.status}", flush=True)
            break
        ids = page_run_ids(answer.body, fmt, id_field)
        run.rows_per_page.append(len(ids))
        received += ids
        link = NEXT_LINK.search(answer.headers.get("Link") or "")
        url = link.group(1) if link else None
    run.duplicates, run.missing, run.extra = differences(received, expected)
    return run


def differences(received: list, expected: list) -> tuple[int, int, int]:
    """(duplicates, missing, extra): rows received more often than the database lists their run, rows the
    database lists that never came, rows of runs it does not list at all."""
    got, wanted = Counter(received), Counter(expected)
    duplicates = sum(n - wanted[run_id] for run_id, n in got.items() if n > wanted[run_id] > 0)
    extra = sum(n for run_id, n in got.items() if run_id not in wanted)
    return duplicates, sum((wanted - got).values()), extra


def passes(exports: list[ExportRun], timeout: float) -> bool:
    """Every export complete, and no request took more than HEADROOM of the worker timeout."""
    slowest = max(max(export.seconds, default=0) for export in exports)
    return all(export.complete for export in exports) and slowest <= HEADROOM * timeout


def freeze_edition_if_none(name: str | None) -> float | None:
    """Freeze every list as edition `name` when no edition is present; the seconds it took (None if not frozen)."""
    from apps.results.models import Edition
    from apps.results.services.editions import freeze_lists

    if not name or Edition.objects.exists():
        return None
    started = time.monotonic()
    freeze_lists(name, title="bench: every list frozen for list_exports")
    seconds = time.monotonic() - started
    print(f"edition {name} frozen (every list) in {seconds:.1f} s", flush=True)
    return seconds


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench list_exports", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100000)
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""))
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    parser.add_argument(
        "--freeze-edition", metavar="NAME", help="freeze every list as edition NAME first, when no edition is present"
    )
    output.add_json_option(parser)
    args = parser.parse_args(argv)
    if not args.database_url:
        raise SystemExit("give --database-url (a database of yours; it is seeded if it lacks the runs)")
    return args


def measure(args: argparse.Namespace) -> dict:
    """Prepare the database, start a private Redis and gunicorn, follow every export; stop both."""
    with in_process.django_on_private_redis(args.database_url, "ioboard-bench-exports-") as (scratch, redis_url):
        port, server = processes.free_port(), None
        timeout = worker_timeout()
        try:
            prepared = prepare(args.database_url, args.runs)
            custom_list()
            frozen_seconds = freeze_edition_if_none(args.freeze_edition)
            autovacuum = databases.psql("SHOW autovacuum", database=args.database_url.rsplit("/", 1)[1], capture=True)
            from django.conf import settings

            from apps.results.models import Run

            env = {**prepared["env"], "REDIS_URL": redis_url, "IOBOARD_PAGE_CACHE_SECONDS": "0"}
            server = servers.gunicorn(port, env=env, log_dir=scratch, workers=args.workers, timeout=timeout)
            base = f"http://127.0.0.1:{port}"
            servers.wait_until_serving(base)
            load_before = os.getloadavg()
            exports = []
            for label, path, expected in exports_to_follow():
                for fmt in ("csv", "json"):
                    followed = follow(base, label, path, fmt, expected, timeout)
                    exports.append(followed)
                    print(
                        f"{followed.url}: {len(followed.seconds)} pages, "
                        f"{followed.rows} rows of {followed.expected_rows}, "
                        f"{sum(followed.seconds):.1f} s, slowest {max(followed.seconds):.2f} s, "
                        + ("complete" if followed.complete else "INCOMPLETE"),
                        flush=True,
                    )
            load_after = os.getloadavg()
            runs_total = Run.objects.count()
            page_rows = settings.IOBOARD_EXPORT_PAGE_ROWS
        finally:
            if server:
                server.stop()
    slowest = max(max(export.seconds) for export in exports)
    return {
        "runs": runs_total,
        "workers": args.workers,
        "worker_timeout_seconds": timeout,
        "headroom": HEADROOM,
        "page_rows": page_rows,
        "seed_seconds": prepared["seed_seconds"],
        "edition_freeze_seconds": frozen_seconds,
        "autovacuum": autovacuum.strip(),
        "load_before": load_before,
        "load_after": load_after,
        "exports": [{**asdict(export), "complete": export.complete, "rows": export.rows} for export in exports],
        "slowest_seconds": slowest,
        "passed": passes(exports, timeout),
    }


def report(result: dict) -> None:
    rows = [
        (
            export["label"],
            f"`{export['url']}`",
            len(export["seconds"]),
            f"{export['rows']:,} / {export['expected_rows']:,}",
            f"{sum(export['seconds']):.1f}",
            f"{max(export['seconds']):.2f}",
            "yes" if export["complete"] else "NO",
        )
        for export in result["exports"]
    ]
    table = output.table(
        ["list", "export", "pages", "rows received / in the database", "total s", "slowest request s", "complete"],
        rows,
    )
    timeout = result["worker_timeout_seconds"]
    print(
        f"{result['runs']:,} runs in PostgreSQL (autovacuum {result['autovacuum']}), gunicorn {result['workers']} "
        f"sync workers, timeout {timeout} s, DEBUG off, page cache off, {result['page_rows']} rows per export page. "
        f"Load average (1/5/15 min) {'/'.join(f'{x:.1f}' for x in result['load_before'])} before, "
        f"{'/'.join(f'{x:.1f}' for x in result['load_after'])} after; {os.cpu_count()} CPUs shared with other "
        f"work.\n\n{table}\n\nSlowest request {result['slowest_seconds']:.2f} s of a {timeout} s worker timeout "
        f"(bound: {HEADROOM * timeout:.0f} s). Verdict: {'PASS' if result['passed'] else 'FAIL'}.\n"
    )


def main(argv: list[str]) -> int:
    args = parse_arguments(argv)
    result = measure(args)
    report(result)
    output.write_json(args.json, result)
    return 0 if result["passed"] else 1
