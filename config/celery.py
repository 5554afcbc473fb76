"""The Celery application: `celery -A config worker` starts a worker.

Tasks live in a `tasks.py` per app, found by autodiscovery: each is thin (it calls a service), takes primary
keys, is idempotent and is enqueued once the writer's transaction commits. They share one retry policy,
`RetriedTask`, the application's task class: no task states its own.
"""

import os

from celery import Celery, Task, shared_task
from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: The database or the broker went away for a moment: worth another try, unlike bad content.
TRANSIENT_ERRORS = (OperationalError, InterfaceError, RedisConnectionError)


class RetriedTask(Task):
    """Every task's policy: acknowledged after it ran (a worker that dies has it redelivered), retried on a
    transient error with a growing, jittered pause, five times at most. Safe because every task is idempotent."""

    acks_late = True
    autoretry_for = TRANSIENT_ERRORS
    max_retries = 5
    retry_backoff = 5
    retry_backoff_max = 300
    retry_jitter = True


def formerly(*names: str):
    """Register the decorated task's function under the names earlier releases queued it under too.

    A message already in the broker, or a beat schedule not yet reloaded, names the task as it was named when
    sent; each old name runs the same function under the same policy. Drop a name once no message in
    flight can carry it (a release after the one that renamed it, its queues drained).
    """

    def register(function):
        for name in names:
            shared_task(name=name)(function)
        return function

    return register


app = Celery("ioboard", task_cls=RetriedTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
