"""bench.load.uploads: its uploaders poll as often as the API asks them to, as a well-behaved client does."""

from http.client import HTTPMessage

from bench.load.uploads import POLL_SECONDS_WITHOUT_HINT, retry_after


def headers(**fields: str) -> HTTPMessage:
    message = HTTPMessage()
    for name, value in fields.items():
        message[name.replace("_", "-")] = value
    return message


def test_an_uploader_waits_the_seconds_retry_after_asks_for_in_any_spelling_of_its_name():
    assert retry_after(headers(Retry_After="3")) == 3
    assert retry_after(headers(retry_after="5")) == 5


def test_without_a_retry_after_in_seconds_it_asks_again_at_its_own_pace():
    """RFC 9110 also allows an HTTP date; ioboard sends seconds, so a date is not worth parsing here."""
    assert retry_after(headers()) == POLL_SECONDS_WITHOUT_HINT
    assert retry_after(headers(Retry_After="Wed, 21 Oct 2026 07:28:00 GMT")) == POLL_SECONDS_WITHOUT_HINT
    assert retry_after({}) == POLL_SECONDS_WITHOUT_HINT
