"""Judgements: what ioboard concludes from numbers, in plain Python (no Django).

Scores and score rules, anomaly rules and their facts, submission-rule clauses, the reproducibility
questionnaire, custom-list equations, scaling and study analyses, change detection and attribution, rank
statistics, the run diff and a campaign's semantics. Each takes values and returns a verdict, so it is
tested without a database and reused as it is by the ingest, the pages, the API and the bench.

"Judgements" rather than "core" or "domain": every module here decides something (a score, a finding, a
verdict, a change), and nothing here stores or reads a row. import-linter keeps Django out of this
package (pyproject.toml) and keeps it the lowest room of apps.results: models build on it, never the
other way round.
"""
