"""PostgreSQL restarted while uploads are being ingested: each ends done, its run stored once; none stays stuck.

A private PostgreSQL instance (initdb in a temporary directory, on a free port: restarting it disturbs no one)
under real gunicorn, a private redis-server and a real Celery worker. Five uploads are accepted and queued; the
worker takes them one by one, each ingest a little slowed (a wrapper waits 1.5 s before it) so that the restart
lands while one is being ingested. PostgreSQL is stopped (fast shutdown: every connection cut) as soon as the
first is processing, and a sixth upload sent meanwhile is answered with an error; started again, the same file
sent again is accepted. The interrupted ingest's connection is dead and giving its claim back fails with it, so
its retry must take its own claim back (`IngestJob.claim(resuming=...)`) rather than leave the job "processing"
until the sweep, a quarter of an hour later. Every upload ends done within the minute, one run each.
"""

import pytest

from rig import PYTHON, processes
from tests.faults.stack import SUBMISSIONS, Stack, assert_each_upload_ended_and_ran_once, submission_archive

pytestmark = pytest.mark.services

# `celery worker` whose every ingest waits 1.5 s first, on a connection opened before the wait (its claim's).
SLOW_INGEST_WORKER = """
import sys, time
import django
django.setup()
from apps.ingest import tasks
original = tasks.ingest_upload
def slowly(upload):
    time.sleep(1.5)
    return original(upload)
tasks.ingest_upload = slowly
from celery.__main__ import main
sys.argv = ["celery", *sys.argv[1:]]
main()
"""

NEW_TOKEN = """
from django.contrib.auth import get_user_model
from apps.results.models import ApiToken
print(ApiToken.issue(get_user_model().objects.create(username="restarted"), "faults")[1])
"""


@pytest.fixture
def private_pg_stack(private_postgres, tmp_path):
    pg, url = private_postgres
    stack = Stack(tmp_path, url)
    try:
        stack.token = processes.manage(["shell", "-c", NEW_TOKEN], env={"DATABASE_URL": url}).split()[-1]
        stack.start_web()
        stack.start_worker("pg-restart", launcher=[PYTHON, "-c", SLOW_INGEST_WORKER])
        yield pg, stack
    finally:
        stack.close()


def test_uploads_being_ingested_across_a_postgresql_restart_each_end_done_with_one_run(private_pg_stack):
    pg, stack = private_pg_stack
    archives = [(f"{folder.name}.tgz", submission_archive(folder)) for folder in SUBMISSIONS]
    answers = [stack.upload(name, data) for name, data in archives[:5]]
    assert [status for status, _ in answers] == [202] * 5, answers
    upload_ids = [answer["id"] for _, answer in answers]
    processes.wait_until(
        lambda: any(stack.status_of(pk)["status"] == "processing" for pk in upload_ids),
        timeout=30,
        interval=0.1,
        what="an upload being ingested",
    )

    pg.stop("fast")
    refused, _ = stack.upload(*archives[5], timeout=30)
    pg.start()

    assert refused == 0 or refused >= 500  # an error, never a 202 for an upload that could not be kept
    status, answer = stack.upload(*archives[5])
    assert status == 202, answer
    upload_ids.append(answer["id"])
    finals = stack.wait_until_finished(upload_ids, timeout=60)
    assert {answer["status"] for answer in finals.values()} == {"done"}, finals
    assert max(answer["attempts"] for answer in finals.values()) >= 2  # the restart did interrupt an ingest
    assert_each_upload_ended_and_ran_once(stack, finals, sent=6)
