"""IOzone (3.420, 3.471) in throughput mode: local file systems.

Reads ``Children see throughput for N initial writers`` / ``... N readers`` (KB/sec or kB/sec, IOzone's
kilobyte = 1024 bytes; MB/s = x 1024 / 10^6). Grammar: ``grammar.py``.
"""

from apps.ingest.tools.base import BANDWIDTH_OPERATIONS, Tool
from apps.ingest.tools.iozone.grammar import read_iozone

TOOL = Tool(
    name="iozone",
    reads="IOzone 3.420 / 3.471 throughput mode: 'Children see throughput' for initial writers and readers",
    operations=BANDWIDTH_OPERATIONS,
    read=read_iozone,
)
