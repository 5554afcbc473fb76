from django.apps import AppConfig
from django.db import DEFAULT_DB_ALIAS
from django.db.models.signals import post_migrate


class ResultsConfig(AppConfig):
    """Connects no signal receivers for writes: what a write sets off (list entries, custom lists, the data version)
    is called by the write itself (apps.results.services.runs for runs, systems and institutions; each writing
    service for the rest). One receiver runs after `migrate`: lists that have runs but no entries are rebuilt
    (`rebuild_missing_lists`), so a database brought forward by `migrate` alone serves its lists."""

    name = "apps.results"
    verbose_name = "Results"

    def ready(self) -> None:
        """Register the app's tasks in every process, the web's too (the services enqueue them by name:
        apps.results.services.enqueue), and the rebuild of missing lists after `migrate`."""
        from apps.results import tasks  # noqa: F401

        post_migrate.connect(rebuild_missing_lists, sender=self, dispatch_uid="results.rebuild_missing_lists")


def rebuild_missing_lists(*, using: str = DEFAULT_DB_ALIAS, verbosity: int = 1, **kwargs) -> None:
    """After `migrate`: refill every list kind whose entries are missing (list_entries.missing_lists), as
    `manage.py rebuild_lists` would. Costs two EXISTS queries per list kind when nothing is missing."""
    from apps.results.models.list_kinds import LIST_KINDS
    from apps.results.services import list_entries, runs

    if using != DEFAULT_DB_ALIAS:
        return
    missing = list_entries.missing_lists()
    if not missing:
        return
    filled = runs.rebuild_lists(None if set(missing) == set(LIST_KINDS) else missing)
    if verbosity:
        print("  Rebuilt the lists that had no entries: " + ", ".join(f"{kind} ({filled[kind]})" for kind in missing))
