"""Every raw IOR output of the public IO500 corpus (``ior_*.txt``/``ior-*.txt``) parses, and each
``Summary of all tests`` row is kept exactly as printed.

The expected rows come from an independent scan: the whitespace-split tokens of every ``write``/``read``
line that follows a ``Summary of all tests:`` title in the file. The IO500 C app cuts IOR >= 3.4
output short (no summary, no ``Finished``), so files are read in lenient mode, as the IO500 reader does.
"""

import pytest

from apps.ingest.tools.ior.grammar import parse_ior_file
from tests.conftest import shared_path

pytestmark = pytest.mark.corpus


def printed_summary_rows(path) -> list[list[str]]:
    rows, inside = [], False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("Summary of all tests"):
            inside = True
        elif inside and line.split()[:1] in (["write"], ["read"]):
            rows.append(line.split())
        elif inside and not line.startswith("Operation"):
            inside = False
    return rows


def test_every_ior_output_in_the_corpus_parses_with_its_summary_rows_as_printed():
    corpus = shared_path("io500-corpus")
    files = sorted(p for p in corpus.rglob("*.txt") if p.name.startswith(("ior_", "ior-")))
    assert len(files) >= 500
    rows_seen = 0
    for path in files:
        name = str(path.relative_to(corpus))
        log = parse_ior_file(path, name, strict=False)
        assert log.runs, name
        assert all(test.results or test.summary for test in log.tests), name
        parsed = [[*row.cells.values(), *row.extra] for test in log.tests for row in test.summary]
        assert parsed == printed_summary_rows(path), name
        rows_seen += len(parsed)
    assert rows_seen >= 250
