"""Changes as stored rows: a system's history read into series, detection run on them and the `Change` rows
reconciled (`history`), grouped into events, judged against noise, exported. The plain detection and
attribution are `apps.results.judgements.changes`.
"""
