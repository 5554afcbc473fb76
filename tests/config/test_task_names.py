"""A worker knows every task by the name it was first queued under, wherever its code lives now.

Messages already in the broker and the beat schedule name tasks by their dotted names; moving a task's
code (apps/results/tasks.py became the service modules whose work each task runs) must not orphan them, and the worker
must register them without any other module happening to import theirs first.
"""

from config.celery import app

QUEUED_NAMES = {
    "apps.ingest.tasks.ingest_upload_task",
    "apps.ingest.tasks.requeue_stuck_uploads",
    "apps.results.custom_lists.fill_custom_list",
    "apps.results.custom_lists.refresh_custom_lists",
    "apps.results.tasks.check_runs_against_ceiling",
    "apps.results.tasks.detect_changes_task",
    "apps.results.tasks.maintain_list",
}


def test_a_worker_registers_every_task_under_the_name_it_was_queued_under():
    app.loader.import_default_modules()
    app.autodiscover_tasks(force=True)
    assert QUEUED_NAMES - set(app.tasks) == set()


def test_the_beat_schedule_names_registered_tasks():
    app.loader.import_default_modules()
    assert {entry["task"] for entry in app.conf.beat_schedule.values()} <= set(app.tasks)
