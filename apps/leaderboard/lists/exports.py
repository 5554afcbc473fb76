"""CSV and JSON downloads of any list view: the rows of the view (same filters, same order), every field.

A live-list record is the run's export record (``apps.results.services.export.run_to_dict``, the shape of
``export_runs``) plus the list's columns: rank, URL, normalised scores, verdicts, provenance. An
edition record holds the frozen copy plus the run's current anomalies. Scores are {bw, md, total}
in JSON and ``score_bw``/``score_md``/``score_total`` columns in CSV, in both. Both stream, so a
100k-run historic list does not sit in memory.

An export comes in pages of IOBOARD_EXPORT_PAGE_ROWS rows (``ExportPage``), each with a ``Link: <…>; rel="next"``
header (and ``meta.next`` in JSON) while rows remain: one request writes a bounded number of rows, well within a
worker's timeout, and following the links reaches every row of the view. Pages rather than a file built by a
task: a page is the same view cut at fixed places, so nothing is stored, nothing goes stale, and a client that
reads the API's pages already knows how to follow them.
"""

import json
from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass
from itertools import islice

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Max, Min, Prefetch, prefetch_related_objects
from django.http import Http404, StreamingHttpResponse

from apps.results.models import PhaseResult
from apps.results.models.list_columns import LIST_COLUMNS, NORMALISED_COLUMNS, column_value
from apps.results.models.querysets import anomalies_in_order
from apps.results.services.export import FormulaSafeWriter, flat_scores, rank_stats_prefetch, run_to_dict, score_record
from apps.web.query_guard import MAX_DATABASE_ID, database_id

CHUNK = 1000

RUN_COLUMNS = [
    "rank",
    "id",
    "run_url",
    "institution",
    "country",
    "system_id",
    "system",
    "storage_vendor",
    "filesystem",
    "server_count",
    "client_nodes",
    "client_procs",
    "procs_per_node",
    "score_total",
    "score_bw",
    "score_md",
    *(column.export_name for column in NORMALISED_COLUMNS),
    "reported_total",
    "reported_bw",
    "reported_md",
    "score_formula",
    "verification",
    "config_hash_status",
    "valid",
    "flagged",
    "exclusion_reason",
    "anomalies",
    "year",
    "run_timestamp",
    "kind",
    "era",
    "generation",
    "benchmark_version",
    "lustre_server_version",
    "lustre_client_version",
    "lustre_base_commit",
    "source_path",
    "submission_id",
    "content_hash",
]
ENTRY_COLUMNS = [
    "edition",
    "list",
    "frozen_at",
    "rank",
    "run_id",
    "run_url",
    "institution",
    "system_id",
    "system",
    "storage_vendor",
    "filesystem",
    "client_nodes",
    "client_procs",
    "score_total",
    "score_bw",
    "score_md",
    *(column.export_name for column in NORMALISED_COLUMNS),
    "year",
    "flagged",
    "exclusion_reason",
    "current_anomalies",
]
#: The columns an edition does not freeze but reads from its runs as they are now (the year, the anomaly flag).
CURRENT_RUN_COLUMNS = [column for column in LIST_COLUMNS if column.edition_field.startswith("run__")]


@dataclass
class ExportPage:
    """Page `number` (from 1) of an export: its rows are `start` to `start + rows` of the view."""

    number: int
    rows: int
    next_url: str | None = None

    @classmethod
    def asked(cls, request) -> "ExportPage":
        """The page of ``?page=`` (1 without it); 404 for anything but a page number a list could reach."""
        rows = settings.IOBOARD_EXPORT_PAGE_ROWS
        text = request.GET.get("page", "1")
        number = database_id(text)
        if number is None or number > MAX_DATABASE_ID // rows:
            raise Http404(f"no export page {text[:30]!r}: pages are numbered from 1")
        return cls(number, rows)

    @property
    def start(self) -> int:
        return (self.number - 1) * self.rows

    @property
    def stop_with_one_more(self) -> int:
        """Where to stop reading the view: one row past the page, which tells whether another page follows."""
        return self.start + self.rows + 1

    def found(self, request, read: Sized) -> None:
        """`read`: the view's rows from `start` to `stop_with_one_more`. A page past the last is not found (the
        first always is: an empty view exports its header); a page with rows after it links the next."""
        if self.number > 1 and not read:
            raise Http404(f"no export page {self.number}: the view ends before it")
        if len(read) > self.rows:
            query = request.GET.copy()
            query["page"] = str(self.number + 1)
            self.next_url = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")

    def meta(self) -> dict:
        return {"page": self.number, "next": self.next_url}

    def linked(self, response):
        """The response with a `Link` to the next page, when there is one (RFC 8288)."""
        if self.next_url:
            response["Link"] = f'<{self.next_url}>; rel="next"'
        return response


