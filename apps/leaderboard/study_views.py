"""Parameter study pages: the list of studies, and one study with its pivot, verdicts and charts.

The views fetch the points (two queries whatever the study holds), hand them to
``apps.results.studies.analysis`` and render; the rules live there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.leaderboard.study_charts import grouped_bars_figure, lines_figure
from apps.results.models import Study
from apps.results.studies.analysis import compare, independent_axes, pivot, varying_axes

# Axes drawn as lines (a log x axis): client nodes, and a DNE series' MDT count. Nodes come first by default.
LINE_AXES = ("nodes", "mdt_count")


@dataclass
class Chart:
    id: str
    figure: dict[str, Any]


def study_list(request: HttpRequest) -> HttpResponse:
    return render(request, "leaderboard/study_list.html", {"studies": Study.with_counts().order_by("name")})


def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(Study.objects.select_related("system__institution", "lustre_build", "upload",
                                                           "scaling_series"), pk=pk)
    points = study.ordered_points(study.points.order_by("source", "test_index", "operation", "pk"))
    operations = sorted({point.operation for point in points}, key=lambda op: (op != "write", op))
    operation = request.GET.get("operation") if request.GET.get("operation") in operations else None
    operation = operation or (operations[0] if operations else "write")
    varying = varying_axes(points)
    columns = _choice(request.GET.get("columns"), varying) or _default_columns(points)
    rows = [name for name in independent_axes(points) if name != columns]
    table = pivot(points, operation, rows=rows, columns=[columns] if columns else [])
    groups = compare([point for point in points if point.operation == operation])
    charts = []
    if points:
        title = f"{operation}: mean ± stddev over the repetitions"
        charts.append(Chart("fig-study-bars", grouped_bars_figure(table, title, study.unit)))
        if columns in LINE_AXES:
            charts.append(Chart("fig-study-lines", lines_figure(table, f"{operation} against {columns}", study.unit)))
    context = {
        "study": study,
        "points": points,
        "log_count": len({point.log_hash for point in points}),
        "operations": operations,
        "operation": operation,
        "varying": varying,
        "columns": columns,
        "table": table,
        "groups": groups,
        "significant_groups": [group for group in groups if group.any_significant],
        "quiet_groups": [group for group in groups if not group.any_significant],
        "charts": charts,
    }
    return render(request, "leaderboard/study_detail.html", context)


def _choice(raw: str | None, allowed: list[str]) -> str | None:
    return raw if raw in allowed else None


def _default_columns(points: list[Any]) -> str | None:
    """Nodes across, as in the seed's tables, when nodes vary (else a DNE series' MDT count); else the last
    independent axis."""
    independent = independent_axes(points)
    for axis in LINE_AXES:
        if axis in independent:
            return axis
    return independent[-1] if independent else None
