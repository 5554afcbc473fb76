"""The export record of a run (``run_to_dict``): one shape behind ``export_runs``, the list exports and the API."""

import csv
from collections.abc import Iterable, Iterator

from django.db.models import Prefetch

from apps.results.models import Anomaly, PhaseRankStats, PhaseResult, Run

CHUNK = 2000


def export_queryset(queryset=None):
    base = Run.objects.all() if queryset is None else queryset
    return (
        base.select_related("system__institution")
        .without_large_fields()
        .prefetch_related(
            Prefetch(
                "phases", queryset=PhaseResult.objects.only("run_id", "name", "value", "unit", "seconds", "position")
            ),
            Prefetch("anomalies", queryset=Anomaly.objects.only("run_id", "rule", "severity", "phase", "evidence")),
            rank_stats_prefetch(),
        )
    )


def rank_stats_prefetch() -> Prefetch:
    """The per-phase rank figures of the export record, without the per-rank rows only charts read."""
    return Prefetch("rank_stats", queryset=PhaseRankStats.objects.defer("per_rank"))


def iter_runs(queryset=None) -> Iterator[Run]:
    """Runs with phases and anomalies, streamed in chunks so any number of runs fits in little memory."""
    yield from export_queryset(queryset).order_by("pk").iterator(chunk_size=CHUNK)


def score_record(bw: float | None, md: float | None, total: float | None) -> dict:
    """A score in every export: {"bw": GiB/s, "md": kIOPS, "total": float}, never a bare float."""
    return {"bw": bw, "md": md, "total": total}


def phase_record(phase: PhaseResult) -> dict:
    return {"value": phase.value, "unit": phase.unit, "seconds": phase.seconds}


def anomaly_record(anomaly: Anomaly) -> dict:
    return {"rule": anomaly.rule, "severity": anomaly.severity, "phase": anomaly.phase, "evidence": anomaly.evidence}


def run_to_dict(run: Run, anomalies: Iterable[Anomaly] | None = None) -> dict:
    """The export record of a run: the documented ``export_runs --format json`` object.

    The list exports (``apps.leaderboard.exports``) extend it with their list columns, and the API
    presents the same field names with the same types (``score`` and ``reported_score`` are
    {bw, md, total}; ``phases`` maps a name to {value, unit, seconds}; ``ranks`` maps a phase with
    per-rank CSVs to ``PhaseRankStats.to_export()``). ``anomalies`` replaces
    ``run.anomalies.all()`` when the caller prefetched them under another name.
    """
    return {
        "id": run.pk,
        "source_path": run.source_path,
        "institution": run.system.institution.name,
        "system": run.system.name,
        "filesystem": run.system.filesystem,
        "client_nodes": run.client_nodes,
        "client_procs": run.client_procs,
        "benchmark_version": run.benchmark_version,
        "era": run.era,
        "phases": {p.name: phase_record(p) for p in run.phases.all()},
        "score": score_record(run.score_bw, run.score_md, run.score_total),
        "reported_score": score_record(run.reported_bw, run.reported_md, run.reported_total),
        "verification": run.verification,
        "valid": run.valid,
        "anomalies": [anomaly_record(a) for a in (run.anomalies.all() if anomalies is None else anomalies)],
        "ranks": {stats.phase: stats.to_export() for stats in run.rank_stats.all()},
    }


# CSV has no nesting: the score records become these columns (the models' own field names).
SCORE_COLUMNS = {
    "score": ("score_bw", "score_md", "score_total"),
    "reported_score": ("reported_bw", "reported_md", "reported_total"),
}


def flat_scores(record: dict) -> dict:
    """The record's score dicts as flat CSV columns (``score`` -> ``score_bw``, ``score_md``, ``score_total``)."""
    flat = {}
    for key, columns in SCORE_COLUMNS.items():
        if key in record:
            for column, part in zip(columns, ("bw", "md", "total"), strict=True):
                flat[column] = record[key][part]
    return flat


CSV_FIXED = [
    "id",
    "source_path",
    "institution",
    "system",
    "filesystem",
    "client_nodes",
    "client_procs",
    "benchmark_version",
    "era",
    "score_bw",
    "score_md",
    "score_total",
    "reported_bw",
    "reported_md",
    "reported_total",
    "verification",
    "valid",
    "anomalies",
]


#: A text cell starting with one of these is a formula to a spreadsheet (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def formula_safe(value):
    """A text cell that a spreadsheet would run as a formula, prefixed with a quote (OWASP's advice); anything else,
    numbers among them, as it is. A negative number stays a number; "-2+3" typed by an uploader is text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class FormulaSafeWriter:
    """``csv.writer`` whose every cell goes through ``formula_safe``: every CSV ioboard writes (the list exports,
    ``export_runs``, ``export_scaling``) is written by one, so no text an uploader chose runs in a reader's
    spreadsheet."""

    def __init__(self, out, **fmtparams):
        self.writer = csv.writer(out, **fmtparams)

    def writerow(self, row: Iterable):
        return self.writer.writerow([formula_safe(value) for value in row])


def csv_header(phase_names: Iterable[str]) -> list[str]:
    header = list(CSV_FIXED)
    for name in phase_names:
        header += [name, f"{name}_unit", f"{name}_seconds"]
    return header


def run_to_row(run: Run, phase_names: list[str]) -> list:
    data = run_to_dict(run)
    data.update(flat_scores(data))
    data["anomalies"] = ";".join(f"{a['rule']}:{a['severity']}" for a in data["anomalies"])
    row = [data[key] for key in CSV_FIXED]
    for name in phase_names:
        phase = data["phases"].get(name, {})
        row += [phase.get("value"), phase.get("unit"), phase.get("seconds")]
    return row


def phase_names_of(queryset=None) -> list[str]:
    runs = Run.objects.all() if queryset is None else queryset
    names = PhaseResult.objects.filter(run__in=runs.values("pk")).order_by().values_list("name", flat=True).distinct()
    return sorted(set(names))
