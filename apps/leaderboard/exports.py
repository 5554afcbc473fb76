"""CSV and JSON downloads of any list view: the rows of the view (same filters, same order), every field.

A live-list record holds the run's list columns, its normalised scores, verification, validity,
exclusion reason, anomalies, provenance and every phase (value, unit, seconds); an edition record
holds the frozen copy plus the run's current anomalies. Both stream, so a 100k-run historic list
does not sit in memory.
"""

import csv
import json
from collections.abc import Iterable, Iterator

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Max, Min, Prefetch
from django.http import StreamingHttpResponse

from apps.results.models import PhaseResult

CHUNK = 1000

RUN_COLUMNS = [
    "rank", "run_id", "run_url", "institution", "country", "system_id", "system", "storage_vendor", "filesystem",
    "server_count", "client_nodes", "client_procs", "procs_per_node", "score", "bw", "md", "score_per_node",
    "bw_per_node", "md_per_node", "score_per_server", "bw_per_server", "md_per_server", "reported_score",
    "reported_bw", "reported_md", "score_formula", "verification", "config_hash_status", "valid", "flagged",
    "exclusion_reason", "anomalies", "year", "run_timestamp", "kind", "era", "generation", "benchmark_version",
    "lustre_server_version", "lustre_client_version", "lustre_base_commit", "source_path", "submission_id",
    "content_hash",
]
ENTRY_COLUMNS = [
    "edition", "list", "frozen_at", "rank", "run_id", "run_url", "institution", "system_id", "system",
    "storage_vendor", "filesystem", "client_nodes", "client_procs", "score", "bw", "md", "score_per_node",
    "bw_per_node", "md_per_node", "score_per_server", "bw_per_server", "md_per_server", "exclusion_reason",
    "current_anomalies",
]


def _anomalies(badges) -> list[dict]:
    return [{"rule": a.rule, "severity": a.severity, "phase": a.phase, "message": a.message} for a in badges]


def phase_columns(runs) -> list[tuple[str, str]]:
    """(name, unit) of every phase of the listed runs, in benchmark order: one query."""
    phases = PhaseResult.objects.filter(run__in=runs.values("pk"))
    rows = phases.values("name").annotate(position=Min("position"), unit=Max("unit")).order_by("position", "name")
    return [(row["name"], row["unit"]) for row in rows]


def run_records(runs) -> Iterator[dict]:
    phases = PhaseResult.objects.only("run_id", "name", "value", "unit", "seconds")
    for run in runs.prefetch_related(Prefetch("phases", queryset=phases)).iterator(chunk_size=CHUNK):
        system, build = run.system, run.lustre_build
        yield {
            "rank": run.rank, "run_id": run.pk, "run_url": run.get_absolute_url(),
            "institution": system.institution.name, "country": system.institution.country,
            "system_id": system.pk, "system": system.name, "storage_vendor": system.storage_vendor,
            "filesystem": system.filesystem, "server_count": system.server_count,
            "client_nodes": run.client_nodes, "client_procs": run.client_procs, "procs_per_node": run.procs_per_node,
            "score": run.score_total, "bw": run.score_bw, "md": run.score_md,
            "score_per_node": run.score_per_node, "bw_per_node": run.bw_per_node, "md_per_node": run.md_per_node,
            "score_per_server": run.score_per_server, "bw_per_server": run.bw_per_server,
            "md_per_server": run.md_per_server,
            "reported_score": run.reported_total, "reported_bw": run.reported_bw, "reported_md": run.reported_md,
            "score_formula": run.score_formula, "verification": run.verification,
            "config_hash_status": run.config_hash_status, "valid": run.valid, "flagged": run.flagged,
            "exclusion_reason": run.exclusion_reason, "anomalies": _anomalies(run.badges),
            "year": run.year, "run_timestamp": run.run_timestamp, "kind": run.kind, "era": run.era,
            "generation": run.generation, "benchmark_version": run.benchmark_version,
            "lustre_server_version": build.server_version if build else "",
            "lustre_client_version": build.client_version if build else "",
            "lustre_base_commit": build.base_commit if build else "",
            "source_path": run.source_path, "submission_id": run.submission_id, "content_hash": run.content_hash,
            "phases": {p.name: {"value": p.value, "unit": p.unit, "seconds": p.seconds} for p in run.phases.all()},
        }


def entry_records(entries) -> Iterator[dict]:
    for entry in entries.iterator(chunk_size=CHUNK):
        run = entry.run
        yield {
            "edition": entry.edition.name, "list": entry.edition.list_kind, "frozen_at": entry.edition.frozen_at,
            "rank": entry.rank, "run_id": entry.run_id, "run_url": run.get_absolute_url() if run else "",
            "institution": entry.institution_name, "system_id": entry.system_id, "system": entry.system_name,
            "storage_vendor": entry.storage_vendor, "filesystem": entry.filesystem,
            "client_nodes": entry.client_nodes, "client_procs": entry.client_procs,
            "score": entry.score, "bw": entry.score_bw, "md": entry.score_md,
            "score_per_node": entry.score_per_node, "bw_per_node": entry.bw_per_node,
            "md_per_node": entry.md_per_node, "score_per_server": entry.score_per_server,
            "bw_per_server": entry.bw_per_server, "md_per_server": entry.md_per_server,
            "exclusion_reason": entry.exclusion_reason,
            "current_anomalies": _anomalies(run.badges) if run else [],
        }


def _csv_value(value):
    if isinstance(value, list):
        return "; ".join(f"{item['rule']} ({item['severity']})" for item in value)
    return "" if value is None else value


class _Echo:
    def write(self, value):
        return value


def csv_response(records: Iterable[dict], columns: list[str], phases: list[tuple[str, str]],
                 filename: str) -> StreamingHttpResponse:
    """A header, then one line per record; phases become `<name>`, `<name>_unit` and `<name>_seconds` columns."""

    def lines():
        writer = csv.writer(_Echo())
        phase_header = [f"{name}{suffix}" for name, _ in phases for suffix in ("", "_unit", "_seconds")]
        yield writer.writerow(columns + phase_header)
        for record in records:
            phase_values = record.get("phases", {})
            row = [_csv_value(record[key]) for key in columns]
            for name, unit in phases:
                phase = phase_values.get(name, {})
                row += [_csv_value(phase.get("value")), phase.get("unit", unit), _csv_value(phase.get("seconds"))]
            yield writer.writerow(row)

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}.csv"'
    return response


def json_response(records: Iterable[dict], meta: dict, filename: str) -> StreamingHttpResponse:
    """{"meta": {...}, "rows": [...]}, streamed."""

    def chunks():
        yield '{"meta": ' + json.dumps(meta, cls=DjangoJSONEncoder) + ', "rows": ['
        for index, record in enumerate(records):
            yield ("," if index else "") + json.dumps(record, cls=DjangoJSONEncoder)
        yield "]}"

    response = StreamingHttpResponse(chunks(), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{filename}.json"'
    return response
