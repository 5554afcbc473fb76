"""IO500 (the io500.sh script era, SC17 job output and the C application): result directories into runs.

``grammar/`` is the IO500 reader (one module per idea: discovery of result directories, the eras,
summaries, hashes, the raw tool outputs read through the mdtest and IOR grammars); ``pipeline.py``
stores one run per result directory, with its phases, provenance and anomaly facts.
"""

from apps.ingest.tools.base import Ingest, Tool

TOOL = Tool(
    name="io500",
    reads="IO500 result directories, .tar.gz/.zip archives of them, or whole trees of submissions",
    ingest=Ingest(
        label="IO500",
        stores="runs (IO500 result directories, archives or trees of submissions)",
    ),
)
