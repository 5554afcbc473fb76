from django.apps import AppConfig


class ResultsConfig(AppConfig):
    """Connects no signal receivers: what a write sets off (list entries, custom lists, the data version) is
    called by the write itself (apps.results.services.runs for runs, systems and institutions; each writing service for
    the rest)."""

    name = "apps.results"
    verbose_name = "Results"
