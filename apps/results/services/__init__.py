"""Services: the results domain's work on the database, one module per idea.

List entries and their upkeep, editions, custom lists, awards, citations, review, anomaly checks, changes,
export, freshness (the data version and cache keys), bulk writes, ownership and the runs' write verbs
(`runs`). They read and write models and call the plain judgements; the wiring (admin, app config,
management commands, the Celery tasks of apps.results.tasks) calls them.
"""
