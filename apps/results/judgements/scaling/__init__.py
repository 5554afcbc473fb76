"""DNE scaling analysis: how metadata rates grow with MDT count, and where they stop growing.

Pure functions over measured points (``analysis``). No Django here, so the rules can be tested and
reused without a database; the ingest service, the pages and the API all call into this package.
The Plotly figures drawn from these results are web code and live in
``apps.leaderboard.scaling_charts``.
"""
