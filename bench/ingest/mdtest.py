"""mdtest ingest throughput: N generated logs of a DNE scaling series through ``manage.py ingest --kind mdtest``.

    .venv/bin/python -m bench mdtest_ingest [--logs 1000] [--postgres ioboard_bench_mdtest] [--json FILE]

Generates a campaign of ``--logs`` mdtest 1.8.3 logs (the format of shared/dne-campaign-sample, with
per-iteration lines; synth/campaign.py) and its manifest in a temporary folder, then
runs ``manage.py ingest --kind mdtest FOLDER --series bench --manifest FOLDER/manifest.csv`` in a
child process against an empty, migrated database (a temporary SQLite file, or with --postgres a
fresh PostgreSQL database on 127.0.0.1), timing the whole command: interpreter and Django start-up,
parsing, placement and one transaction per log. The same command is then run a second time to time
an idempotent re-ingest (every log found unchanged). DEBUG is off, so no query log is kept.

Prints the figures; ``--json FILE`` also writes them for ``python -m bench report``.
"""

from __future__ import annotations

from pathlib import Path

from bench.harness import ingestion, output
from synth.campaign import OPERATION_LABELS, CampaignSpec, write_campaign

SERIES = "bench"
MDT_COUNTS = (1, 2, 4, 8, 16)
THREADS = (1, 20, 40, 80, 120, 160, 240, 280, 320, 400)
STRIPINGS = ("inherited", "non-inherited")
LOGS_PER_LOAD = len(MDT_COUNTS) * len(THREADS) * len(STRIPINGS)


def generate(folder: Path, logs: int) -> int:
    """Write a campaign of exactly ``logs`` logs (several directory loads, both stripings); return the count."""
    loads = [10_000 * (index + 1) for index in range(-(-logs // LOGS_PER_LOAD))]
    knees = {
        (operation, load, striping): MDT_COUNTS[(index + position) % (len(MDT_COUNTS) - 1)]
        for index, operation in enumerate(OPERATION_LABELS)
        for position, load in enumerate(loads)
        for striping in STRIPINGS
    }
    write_campaign(folder, CampaignSpec(knees=knees, mdt_counts=MDT_COUNTS, threads=THREADS, seed=logs))
    manifest = folder / "manifest.csv"
    header, *rows = manifest.read_text().splitlines()
    for row in rows[logs:]:
        (folder / row.split(",")[0]).unlink()
    manifest.write_text("\n".join([header, *rows[:logs]]) + "\n")
    return min(logs, len(rows))


def main(argv: list[str]) -> int | None:
    options = ingestion.log_ingest_arguments("mdtest_ingest", __doc__.split("\n")[0], argv)

    run = ingestion.time_log_ingest(
        kind="mdtest", generate=generate, logs=options.logs, postgres=options.postgres, target=["--series", SERIES]
    )
    print(output.table(run.HEADERS, run.rows()))
    print(run.summary("logs", ", 0 new points"))
    output.write_json(options.json, run.figures())
