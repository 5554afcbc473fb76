"""The Celery application: `celery -A config worker` starts a worker.

Tasks live in a `tasks.py` per app, found by autodiscovery: each is thin (it calls a service), takes primary
keys, is idempotent and is enqueued once the writer's transaction commits. They share one retry policy,
`RetriedTask`, the application's task class: no task states its own.
"""

import contextlib
import os
from pathlib import Path

from celery import Celery, Task, shared_task
from celery.signals import worker_init
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


@worker_init.connect
def run_at_lowest_priority(**_) -> None:
    """Readers first: a worker runs at IOBOARD_WORKER_NICE (19 by default; under SCHED_IDLE too with
    IOBOARD_WORKER_SCHED_IDLE), so on a host it shares with the web a burst of ingests waits for the pages.

    Set in the worker's main process before its pool starts: the pool's processes, and the threads of each,
    inherit it. Only ever lowered, never raised back. Where the kernel shares the CPUs between sessions first
    (sched_autogroup), a process's niceness only ranks it within its session, so the session's niceness is set
    too, but only when the worker leads a session of its own (systemd, a container, `setsid`): a worker started
    from a shell shares the shell's session, which must keep its priority.
    """
    from django.conf import settings

    nice = settings.IOBOARD_WORKER_NICE
    if nice > os.getpriority(os.PRIO_PROCESS, 0):
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    if nice and os.getsid(0) == os.getpid():
        with contextlib.suppress(OSError):  # no autogroups on this kernel: the process's niceness is enough
            Path("/proc/self/autogroup").write_text(str(nice))
    if settings.IOBOARD_WORKER_SCHED_IDLE:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
