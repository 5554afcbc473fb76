"""Peak memory: the ingest of the largest corpus submission, and an export of 100k seeded runs.

    .venv/bin/python -m bench memory [--corpus DIR] [--runs 10000,100000] [--db ioboard_bench_memory]
        [--json FILE]

1. The largest submission folder of the corpus (by bytes) is packed as a .tar.gz with its
   Institution/System/Filesystem/Year/submission-N path, stored as an Upload and ingested with
   ``ingest_upload`` (what a Celery worker runs: safe extraction, parse, one transaction) in a child
   process. Reported: that process's peak RSS, next to the same process's RSS just before the
   ingest started (Django loaded, upload fetched), so the difference is what the ingest itself adds.
2. ``seed_synthetic`` fills a fresh PostgreSQL database up to each size in --runs (incrementally),
   and at each size ``manage.py export_runs`` writes JSON and CSV to a file in a child process.
   Reported: seeding time, export wall time, output size and peak RSS. A flat RSS from 10k to 100k
   runs shows the export streams rather than loading every run.

Every child runs with DEBUG=0 (no query log) against 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import tarfile
import tempfile
import time
from pathlib import Path

import rig
from bench.harness import ingestion, output, timing
from rig import databases


def vm_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def submissions(corpus: Path) -> list[tuple[int, Path]]:
    """(bytes, folder) of every submission-N folder, largest first."""
    found = []
    for folder in corpus.rglob("submission-*"):
        if folder.is_dir():
            found.append((sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()), folder))
    return sorted(found, key=lambda item: (-item[0], str(item[1])))


def pack(folder: Path, corpus: Path, destination: Path) -> Path:
    """A .tar.gz of the folder under its path inside the corpus (the layout carries the metadata)."""
    with tarfile.open(destination, "w:gz") as archive:
        archive.add(folder, arcname=str(folder.relative_to(corpus)))
    return destination


def child_upload_ingest(archive: Path) -> dict:
    import django

    django.setup()
    from django.core.files import File

    from apps.ingest.tools.io500.pipeline import ingest_upload
    from apps.results.models import Run, Upload

    with open(archive, "rb") as handle:
        sha256 = Upload.hash_file(handle)
        upload = Upload(sha256=sha256, original_name=archive.name, size=archive.stat().st_size)
        upload.file.save(f"{sha256}.tar.gz", File(handle), save=True)
    upload = Upload.objects.get(pk=upload.pk)
    before = vm_rss_mib()
    started = time.perf_counter()
    runs = ingest_upload(upload)
    wall = time.perf_counter() - started
    return {"rss_before_mib": before, "wall": wall, "runs": len(runs), "stored": Run.objects.count()}


def measure_largest_submission(corpus: Path, database: str, scratch: Path) -> list[dict]:
    """The largest submission, and for scale the whole corpus sent as one upload."""
    _, folder = submissions(corpus)[0]
    results = [
        measure_upload_ingest(
            folder, corpus, pack(folder, corpus, scratch / f"{folder.name}.tar.gz"), database, scratch
        )
    ]
    whole = scratch / "whole-corpus.tar.gz"
    with tarfile.open(whole, "w:gz") as archive:
        for child in sorted(corpus.iterdir()):
            archive.add(child, arcname=child.name)
    results.append(
        measure_upload_ingest(corpus, corpus, whole, database, scratch, label="the whole corpus, one upload")
    )
    return results


def measure_upload_ingest(
    folder: Path, corpus: Path, archive: Path, database: str, scratch: Path, label: str | None = None
) -> dict:
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    url = databases.fresh_database(database)
    media = scratch / "media"
    # The whole corpus as one upload is past the runs-per-upload cap an account meets (IOBOARD_UPLOAD_MAX_RUNS):
    # lifted here, as an administrator ingesting it would, since its memory at that size is what is measured.
    measured = timing.run_measured(
        [rig.PYTHON, "-m", "bench", "memory", "--child-upload", str(archive)],
        env={"DATABASE_URL": url, "MEDIA_ROOT": str(media), "IOBOARD_UPLOAD_MAX_RUNS": "100000"},
        timeout=1800,
    )
    if measured.returncode != 0:
        raise RuntimeError(f"upload ingest child failed:\n{measured.stderr[-4000:]}")
    result = measured.json()
    files = sum(1 for p in folder.rglob("*") if p.is_file())
    return {
        "folder": label or str(folder.relative_to(corpus)),
        "bytes": size,
        "files": files,
        "archive_bytes": archive.stat().st_size,
        "peak_rss_mib": measured.peak_rss_mib,
        **result,
    }


def measure_exports(sizes: list[int], database: str, scratch: Path) -> list[dict]:
    url = databases.fresh_database(database)
    env = {"DATABASE_URL": url}
    baseline = timing.run_measured([rig.PYTHON, "manage.py", "check"], env=env, timeout=300)
    rows, seeded = [], 0
    for size in sizes:
        seed = timing.run_measured(
            [rig.PYTHON, "manage.py", "seed_synthetic", "--runs", str(size - seeded)], env=env, timeout=3600
        )
        if seed.returncode != 0:
            raise RuntimeError(f"seed_synthetic failed:\n{seed.stderr[-4000:]}")
        count = int(databases.psql("SELECT count(*) FROM results_run", database=database, capture=True).strip())
        row = {
            "runs": count,
            "seeded": size - seeded,
            "seed_wall": seed.wall,
            "seed_rss_mib": seed.peak_rss_mib,
            "baseline_rss_mib": baseline.peak_rss_mib,
        }
        seeded = size
        for fmt in ("json", "csv"):
            export_file = scratch / f"export-{size}.{fmt}"
            export = timing.run_measured(
                [rig.PYTHON, "manage.py", "export_runs", "--format", fmt, "-o", str(export_file)], env=env, timeout=3600
            )
            if export.returncode != 0:
                raise RuntimeError(f"export_runs failed:\n{export.stderr[-4000:]}")
            if fmt == "json":
                exported = len(json.loads(export_file.read_text()))
            else:
                with open(export_file) as handle:
                    exported = sum(1 for _ in handle) - 1
            row[fmt] = {
                "wall": export.wall,
                "peak_rss_mib": export.peak_rss_mib,
                "bytes": export_file.stat().st_size,
                "exported": exported,
            }
            export_file.unlink()
        rows.append(row)
        print(
            f"{count} runs: seeded in {seed.wall:.1f} s; export json {row['json']['wall']:.1f} s "
            f"{row['json']['peak_rss_mib']:.0f} MiB, csv {row['csv']['wall']:.1f} s "
            f"{row['csv']['peak_rss_mib']:.0f} MiB"
        )
    return rows


def main(argv: list[str]) -> int | None:
    parser = argparse.ArgumentParser(prog="python -m bench memory", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ingestion.CORPUS)
    parser.add_argument("--runs", default="10000,100000", help="comma-separated run counts to export at")
    parser.add_argument("--db", default="ioboard_bench_memory")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-export", action="store_true")
    parser.add_argument("--keep-db", action="store_true")
    output.add_json_option(parser)
    parser.add_argument("--child-upload", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_upload:
        print(json.dumps(child_upload_ingest(args.child_upload)))
        return
    sizes = sorted({int(s) for s in args.runs.split(",") if s.strip()})
    if any(size < 1 or size > 1_000_000 for size in sizes):
        raise SystemExit("--runs sizes must be between 1 and 1,000,000")

    ingest = exports = None
    with tempfile.TemporaryDirectory(prefix="ioboard-bench-memory-") as scratch:
        try:
            if not args.skip_ingest:
                ingest = measure_largest_submission(args.corpus.resolve(), args.db, Path(scratch))
            if not args.skip_export:
                exports = measure_exports(sizes, args.db, Path(scratch))
        finally:
            if not args.keep_db:
                databases.drop_database(args.db)
    report(ingest, exports, args)


def report(ingest: dict | None, exports: list[dict] | None, args) -> None:
    parts = []
    if ingest:
        text = output.table(
            [
                "upload",
                "files",
                "MB",
                ".tar.gz MB",
                "runs",
                "ingest s",
                "RSS before MiB",
                "peak RSS MiB",
                "added by the ingest MiB",
            ],
            [
                [
                    i["folder"],
                    i["files"],
                    i["bytes"] / 1e6,
                    i["archive_bytes"] / 1e6,
                    i["runs"],
                    i["wall"],
                    i["rss_before_mib"],
                    i["peak_rss_mib"],
                    i["peak_rss_mib"] - i["rss_before_mib"],
                ]
                for i in ingest
            ],
        )
        parts.append(
            "Ingest of the largest corpus submission (by bytes) as an upload, the way a Celery worker runs "
            "it (`ingest_upload`: safe extraction, parse, one transaction), each in a fresh process and "
            "database; the whole corpus as a single upload is shown for scale:\n\n" + text
        )
    if exports:
        rows = []
        for row in exports:
            for fmt in ("json", "csv"):
                rows.append(
                    [
                        row["runs"],
                        fmt,
                        row[fmt]["exported"],
                        row[fmt]["wall"],
                        row[fmt]["bytes"] / 1e6,
                        row[fmt]["peak_rss_mib"],
                        row["baseline_rss_mib"],
                    ]
                )
        text = output.table(
            [
                "runs in DB",
                "format",
                "runs exported",
                "export s",
                "output MB",
                "peak RSS MiB",
                "`manage.py check` RSS MiB",
            ],
            rows,
        )
        seeds = output.table(
            ["runs after", "runs added", "seed_synthetic s", "runs/s", "peak RSS MiB"],
            [
                [r["runs"], r["seeded"], r["seed_wall"], r["seeded"] / r["seed_wall"], r["seed_rss_mib"]]
                for r in exports
            ],
        )
        parts.append(
            f"`manage.py export_runs` over seeded runs (each a child process; baseline = the RSS of "
            f"`manage.py check`, i.e. Django loaded and nothing else):\n\n{text}\n\n"
            f"Seeding the database for it (`manage.py seed_synthetic --runs N`, bulk inserts):\n\n{seeds}"
        )
    body = "\n\n".join(parts)
    print()
    print(body)
    output.write_json(args.json, {"ingest": ingest, "exports": exports})
