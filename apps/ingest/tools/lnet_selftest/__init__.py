"""lnet_selftest ``lst stat`` (Lustre 2.4 and later consoles): LNet, one interface per server.

Reads the mean over the intervals of ``[LNet Bandwidth of servers]`` ``Avg``: ``[R]`` for a
``brw write`` test, ``[W]`` for ``brw read`` (MB/s and MiB/s both 2^20 bytes/s; x 1.048576).
Grammar: ``grammar.py``.
"""

from apps.ingest.tools.base import BANDWIDTH_OPERATIONS, Tool
from apps.ingest.tools.lnet_selftest.grammar import read_lst_stat

TOOL = Tool(
    name="lnet_selftest",
    reads="lst stat: mean over intervals of the servers' LNet bandwidth Avg, [R] for brw write, [W] for brw read",
    operations=BANDWIDTH_OPERATIONS,
    read=read_lst_stat,
)
