"""Web layer shared by the two front ends (``apps.leaderboard`` pages and ``apps.api``).

Not a Django app: no models, no migrations. It sits above ingest and results and below the front
ends, which both import it and never each other (the import contract in ``pyproject.toml``).
"""
