"""xdd (6.5, 7): single drives, groups of drives and block devices.

Reads the ``Combined`` (6.5) / ``COMBINED`` (7) line: ``Rate`` / ``Bandwidth`` (MB/s = 10^6 bytes/s)
for read/write, ``IOPS`` for randread/randwrite; without a combined line, the sum of the per-target
``TARGET Average`` / ``TARGET_AVERAGE`` lines. Grammar: ``grammar.py``.
"""

from apps.ingest.tools.base import OPERATIONS, Tool
from apps.ingest.tools.xdd.grammar import read_xdd

TOOL = Tool(
    name="xdd",
    reads="xdd 6.5 / 7 result tables: the combined line's rate (MB/s) or IOPS, else the sum of the target averages",
    operations=OPERATIONS,
    read=read_xdd,
)
