"""IOR (2.10, 3.x, 4.x; the sample has 3.0.1 and 3.3.0): the parallel file system.

Reads the ``Max(MiB)`` column of the ``Summary of all tests`` row of each operation (MiB/s;
x 1.048576; the highest over the tests of a ``-f`` script). The grammar is the one IOR reader,
``apps/ingest/parsers/ior.py``, in strict mode; ``reading.py`` turns its log into a reading.
"""

from apps.ingest.tools.base import BANDWIDTH_OPERATIONS, Tool
from apps.ingest.tools.ior.reading import read_ior

TOOL = Tool(
    name="ior",
    reads="IOR text or JSON: Max(MiB) of the 'Summary of all tests' row of write and read",
    operations=BANDWIDTH_OPERATIONS,
    read=read_ior,
)
