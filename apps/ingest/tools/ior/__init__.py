"""IOR (2.10, 3.x, 4.x): bandwidth logs into a parameter study, and the file-system layer of a stack.

``grammar.py`` is the one IOR grammar (text and JSON; strict for uploads, lenient for the raw files
inside IO500 result folders); ``study.py`` reads a study's manifest CSV and turns tests into study
points; ``pipeline.py`` stores them in a ``Study`` (see ``docs/studies.md``). As a stack reader,
``reading.py`` takes the ``Max(MiB)`` column of the ``Summary of all tests`` row of each operation
(MiB/s; x 1.048576; the highest over the tests of a ``-f`` script).
"""

from pathlib import Path

from apps.ingest.tools.base import BANDWIDTH_OPERATIONS, Ingest, Option, Tool, UploadField
from apps.ingest.tools.ior.reading import read_ior

TOOL = Tool(
    name="ior",
    reads="IOR text or JSON: Max(MiB) of the 'Summary of all tests' row of write and read",
    operations=BANDWIDTH_OPERATIONS,
    read=read_ior,
    ingest=Ingest(
        label="IOR",
        stores="a parameter study (IOR logs, optionally with a manifest CSV)",
        log_marker=b"ior",
        options=(
            Option("--study", "ior: the parameter study to add the logs to", metavar="NAME"),
            Option("--manifest", "ior: CSV of log, then axis columns", type=Path, metavar="FILE"),
            Option(
                "--margin",
                "ior: the study's equivalence margin as a fraction (default 0.05 = 5 %): smaller "
                "significant differences are not called different; sets it on an existing study",
                type=float,
            ),
        ),
        upload_fields=(
            UploadField("study", "IOR parameter study name (kind=ior; an archive may hold a manifest.csv)"),
            UploadField(
                "margin",
                "kind=ior: the equivalence margin of a study this upload creates (default 0.05 = 5 %)",
                value="fraction",
            ),
        ),
    ),
)
