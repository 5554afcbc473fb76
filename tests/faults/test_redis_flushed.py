"""Redis flushed while uploads wait in its queue: the sweep finds them again and each is ingested exactly once.

Real gunicorn, a private redis-server (flushing it disturbs no one) and a real Celery worker on the test's
database. Four uploads are accepted while no worker runs, so their messages wait in Redis; FLUSHALL loses
every one of them. The uploads themselves are kept in PostgreSQL (the stored file, a pending job), so the
sweep (`manage.py requeue_uploads`, what the periodic task `requeue_stuck_uploads` runs) enqueues them again.
The worker then started enqueues every unfinished job once more on its own (its start-up sweep): each job gets
two messages, and the claim lets one through.
"""

import pytest

from rig import processes
from rig.servers import redis_cli
from tests.faults.stack import SUBMISSIONS, assert_each_upload_ended_and_ran_once, submission_archive

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_uploads_whose_messages_redis_lost_are_found_by_the_sweep_and_ingested_once(stack):
    stack.start_web()
    archives = {folder.name: submission_archive(folder) for folder in SUBMISSIONS[:4]}
    answers = [stack.upload(f"{name}.tgz", data) for name, data in archives.items()]
    assert [status for status, _ in answers] == [202] * 4, answers
    upload_ids = [answer["id"] for _, answer in answers]
    assert redis_cli(stack.redis_port, "LLEN", "celery") == "4"

    assert redis_cli(stack.redis_port, "FLUSHALL") == "OK"
    assert redis_cli(stack.redis_port, "LLEN", "celery") == "0"
    assert {stack.status_of(pk)["status"] for pk in upload_ids} == {"pending"}  # kept, waiting for no message

    swept = processes.manage(["requeue_uploads", "--older-than", "0"], env=stack.env).strip()
    assert swept.startswith("re-enqueued 4 job(s)"), swept
    assert redis_cli(stack.redis_port, "LLEN", "celery") == "4"

    stack.start_worker("after-flush")
    finals = stack.wait_until_finished(upload_ids, timeout=60)
    assert {answer["status"] for answer in finals.values()} == {"done"}, finals
    assert [answer["attempts"] for answer in finals.values()] == [1] * 4  # the duplicate messages were dropped
    assert_each_upload_ended_and_ran_once(stack, finals, sent=4)