def _anomalies(badges) -> list[dict]:
    return [{"rule": a.rule, "severity": a.severity, "phase": a.phase, "message": a.message} for a in badges]


def phase_columns(entries) -> list[tuple[str, str]]:
    """(name, unit) of every phase of the listed runs (list entries), in benchmark order: one query."""
    phases = PhaseResult.objects.filter(run__in=entries.values("run_id"))
    rows = phases.values("name").annotate(position=Min("position"), unit=Max("unit")).order_by("position", "name")
    return [(row["name"], row["unit"]) for row in rows]


def run_records(runs: Iterable) -> Iterator[dict]:
    """Each listed run's export record with the list's columns added (runs from ListEntryQuerySet.runs(),
    with their rank and list columns); phases and anomalies are loaded a chunk at a time."""
    phases = PhaseResult.objects.only("run_id", "name", "value", "unit", "seconds")
    anomalies = anomalies_in_order()
    runs = iter(runs)
    while chunk := list(islice(runs, CHUNK)):
        prefetch_related_objects(
            chunk,
            Prefetch("phases", queryset=phases),
            Prefetch("anomalies", queryset=anomalies, to_attr="export_anomalies"),
            rank_stats_prefetch(),
        )
        yield from (_record(run) for run in chunk)


def _record(run) -> dict:
    system, build = run.system, run.lustre_build
    return {
        "rank": run.rank,
        "run_url": run.get_absolute_url(),
        **run_to_dict(run, anomalies=run.export_anomalies),
        "country": system.institution.country,
        "system_id": system.pk,
        "storage_vendor": system.storage_vendor,
        "server_count": system.server_count,
        "procs_per_node": run.procs_per_node,
        **{column.export_name: getattr(run, column.key) for column in NORMALISED_COLUMNS},
        "score_formula": run.score_formula,
        "config_hash_status": run.config_hash_status,
        "flagged": run.flagged,
        "exclusion_reason": run.exclusion_reason,
        "year": run.year,
        "run_timestamp": run.run_timestamp,
        "kind": run.kind,
        "generation": run.generation,
        "lustre_server_version": build.server_version if build else "",
        "lustre_client_version": build.client_version if build else "",
        "lustre_base_commit": build.base_commit if build else "",
        "submission_id": run.submission_id,
        "content_hash": run.content_hash,
    }


def entry_records(entries) -> Iterator[dict]:
    for entry in entries.iterator(chunk_size=CHUNK):
        run = entry.run
        yield {
            "edition": entry.edition.name,
            "list": entry.edition.list_kind,
            "frozen_at": entry.edition.frozen_at,
            "rank": entry.rank,
            "run_id": entry.run_id,
            "run_url": run.get_absolute_url() if run else "",
            "institution": entry.institution_name,
            "system_id": entry.system_id,
            "system": entry.system_name,
            "storage_vendor": entry.storage_vendor,
            "filesystem": entry.filesystem,
            "client_nodes": entry.client_nodes,
            "client_procs": entry.client_procs,
            "score": score_record(entry.score_bw, entry.score_md, entry.score),
            **{column.export_name: getattr(entry, column.key) for column in NORMALISED_COLUMNS},
            **{column.export_name: column_value(column, entry, frozen=True) for column in CURRENT_RUN_COLUMNS},
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


def csv_response(
    records: Iterable[dict], columns: list[str], phases: list[tuple[str, str]], filename: str
) -> StreamingHttpResponse:
    """A header, then one line per record; phases become `<name>`, `<name>_unit` and `<name>_seconds` columns."""

    def lines():
        writer = FormulaSafeWriter(_Echo())
        phase_header = [f"{name}{suffix}" for name, _ in phases for suffix in ("", "_unit", "_seconds")]
        yield writer.writerow(columns + phase_header)
        for record in records:
            phase_values = record.get("phases", {})
            values = {**record, **flat_scores(record)}
            row = [_csv_value(values[key]) for key in columns]
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
