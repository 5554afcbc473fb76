"""Query budgets that depend on the database the suite runs against."""

from django.db import connection


def run_details_queries(relations: int) -> int:
    """The queries `Run.objects.with_details()` spends on `relations` related relations beyond the runs' own query:
    one on PostgreSQL, which reads them all at once (apps.results.models.run_details), one per relation elsewhere
    (prefetch_related)."""
    return 1 if connection.vendor == "postgresql" else relations
