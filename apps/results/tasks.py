"""Celery tasks of the results app: upkeep that must not lengthen the write that asked for it (list
entries after a change of a list, detected changes after an ingest)."""

from collections.abc import Iterable

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction

from apps.results import list_entries
from apps.results.anomaly_checks import check_run_anomalies
from apps.results.changes.services import detect_systems_changes
from apps.results.models import ListState, Run


@shared_task(acks_late=True, soft_time_limit=settings.CELERY_TASK_SOFT_TIME_LIMIT,
             time_limit=settings.CELERY_TASK_TIME_LIMIT)
def maintain_list(kind: str) -> None:
    """Settle the list's ranks when shifts have piled up, and refresh its statistics when stale.

    Enqueued after every commit that changed the list; idempotent and debounced by the state flags,
    so a burst of uploads costs one refresh, not one per upload.
    """
    state = ListState.objects.filter(kind=kind).first()
    if state is None:
        return
    if state.pending_shifts >= list_entries.SETTLE_AFTER:
        list_entries.settle(kind)
    if state.statistics_stale:
        list_entries.refresh_statistics(kind)


@shared_task(acks_late=True, autoretry_for=(OperationalError, InterfaceError), max_retries=5, retry_backoff=5)
def detect_changes_task(run_pks: list[int]) -> None:
    """Recompute the changes of the systems of these runs. Idempotent: running it twice stores the same rows."""
    detect_systems_changes(Run.objects.filter(pk__in=run_pks).values_list("system_id", flat=True).distinct())


def schedule_change_detection(run_ids: Iterable[int]) -> None:
    """After the current transaction commits, recompute the changes of the systems of these new or
    rewritten runs, and only of those."""
    run_ids = sorted({int(pk) for pk in run_ids})
    if run_ids:
        transaction.on_commit(lambda: detect_changes_task.delay(run_ids), robust=True)


@shared_task(acks_late=True, autoretry_for=(OperationalError, InterfaceError), max_retries=5, retry_backoff=5)
def check_runs_against_ceiling(system_id: int) -> None:
    """Re-run the anomaly rules of the system's IO500 runs (a stack of the system changed its measured
    ceiling: ``above_measured_ceiling``). Idempotent: the rules replace a run's findings."""
    for run in Run.objects.filter(system_id=system_id, kind=Run.Kind.IO500).iterator(chunk_size=200):
        check_run_anomalies(run, include_duplicates=False)


def schedule_ceiling_check(system_id: int) -> None:
    """After the current transaction commits, check the system's runs against its stack's ceiling."""
    transaction.on_commit(lambda: check_runs_against_ceiling.delay(system_id), robust=True)
