"""Tokens in a kept file are replaced by a marker; the marker's lines are what the uploader is warned about."""

from apps.ingest.parsers.secrets import REMOVED, removed_token_lines, scrub_tokens

KEY = "0123456789abcdef0123456789abcdef01234567"


def test_a_curl_header_with_a_token_or_bearer_loses_its_key():
    script = f'#!/bin/bash\nmpirun ./io500 config.ini\ncurl -H "Authorization: Token {KEY}" -F file=@out.tgz\n'
    scrubbed = scrub_tokens(script)
    assert KEY not in scrubbed
    assert f'curl -H "Authorization: Token {REMOVED}" -F file=@out.tgz' in scrubbed
    assert KEY not in scrub_tokens(f"curl -H 'authorization: bearer {KEY}'")
    assert removed_token_lines(scrubbed) == [3]


def test_an_environment_assignment_loses_its_key():
    assert scrub_tokens(f"export IOBOARD_TOKEN={KEY}\n") == f"export IOBOARD_TOKEN={REMOVED}\n"


def test_text_without_a_token_is_unchanged():
    config = "[global]\ndatadir = /lustre/io500\n# Authorization: see the wiki\n"
    assert scrub_tokens(config) == config
    assert removed_token_lines(config) == []
