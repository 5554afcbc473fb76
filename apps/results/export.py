"""Runs as plain dicts and flat rows: the one export shape behind `export_runs` and list exports."""

from collections.abc import Iterable, Iterator

from django.db.models import Prefetch

from apps.results.models import Anomaly, PhaseResult, Run

CHUNK = 2000


def export_queryset(queryset=None):
    base = Run.objects.all() if queryset is None else queryset
    return base.select_related("system__institution").defer("config", "info", "facts").prefetch_related(
        Prefetch("phases", queryset=PhaseResult.objects.only("run_id", "name", "value", "unit", "seconds", "position")),
        Prefetch("anomalies", queryset=Anomaly.objects.only("run_id", "rule", "severity", "phase", "evidence")),
    )


def iter_runs(queryset=None) -> Iterator[Run]:
    """Runs with phases and anomalies, streamed in chunks so 100k runs fit in little memory."""
    yield from export_queryset(queryset).order_by("pk").iterator(chunk_size=CHUNK)


def _score(bw, md, total) -> dict:
    return {"bw": bw, "md": md, "total": total}


def run_to_dict(run: Run) -> dict:
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
        "phases": {p.name: {"value": p.value, "unit": p.unit, "seconds": p.seconds} for p in run.phases.all()},
        "score": _score(run.score_bw, run.score_md, run.score_total),
        "reported_score": _score(run.reported_bw, run.reported_md, run.reported_total),
        "verification": run.verification,
        "valid": run.valid,
        "anomalies": [
            {"rule": a.rule, "severity": a.severity, "phase": a.phase, "evidence": a.evidence}
            for a in run.anomalies.all()
        ],
    }


CSV_FIXED = [
    "id", "source_path", "institution", "system", "filesystem", "client_nodes", "client_procs",
    "benchmark_version", "era", "score_bw", "score_md", "score_total", "reported_bw", "reported_md",
    "reported_total", "verification", "valid", "anomalies",
]


def csv_header(phase_names: Iterable[str]) -> list[str]:
    header = list(CSV_FIXED)
    for name in phase_names:
        header += [name, f"{name}_unit", f"{name}_seconds"]
    return header


def run_to_row(run: Run, phase_names: list[str]) -> list:
    data = run_to_dict(run)
    row = [data[key] for key in CSV_FIXED[:9]]
    row += [run.score_bw, run.score_md, run.score_total, run.reported_bw, run.reported_md, run.reported_total,
            run.verification, run.valid, ";".join(f"{a['rule']}:{a['severity']}" for a in data["anomalies"])]
    for name in phase_names:
        phase = data["phases"].get(name, {})
        row += [phase.get("value"), phase.get("unit"), phase.get("seconds")]
    return row


def phase_names_of(queryset=None) -> list[str]:
    runs = Run.objects.all() if queryset is None else queryset
    names = PhaseResult.objects.filter(run__in=runs.values("pk")).order_by().values_list("name", flat=True).distinct()
    return sorted(set(names))
