from django.apps import AppConfig


class ResultsConfig(AppConfig):
    """Connects no signal receivers: what a write sets off (list entries, custom lists, the data version) is
    called by the write itself (apps.results.services.runs for runs, systems and institutions; each writing service for
    the rest)."""

    name = "apps.results"
    verbose_name = "Results"

    def ready(self) -> None:
        """Register the app's tasks in every process, the web's too: the services enqueue them by name
        (apps.results.services.enqueue)."""
        from apps.results import tasks  # noqa: F401
