"""DNE scaling analysis: how metadata rates grow with MDT count, and where they stop growing.

Pure functions over measured points (``analysis``) and the Plotly figures drawn from them
(``charts``). No Django here, so the rules can be tested and reused without a database; the
ingest service, the pages and the API all call into this package.
"""
