"""A worker finds every task through autodiscovery, under its true name and under the names it was queued under.

Tasks live in a `tasks.py` per app (apps/results/tasks.py, apps/ingest/tasks.py), registered under their dotted
paths. Two moved there from apps.results.services.custom_lists: messages already in the broker, or a beat
schedule not yet reloaded, still name them as they were, so the old names stay registered as aliases
(config.celery.formerly) while messages in flight may carry them. Every task retries as one policy says
(config.celery.RetriedTask).
"""

import inspect

from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

from apps.results.services import enqueue
from config.celery import app

TRUE_NAMES = {
    "apps.ingest.tasks.ingest_upload_task",
    "apps.ingest.tasks.remove_expired_failed_uploads",
    "apps.ingest.tasks.requeue_stuck_uploads",
    "apps.results.tasks.check_runs_against_ceiling",
    "apps.results.tasks.detect_changes_task",
    "apps.results.tasks.fill_custom_list",
    "apps.results.tasks.maintain_list",
    "apps.results.tasks.refresh_custom_lists",
    "apps.results.tasks.release_due_embargoes",
    "apps.results.tasks.send_notification",
}
#: Old name → true name, for the messages in flight; drop one a release after its messages drained.
ALIASES = {
    "apps.results.custom_lists.fill_custom_list": "apps.results.tasks.fill_custom_list",
    "apps.results.custom_lists.refresh_custom_lists": "apps.results.tasks.refresh_custom_lists",
}


def registered() -> dict:
    """The tasks a worker registers: autodiscovery alone, nothing imported by hand (no CELERY_IMPORTS)."""
    app.loader.import_default_modules()
    app.autodiscover_tasks(force=True)
    return {name: task for name, task in app.tasks.items() if name.startswith("apps.")}


def test_a_worker_registers_every_task_under_its_true_name_and_no_other():
    assert set(registered()) == TRUE_NAMES | set(ALIASES)
    assert not app.conf.imports


def test_an_old_name_runs_the_same_function_as_the_true_name():
    tasks = registered()
    for old, true in ALIASES.items():
        assert inspect.unwrap(tasks[old].run) is inspect.unwrap(tasks[true].run), old


def test_every_task_retries_transient_errors_late_acked_with_a_growing_pause():
    for name, task in registered().items():
        assert task.acks_late is True, name
        assert set(task.autoretry_for) == {OperationalError, InterfaceError, RedisConnectionError}, name
        assert (task.max_retries, task.retry_backoff, task.retry_backoff_max, task.retry_jitter) == (
            5,
            5,
            300,
            True,
        ), name


def test_the_beat_schedule_names_registered_tasks():
    assert {entry["task"] for entry in app.conf.beat_schedule.values()} <= set(registered())


def test_the_services_enqueue_registered_tasks_by_their_true_names():
    assert set(enqueue.ENQUEUED) <= TRUE_NAMES
    assert len(enqueue.ENQUEUED) == 6
