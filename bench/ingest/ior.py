"""IOR ingest throughput: N generated IOR logs of a parameter study through ``manage.py ingest --kind ior``.

    .venv/bin/python -m bench ior_ingest [--logs 1000] [--postgres ioboard_bench_ior] [--json FILE]

Generates a study of ``--logs`` IOR-3.3 text logs (synth/study.py: file
systems x APIs x node counts x hint configs, 3 repetitions each) and its manifest in a temporary
folder, then runs ``manage.py ingest --kind ior FOLDER --study bench --manifest FOLDER/manifest.csv``
in a child process against an empty, migrated database (a temporary SQLite file, or with --postgres
a fresh PostgreSQL database on 127.0.0.1), timing the whole command: interpreter and Django start-up,
strict parsing, axes and one savepoint per log. The same command then runs a second time (every log
unchanged), and ``export_study bench`` is timed (every pairwise comparison of the study).
Prints the figures; ``--json FILE`` also writes them for ``python -m bench report`` (row ``ior_ingest``).
"""

from __future__ import annotations

from pathlib import Path

from bench.harness import ingestion, output
from synth.study import StudySpec, write_study

STUDY = "bench"
FILESYSTEMS = {"Lustre": 0.08, "GPFS": 0.05}
APIS = ["POSIX", "MPIIO", "HDF5", "PNETCDF"]
NODES = [1, 2, 4, 8, 16]


def generate(folder: Path, logs: int) -> int:
    """A study of at least ``logs`` logs: the config count is chosen to reach it; returns the count."""
    cells = len(FILESYSTEMS) * len(APIS) * len(NODES)
    configs = [f"hint{index}" for index in range(-(-logs // cells))]
    write_study(
        StudySpec(seed=logs, filesystems=FILESYSTEMS, apis=APIS, nodes=NODES, configs=configs, repetitions=3), folder
    )
    return cells * len(configs)


def main(argv: list[str]) -> int | None:
    options = ingestion.log_ingest_arguments("ior_ingest", __doc__.split("\n")[0], argv)

    run = ingestion.time_log_ingest(
        kind="ior",
        generate=generate,
        logs=options.logs,
        postgres=options.postgres,
        target=["--study", STUDY],
        after={"export": ["export_study", STUDY]},
    )
    export_wall, export_text = run.after["export"]
    comparisons = export_text.count('"significant"')
    export_row = [f"export_study ({comparisons} comparisons)", run.logs, 0, export_wall, run.logs / export_wall]
    print(output.table(run.HEADERS, [*run.rows(), export_row]))
    print(run.summary("IOR logs", f"; export_study {export_wall:.1f} s ({comparisons} comparisons)"))
    output.write_json(options.json, {**run.figures(), "export_seconds": export_wall, "comparisons": comparisons})
