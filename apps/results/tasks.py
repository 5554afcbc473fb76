"""The results app's Celery tasks, found by autodiscovery (config.celery): each calls one service.

Each takes primary keys (or a list kind), is idempotent, and is enqueued by the service that knows it is due,
once the writer's transaction commits (`transaction.on_commit`, robust: a broker that is away loses the
message, not the write). The retry policy is the application's (config.celery.RetriedTask).

Names: each task is registered under its own dotted path. `formerly` keeps the names two of them were queued
under when they lived in apps.results.services.custom_lists, for the messages still in flight.
"""

from celery import shared_task

from apps.results.services import anomaly_checks, custom_lists, embargo, list_entries, notifications
from apps.results.services.changes import history
from config.celery import formerly


@shared_task
def maintain_list(kind: str) -> None:
    """Settle the list's ranks and refresh its statistics, as far as they are due (`list_entries.maintain`)."""
    list_entries.maintain(kind)


@shared_task
@formerly("apps.results.custom_lists.fill_custom_list")
def fill_custom_list(pk: int) -> None:
    """Complete a custom list's entries (`custom_lists.complete`)."""
    custom_lists.complete(pk)


@shared_task
@formerly("apps.results.custom_lists.refresh_custom_lists")
def refresh_custom_lists(system_ids: list[int]) -> None:
    """Re-evaluate these systems' members on every custom list (`custom_lists.refresh_systems`)."""
    custom_lists.refresh_systems(system_ids)


@shared_task
def detect_changes_task(run_pks: list[int]) -> None:
    """Recompute the changes of the systems of these runs (`history.detect_runs_changes`)."""
    history.detect_runs_changes(run_pks)


@shared_task
def check_runs_against_ceiling(system_id: int) -> None:
    """Re-run the anomaly rules of a system's IO500 runs against its stack's ceiling
    (`anomaly_checks.check_system_against_ceiling`)."""
    anomaly_checks.check_system_against_ceiling(system_id)


@shared_task
def release_due_embargoes() -> int:
    """Periodic (CELERY_BEAT_SCHEDULE): make public the uploads whose embargo date has passed
    (`embargo.release_due`). Idempotent."""
    return len(embargo.release_due())


@shared_task
def send_notification(user_pk: int, subject: str, body: str) -> None:
    """Mail an account about its upload or a decision on its run (`notifications.send`)."""
    notifications.send(user_pk, subject, body)
