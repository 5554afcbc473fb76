"""Fuzzing the tool readers: mutated real captures give a reading or a ParseError naming the file."""

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools import read_log, stack_readers
from tests.ingest.mutations import mutated

DATA = Path(__file__).resolve().parents[2] / "data" / "tools"
FOLDERS = {"obdfilter-survey": "obdfilter_survey"}
SAMPLES = [
    (tool, path.read_bytes()) for tool in stack_readers() for path in sorted((DATA / FOLDERS.get(tool, tool)).glob("*"))
]
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated_logs(draw) -> tuple[str, bytes]:
    tool, original = draw(st.sampled_from(SAMPLES))
    return tool, mutated(draw, original)


def outcome(call):
    """(result, None) or (None, the ParseError): any other exception escapes and fails the test."""
    try:
        return call(), None
    except ParseError as refused:
        return None, refused


@FUZZ
@given(mutated_logs())
def test_any_mutation_gives_a_reading_or_a_parse_error_naming_the_file(sample):
    tool, data = sample
    reading, refused = outcome(lambda: read_log(tool, data, "fuzzed.txt"))
    if refused is not None:
        assert refused.path == "fuzzed.txt"
        return
    for figure in reading.figures.values():
        assert figure.value >= 0
        assert figure.value == figure.value


@FUZZ
@given(st.sampled_from(sorted(stack_readers())), st.binary(max_size=2000))
def test_arbitrary_bytes_give_a_reading_or_a_parse_error(tool, data):
    _, refused = outcome(lambda: read_log(tool, data, "noise.bin"))
    assert refused is None or refused.path == "noise.bin"
