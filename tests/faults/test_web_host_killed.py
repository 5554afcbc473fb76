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

import os
from threading import Thread

import pytest

from rig import PYTHON
from rig.client import multipart, post_and_kill_midway
from tests.faults.conftest import wait_for
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
def stack(stack):
    stack.start_worker("web-kill")
    return stack


def an_upload_done_before_the_kill(stack: Stack) -> int:
    status, answer = stack.upload("before.tgz", submission_archive(SUBMISSIONS[0]))
    assert status == 202, answer
    assert stack.wait_until_finished([answer["id"]], timeout=60)[answer["id"]]["status"] == "done"
    return answer["id"]


def assert_sent_again_to_a_new_web_host_it_is_ingested_once(stack: Stack, data: bytes, before: int) -> None:
    """The same file sent to a gunicorn started afresh is a new upload, ingested; sent once more, it is answered with
    that upload; it and the upload done before the kill end done, one run each, and nothing else is stored."""
    stack.start_web()
    status, answer = stack.upload("large.tgz", data)
    assert status == 202, answer
    status, again = stack.upload("large.tgz", data)
    assert (status, again["id"]) == (200, answer["id"]), again
    finals = stack.wait_until_finished([before, answer["id"]], timeout=60)
    assert {final["status"] for final in finals.values()} == {"done"}, finals
    assert_each_upload_ended_and_ran_once(stack, finals, sent=2)


def test_a_web_host_killed_mid_body_leaves_nothing_and_the_retry_is_ingested_once(stack):
    stack.start_web()
    before = an_upload_done_before_the_kill(stack)
    data = submission_archive(SUBMISSIONS[1], padding=os.urandom(4 * 1024 * 1024))

    body, content_type = multipart({"kind": "io500"}, "file", "large.tgz", data)
    headers = stack.headers(**{"Content-Type": content_type})
    answered = post_and_kill_midway(f"{stack.base}/api/v1/uploads/", body, headers=headers, kill=stack.web.kill9)
    assert answered is None
    assert stack.count("results_upload") == 1
    assert stack.count("ingest_ingestjob") == 1

    assert_sent_again_to_a_new_web_host_it_is_ingested_once(stack, data, before)


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

    assert_sent_again_to_a_new_web_host_it_is_ingested_once(stack, data, before)
