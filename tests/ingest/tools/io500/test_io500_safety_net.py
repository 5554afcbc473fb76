"""The parser's safety net: a grammar's own bug is a ParseError naming the result set; an interruption from the
host (a Celery worker's soft time limit) is not the files' fault and passes through, so that the task can retry a
starved ingest instead of failing the upload as bad content."""

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from apps.ingest.parsers.errors import ParseError
from apps.ingest.tools.io500.grammar import parse_result_set, result_set
from tests.ingest.tools.io500.io500_samples import CAPP_RUN, SAMPLES


def failing_step(error: BaseException):
    def step(record):
        raise error

    return step


def test_a_grammar_bug_is_an_internal_parser_error_naming_the_result_set(monkeypatch):
    monkeypatch.setattr(result_set, "_make_json_safe", failing_step(KeyError("phase")))

    with pytest.raises(ParseError) as raised:
        parse_result_set(SAMPLES, SAMPLES / CAPP_RUN)

    assert raised.value.message.startswith("internal parser error")
    assert CAPP_RUN in str(raised.value)


def test_a_workers_soft_time_limit_during_parsing_passes_through_untouched(monkeypatch):
    monkeypatch.setattr(result_set, "_make_json_safe", failing_step(SoftTimeLimitExceeded()))

    with pytest.raises(SoftTimeLimitExceeded):
        parse_result_set(SAMPLES, SAMPLES / CAPP_RUN)


def test_the_sample_parses_without_either():
    assert parse_result_set(SAMPLES, SAMPLES / CAPP_RUN).phases
