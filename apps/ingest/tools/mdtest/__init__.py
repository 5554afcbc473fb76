"""mdtest (LLNL 1.7/1.8 to the mdtest bundled with IOR 4.x): metadata rates into a DNE scaling series.

``grammar.py`` is the one mdtest grammar (strict for uploads, lenient for the raw files inside IO500
result folders); ``manifest.py`` places each log in a DNE campaign (MDT count, clients, directory
load, striping) from a manifest CSV or the log and its path; ``pipeline.py`` stores the logs as runs
and points of a scaling series, and the series as a study. See ``docs/studies.md``.
"""

from pathlib import Path

from apps.ingest.tools.base import Ingest, Option, Tool, UploadField

TOOL = Tool(
    name="mdtest",
    reads="mdtest logs: the SUMMARY rate tables of each launch, with the launch's tasks, nodes and options",
    ingest=Ingest(
        label="mdtest",
        stores="a DNE scaling series (mdtest logs)",
        log_marker=b"mdtest",
        options=(
            Option("--series", "mdtest: the scaling series to add the logs to", metavar="NAME"),
            Option(
                "--manifest",
                "mdtest: manifest CSV (log, mdt_count, client_nodes, tasks, files_per_dir, striping, label)",
                type=Path,
                metavar="FILE",
            ),
        ),
        upload_fields=(UploadField("series", "mdtest scaling series name"),),
    ),
)
