"""Services: the results domain's work on the database, one module per idea.

List entries and their upkeep, editions, custom lists, awards, citations, review, anomaly checks, changes,
export, freshness (the data version and cache keys), bulk writes, ownership, the runs' upkeep and the
Celery tasks that run it after a commit (`tasks`, and the custom lists' own in `custom_lists`; both keep
the task names they were queued under). They read and write models and call the plain judgements; the
wiring (admin, app config, management commands) calls them.
"""
