"""Fuzzing the IOR grammar: mutated real logs give an IorLog or a ParseError naming the file, never
another exception; lenient mode never refuses a file that kept its header."""

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.ior.grammar import IorLog, parse_ior_bytes
from tests.ingest.mutations import mutated

SAMPLES = [path.read_bytes() for path in sorted((Path(__file__).resolve().parents[3] / "data" / "ior").glob("ior-*"))]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def outcome(call):
    """(result, None) or (None, the ParseError): any other exception escapes and fails the test."""
    try:
        return call(), None
    except ParseError as refused:
        return None, refused


@st.composite
def mutated_logs(draw) -> bytes:
    return mutated(draw, draw(st.sampled_from(SAMPLES)))


@FUZZ
@given(mutated_logs(), st.booleans())
def test_any_mutation_gives_a_log_or_a_parse_error_naming_the_file(data, strict):
    log, error = outcome(lambda: parse_ior_bytes(data, "fuzzed.txt", strict=strict))
    if error is not None:
        assert error.path == "fuzzed.txt"
        return
    assert isinstance(log, IorLog)
    for test in log.tests:
        for row in test.summary:
            assert row.cells


@FUZZ
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_give_a_log_or_a_parse_error(data):
    _, error = outcome(lambda: parse_ior_bytes(data, "noise.bin", strict=False))
    assert error is None or error.path == "noise.bin"


@FUZZ
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda children: (
            st.lists(children, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "tests",
                        "summary",
                        "Options",
                        "Results",
                        "access",
                        "operation",
                        "TestID",
                        "bwMiB",
                        "bwMeanMIB",
                        "api",
                        "nodes",
                    ]
                ),
                children,
                max_size=4,
            )
        ),
        max_leaves=20,
    )
)
def test_any_json_document_gives_a_log_or_a_parse_error(document):
    data = json.dumps({"tests": [document], "summary": document} if isinstance(document, dict) else document)
    _, error = outcome(lambda: parse_ior_bytes(data.encode(), "doc.json"))
    assert error is None or error.path == "doc.json"
