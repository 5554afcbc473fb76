"""fio 3.x ``--output-format=json`` and ``json+normal``.

The measurement: for read/write the sum over ``jobs`` of the direction's ``bw_bytes`` (bytes/s, so
MB/s = / 10^6; fio's ``bw`` is KiB/s and is used only when ``bw_bytes`` is absent, as in fio 2.x),
for randread/randwrite the sum over ``jobs`` of the direction's ``iops``. One job per drive, several
jobs on one drive (``numjobs``) and one aggregated job (``group_reporting``) all sum the same way.
With ``json+normal`` fio's text precedes and follows the JSON object, and warnings (``fio: ...``)
may come first: the object is the first line that is ``{`` alone, read to its matching brace.

Which operations a job measures comes from its ``rw`` (job options, else global options):
``read``/``write``/``randread``/``randwrite``, both directions for ``rw``/``readwrite``/``randrw``.
"""

from __future__ import annotations

import json
import re

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.base import Figure, ToolReading, capture_lines, text_of

_OBJECT_START = re.compile(r"^\{\s*$")
_RW = {
    "read": ("read",),
    "write": ("write",),
    "randread": ("randread",),
    "randwrite": ("randwrite",),
    "rw": ("read", "write"),
    "readwrite": ("read", "write"),
    "randrw": ("randread", "randwrite"),
}


def read_fio(data: bytes, path: str) -> ToolReading:
    text = text_of(data)
    start_line = None
    for line_number, line in capture_lines(text, path):
        if start_line is None and _OBJECT_START.match(line):
            start_line = line_number
    if start_line is None:
        raise ParseError(path, None, "no fio JSON object (a line that is '{' alone)")
    offset = _offset_of_line(text, start_line)
    try:
        document, _ = json.JSONDecoder(parse_constant=_refuse_constant).raw_decode(text, offset)
    except (ValueError, RecursionError) as error:
        error_line = getattr(error, "lineno", None)
        raise ParseError(path, error_line or start_line, f"fio JSON is not well formed: {str(error)[:200]}") from None
    if not isinstance(document, dict) or not isinstance(document.get("jobs"), list):
        raise ParseError(path, start_line, "fio JSON has no 'jobs' list")
    reading = ToolReading(tool="fio", path=path, version=str(document.get("fio version", ""))[:40])
    global_rw = _text((document.get("global options") or {}), "rw")
    sums: dict[str, list[float]] = {}
    for index, job in enumerate(document["jobs"]):
        if not isinstance(job, dict):
            raise ParseError(path, start_line, f"fio job {index} is not an object")
        rw = _text(job.get("job options") or {}, "rw") or global_rw
        for operation in _operations(rw, job):
            direction = operation.removeprefix("rand")
            stats = job.get(direction)
            if not isinstance(stats, dict):
                raise ParseError(path, start_line, f"fio job {index} has no '{direction}' statistics")
            sums.setdefault(operation, []).append(_figure(stats, operation, path, start_line, index))
    for operation, values in sums.items():
        unit = "IOPS" if operation.startswith("rand") else "bytes/s"
        reading.figures[operation] = Figure(operation, sum(values), f"{len(values)} job(s) in {unit}", start_line)
    if not reading.figures:
        raise ParseError(path, start_line, "fio JSON has no job that read or wrote")
    return reading


def _offset_of_line(text: str, line_number: int) -> int:
    offset = 0
    for _ in range(line_number - 1):
        offset = text.index("\n", offset) + 1
    return offset


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number fio prints")


def _text(mapping, key: str) -> str:
    value = mapping.get(key, "") if isinstance(mapping, dict) else ""
    return value.strip().lower() if isinstance(value, str) else ""


def _operations(rw: str, job: dict) -> tuple[str, ...]:
    """The operations a job measures: its ``rw``; without one, the directions that moved bytes, under
    both their sequential and random names (the manifest chooses)."""
    if rw:
        return _RW.get(rw, ())
    moved = [
        direction
        for direction in ("read", "write")
        if isinstance(job.get(direction), dict) and _positive(job[direction].get("io_bytes"))
    ]
    return tuple(moved) + tuple(f"rand{direction}" for direction in moved)


def _positive(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _figure(stats: dict, operation: str, path: str, line: int, index: int) -> float:
    if operation.startswith("rand"):
        value, scale, name = stats.get("iops"), 1.0, "iops"
    elif "bw_bytes" in stats:
        value, scale, name = stats.get("bw_bytes"), 1 / 10**6, "bw_bytes"
    else:
        value, scale, name = stats.get("bw"), 1024 / 10**6, "bw"
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise ParseError(path, line, f"fio job {index}: {name} of {operation} is not a number")
    return float(value) * scale
