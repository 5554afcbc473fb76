"""lustre-iokit ``obdfilter-survey``: OSTs.

Reads the highest ``write`` / ``read`` figure over the summary lines (MiB/s; x 1.048576), never
``rewrite`` nor the bracketed per-OST [min, max]. Grammar: ``grammar.py``.
"""

from apps.ingest.tools.base import BANDWIDTH_OPERATIONS, Tool
from apps.ingest.tools.obdfilter_survey.grammar import read_obdfilter_survey

TOOL = Tool(
    name="obdfilter-survey",
    reads="obdfilter-survey summary lines: the highest write / read figure over the objects x threads points",
    operations=BANDWIDTH_OPERATIONS,
    read=read_obdfilter_survey,
)
