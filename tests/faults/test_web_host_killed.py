"""A web host killed (SIGKILL to gunicorn's master and workers) during an upload: nothing half-made, the retry once.

Real gunicorn, a private redis-server and a real Celery worker on the test's database. An upload that finished
before the kill stays done with its one run. The killed upload's client gets an error, not an answer; no upload
row, job or stored file of it is left (the file is stored in the transaction that creates its row, so a kill
before the commit leaves neither). Sent again to a gunicorn started afresh, the same file is a new upload that
ends done with one run; sent a third time it is answered with that upload (the same-bytes dedupe), never with
an id of the killed request's.

Two kill points: mid-body (a large upload streamed slowly, the kill landing halfway through its bytes), and
after its file and rows are written but before their commit (a wrapper stalls the request there, so the kill
lands at that exact point every time).
"""

import http.client
import os
import time
from threading import Thread

import pytest

from rig import PYTHON
from rig.client import multipart
from tests.faults.conftest import current_database_url, needs_real_services, wait_for
from tests.faults.stack import SUBMISSIONS, Stack, assert_each_upload_ended_and_ran_once, submission_archive

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

# gunicorn whose upload of "stalled.tgz" stops inside its transaction, right after the file, the upload and its job
# are written: the marker file says "killable now", then the request sleeps far longer than the test waits.
STALLING_WEB = """
import os, sys, time
from pathlib import Path
import django
django.setup()
from apps.ingest import uploads
original = uploads.start_job
def stall(upload):
    job = original(upload)
    if upload.original_name == "stalled.tgz":
        Path(os.environ["FAULT_MARKER"]).write_text(str(upload.pk))
        time.sleep(300)
    return job
uploads.start_job = stall
from gunicorn.app.wsgiapp import run
sys.argv = ["gunicorn", *sys.argv[1:]]
run()
"""


@pytest.fixture
def stack(tmp_path):
    needs_real_services()
    from apps.results.models import ApiToken
    from tests.factories import UserFactory

    stack = Stack(tmp_path, current_database_url())
    try:
        _, stack.token = ApiToken.issue(UserFactory(username="killed"), "faults")
        stack.start_worker("web-kill")
        yield stack
    finally:
        stack.close()


def an_upload_done_before_the_kill(stack: Stack) -> int:
    status, answer = stack.upload("before.tgz", submission_archive(SUBMISSIONS[0]))
    assert status == 202, answer
    assert stack.wait_until_finished([answer["id"]], timeout=60)[answer["id"]]["status"] == "done"
    return answer["id"]


def send_slowly_and_kill_midway(stack: Stack, data: bytes) -> int | None:
    """POST the upload slowly, SIGKILL the web host halfway through its body; the status answered, if any."""
    body, content_type = multipart({"kind": "io500"}, "file", "large.tgz", data)
    connection = http.client.HTTPConnection("127.0.0.1", stack.port, timeout=30)
    connection.putrequest("POST", "/api/v1/uploads/")
    for name, value in stack.headers(**{"Content-Type": content_type, "Content-Length": str(len(body))}).items():
        connection.putheader(name, value)
    connection.endheaders()
    half = len(body) // 2
    for offset in range(0, half, 64 * 1024):
        connection.send(body[offset : min(offset + 64 * 1024, half)])
        time.sleep(0.02)
    time.sleep(1)  # the web worker is now reading the body, waiting for the rest
    stack.web.kill9()
    try:
        connection.send(body[half:])
        return connection.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def retried_twice(stack: Stack, data: bytes) -> int:
    """The same file sent again (a new upload, ingested) and once more (answered with that upload)."""
    status, answer = stack.upload("large.tgz", data)
    assert status == 202, answer
    status, again = stack.upload("large.tgz", data)
    assert (status, again["id"]) == (200, answer["id"]), again
    return answer["id"]


def test_a_web_host_killed_mid_body_leaves_nothing_and_the_retry_is_ingested_once(stack):
    stack.start_web()
    before = an_upload_done_before_the_kill(stack)
    data = submission_archive(SUBMISSIONS[1], padding=os.urandom(4 * 1024 * 1024))

    assert send_slowly_and_kill_midway(stack, data) is None
    assert stack.count("results_upload") == 1
    assert stack.count("ingest_ingestjob") == 1

    stack.start_web()
    retry = retried_twice(stack, data)
    finals = stack.wait_until_finished([before, retry], timeout=60)
    assert {answer["status"] for answer in finals.values()} == {"done"}, finals
    assert_each_upload_ended_and_ran_once(stack, finals, sent=2)


def test_a_web_host_killed_before_its_upload_commits_leaves_no_file_and_the_retry_is_ingested_once(stack, tmp_path):
    marker = tmp_path / "in-transaction"
    stack.start_web(launcher=[PYTHON, "-c", STALLING_WEB], FAULT_MARKER=str(marker))
    before = an_upload_done_before_the_kill(stack)
    data = submission_archive(SUBMISSIONS[2])

    answers: list = []
    sender = Thread(target=lambda: answers.append(stack.upload("stalled.tgz", data, timeout=120)), daemon=True)
    sender.start()
    wait_for(marker.exists, timeout=30, what="the upload to be written, uncommitted")
    stack.web.kill9()
    sender.join(timeout=30)
    assert [status for status, _ in answers] == [0], answers  # the client got no answer: a dropped connection
    assert stack.count("results_upload") == 1
    assert stack.count("results_uploadblob") == 1  # the killed request's file went with its rows
    assert stack.count("ingest_ingestjob") == 1

    stack.start_web()
    retry = retried_twice(stack, data)
    finals = stack.wait_until_finished([before, retry], timeout=60)
    assert {answer["status"] for answer in finals.values()} == {"done"}, finals
    assert_each_upload_ended_and_ran_once(stack, finals, sent=2)
