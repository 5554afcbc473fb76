"""bench.load.uploads: its uploaders poll as often as the API asks them to, as a well-behaved client does, and
stop at their deadline, naming what is not done."""

import time
from http.client import HTTPMessage
from pathlib import Path

from bench.load.uploads import POLL_SECONDS_WITHOUT_HINT, poll_until_finished, retry_after
from rig.processes import free_port


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


def test_polling_ends_at_its_deadline_naming_each_unfinished_upload_and_what_was_last_seen_of_it():
    """No server answers on the port (every status request is refused): the wait still ends, with the upload named."""
    accepted = {
        "item": {"archive": Path("007-submission-212.tar.gz")},
        "status": 202,
        "seconds": 0.1,
        "sent": time.perf_counter(),
        "answer": {"id": 21},
        "token": "t",
        "retry_after": 0.2,
    }
    refused = {**accepted, "item": {"archive": Path("008-submission-9.tar.gz")}, "status": 413, "answer": {}}
    started = time.perf_counter()

    unfinished = poll_until_finished(f"http://127.0.0.1:{free_port()}", [accepted, refused], deadline=started + 2)

    assert 2 <= time.perf_counter() - started < 10
    assert unfinished == ["007-submission-212.tar.gz (upload 21): last seen no status (HTTP 0)"]
    assert accepted["final"] == {"status": "not done", "last_seen": "no status (HTTP 0)"}
    assert refused["final"] == {"status": "not accepted (POST answered 413)"}
