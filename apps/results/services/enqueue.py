"""Enqueueing the results app's tasks once the writer's transaction commits, by their registered names.

The tasks (apps.results.tasks) call the services, and the services know when a task is due. Were the services to
import the tasks, every service with a task would sit in an import cycle with it (tests/architecture); so a
service names the task, as Celery's own registry does (`app.tasks[name]`), and the results app imports its tasks
when Django starts (apps.results.apps), so every name here is registered in the web process and the worker
alike. `tests/config/test_task_names.py` checks that each name below is a registered task.

On commit and robust: a broker that is away loses the message, never the write (the sweeps find the work again).
"""

from celery import current_app
from django.db import transaction

MAINTAIN_LIST = "apps.results.tasks.maintain_list"
FILL_CUSTOM_LIST = "apps.results.tasks.fill_custom_list"
REFRESH_CUSTOM_LISTS = "apps.results.tasks.refresh_custom_lists"
DETECT_CHANGES = "apps.results.tasks.detect_changes_task"
CHECK_RUNS_AGAINST_CEILING = "apps.results.tasks.check_runs_against_ceiling"
SEND_NOTIFICATION = "apps.results.tasks.send_notification"

#: Every task a service of apps.results enqueues.
ENQUEUED = (
    MAINTAIN_LIST,
    FILL_CUSTOM_LIST,
    REFRESH_CUSTOM_LISTS,
    DETECT_CHANGES,
    CHECK_RUNS_AGAINST_CEILING,
    SEND_NOTIFICATION,
)


def on_commit(task_name: str, *args) -> None:
    """Send the task `task_name` with `args` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: current_app.tasks[task_name].delay(*args), robust=True)
