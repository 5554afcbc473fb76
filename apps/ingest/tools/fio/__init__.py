"""fio 3.x JSON (``--output-format=json`` or ``json+normal``): drives and groups of drives.

Reads the sum over ``jobs`` of ``bw_bytes`` (bytes/s; MB/s = / 10^6) of the operation's direction for
read/write and of ``iops`` for randread/randwrite. Grammar: ``grammar.py``.
"""

from apps.ingest.tools.base import OPERATIONS, Tool
from apps.ingest.tools.fio.grammar import read_fio

TOOL = Tool(
    name="fio",
    reads="fio 3.x JSON / json+normal: the sum over jobs of bw_bytes (read/write) or iops (random)",
    operations=OPERATIONS,
    read=read_fio,
)
