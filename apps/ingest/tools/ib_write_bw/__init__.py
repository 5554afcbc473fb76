"""perftest ``ib_write_bw`` (perftest 1.3.0 and 4.x): the fabric, one link per server.

Reads ``BW average`` of the result line: ``MB/sec`` (2^20 bytes/s; x 1.048576) or, with
``--report_gbits``, ``Gb/sec`` (x 125). Grammar: ``grammar.py``.
"""

from apps.ingest.tools.base import BANDWIDTH_OPERATIONS, Tool
from apps.ingest.tools.ib_write_bw.grammar import read_ib_write_bw

TOOL = Tool(
    name="ib_write_bw",
    reads="perftest ib_write_bw: BW average of the result line, MB/sec (2^20 B/s) or Gb/sec",
    operations=BANDWIDTH_OPERATIONS,
    read=read_ib_write_bw,
)
