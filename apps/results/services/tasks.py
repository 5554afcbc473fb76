"""Celery tasks of the results app: upkeep that must not lengthen the write that asked for it (detected changes
after an ingest, the anomaly rules after a new ceiling). The list upkeep task lives beside its service
(apps.results.services.list_entries.maintain_list), as do the custom lists' (apps.results.services.custom_lists)."""

from collections.abc import Iterable

from celery import shared_task
from django.db import InterfaceError, OperationalError, transaction

from apps.results.models import Run
from apps.results.services.anomaly_checks import check_run_anomalies
from apps.results.services.changes.history import detect_systems_changes


@shared_task(
    name="apps.results.tasks.detect_changes_task",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    max_retries=5,
    retry_backoff=5,
)
def detect_changes_task(run_pks: list[int]) -> None:
    """Recompute the changes of the systems of these runs. Idempotent: running it twice stores the same rows."""
    detect_systems_changes(Run.objects.filter(pk__in=run_pks).values_list("system_id", flat=True).distinct())


def schedule_change_detection(run_ids: Iterable[int]) -> None:
    """After the current transaction commits, recompute the changes of the systems of these new or
    rewritten runs, and only of those."""
    run_ids = sorted({int(pk) for pk in run_ids})
    if run_ids:
        transaction.on_commit(lambda: detect_changes_task.delay(run_ids), robust=True)


@shared_task(
    name="apps.results.tasks.check_runs_against_ceiling",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    max_retries=5,
    retry_backoff=5,
)
def check_runs_against_ceiling(system_id: int) -> None:
    """Re-run the anomaly rules of the system's IO500 runs (a stack of the system changed its measured
    ceiling: ``above_measured_ceiling``). Idempotent: the rules replace a run's findings."""
    for run in Run.objects.filter(system_id=system_id, kind=Run.Kind.IO500).iterator(chunk_size=200):
        check_run_anomalies(run, include_duplicates=False)


def schedule_ceiling_check(system_id: int) -> None:
    """After the current transaction commits, check the system's runs against its stack's ceiling."""
    transaction.on_commit(lambda: check_runs_against_ceiling.delay(system_id), robust=True)
