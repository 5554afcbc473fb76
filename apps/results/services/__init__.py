"""Services: the results domain's work on the database, one module per idea.

List entries and their upkeep, editions, custom lists, awards, citations, review, anomaly checks, changes,
export, freshness (the data version and cache keys), bulk writes, ownership and the runs' write verbs
(`runs`). Each Celery task sits beside the service it runs and keeps the name it was queued under. They
read and write models and call the plain judgements; the wiring (admin, app config, management commands)
calls them.
"""

from django.db import InterfaceError, OperationalError

#: The options of a results task that a lost database connection must not lose: acknowledged after it ran,
#: retried with a growing pause. Safe because every such task is idempotent.
RETRIED_ON_DATABASE_ERRORS = {
    "acks_late": True,
    "autoretry_for": (OperationalError, InterfaceError),
    "max_retries": 5,
    "retry_backoff": 5,
}
