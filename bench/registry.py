"""The benchmarks by name: what ``python -m bench NAME`` runs, and ``python -m bench --list`` names.

A benchmark is a module with ``main(argv)`` (its options parsed from ``argv``; its exit status returned or
raised). Adding one: write the module in the folder of its subject and add its line here; a row of
docs/performance.md is registered apart, in ``bench/rows.py``. The summary ``--list`` shows is the first line
of the module's docstring, read without importing it (a benchmark's imports can take seconds).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

BENCHMARKS: dict[str, str] = {
    "ingest_corpus": "bench.ingest.corpus",
    "ingest_parallel": "bench.ingest.parallel",
    "ior_ingest": "bench.ingest.ior",
    "mdtest_ingest": "bench.ingest.mdtest",
    "memory": "bench.memory",
    "cold_path": "bench.pages.cold_path",
    "list_latency": "bench.pages.list_latency",
    "list_scaling": "bench.pages.list_scaling",
    "list_exports": "bench.pages.list_exports",
    "load_uploads": "bench.load.uploads",
    "load_deadline": "bench.load.deadline",
    "fault_scenarios": "bench.faults",
    "change_detection": "bench.changes.detection",
    "change_heldout": "bench.changes.heldout",
    "change_judge": "bench.changes.judge",
    "anomaly_calibration": "bench.anomalies.calibration",
    "cache_piece_ab": "bench.anomalies.cache_piece_ab",
    "study_verdicts": "bench.studies",
    "report": "bench.report",
}


def summary(name: str) -> str:
    """The first line of the benchmark's module docstring."""
    spec = importlib.util.find_spec(BENCHMARKS[name])
    if spec is None or spec.origin is None:
        raise LookupError(f"benchmark {name!r}: no module {BENCHMARKS[name]}")
    docstring = ast.get_docstring(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))) or ""
    return docstring.split("\n", 1)[0]


def entry_point(name: str) -> Callable[[list[str]], int | None]:
    return importlib.import_module(BENCHMARKS[name]).main
