"""Parameter study pages: the list of studies, and one study with its pivot, verdict table and charts.

The verdict table lists each group (one axis, the others fixed) once: axes that change together (a
config and its label, nodes and tasks) are one row header, not two copies of the same comparisons.

The views fetch the points (two queries whatever the study holds), hand them to
``apps.results.judgements.studies.analysis`` and render; the rules live there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.leaderboard.common.plotly_json import Chart
from apps.leaderboard.studies.charts import grouped_bars_figure, lines_figure
from apps.results.judgements.studies.analysis import (
    Comparison,
    GroupVerdict,
    covarying_axes,
    describe_fixed,
    describe_value,
    independent_axes,
    margin_words,
    pivot,
    varying_axes,
)
from apps.results.models import Study
from apps.results.models.visibility import owned_visible_condition

# Axes drawn as lines (a log x axis): client nodes, and a DNE scaling series' MDT count. Nodes come first by default.
LINE_AXES = ("nodes", "mdt_count")


@dataclass
class VerdictGroup:
    """One group of the verdict table: the axis with the axes that change with it, where, and its rows."""

    axis: str
    where: str
    group: GroupVerdict

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [_verdict_row(comparison) for comparison in self.group.comparisons]


def _verdict_row(comparison: Comparison) -> dict[str, Any]:
    ratio, interval = comparison.ratio, comparison.ratio_ci
    return {
        "a": describe_value(comparison.axis, comparison.a),
        "b": describe_value(comparison.axis, comparison.b),
        "ratio": f"{ratio:.3g}" if ratio is not None else "—",
        "interval": f"{interval[0]:.3g}–{interval[1]:.3g}" if interval else "",
        "jobs": comparison.jobs,
        "verdict": comparison.verdict_code.value,
        "words": comparison.verdict_label,
        "sentence": comparison.verdict,
    }


def study_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "studies/study_list.html",
        {"studies": Study.with_counts(request.user).filter(owned_visible_condition(request.user)).order_by("name")},
    )


def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = get_object_or_404(
        Study.objects.filter(owned_visible_condition(request.user)).select_related(
            "system__institution", "lustre_build", "upload", "scaling_series"
        ),
        pk=pk,
    )
    points = study.ordered_points(
        study.points_seen_by(request.user).order_by("source", "test_index", "operation", "pk")
    )
    operations = sorted({point.operation for point in points}, key=lambda op: (op != "write", op))
    varying = varying_axes(points)
    problem = _unknown("operation", request.GET.get("operation"), operations) or _unknown(
        "columns", request.GET.get("columns"), varying
    )
    if problem:
        return render(request, "400.html", {"message": problem}, status=400)
    operation = request.GET.get("operation") or (operations[0] if operations else "write")
    columns = request.GET.get("columns") or _default_columns(points)
    rows = [name for name in independent_axes(points) if name != columns]
    table = pivot(points, operation, rows=rows, columns=[columns] if columns else [])
    operation_points = [point for point in points if point.operation == operation]
    axis_sets = covarying_axes(operation_points)
    groups = study.compare(operation_points, axes=[members[0] for members in axis_sets])
    together = {members[0]: " · ".join(members) for members in axis_sets}
    verdict_groups = [VerdictGroup(together[group.axis], describe_fixed(group.fixed), group) for group in groups]
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
        "verdict_groups": verdict_groups,
        "charts": charts,
        "margin_percent": margin_words(study.margin),
    }
    return render(request, "studies/study_detail.html", context)


def _unknown(parameter: str, asked: str | None, allowed: list[str]) -> str:
    """The message for a query value the study does not have (never silently replaced by the default), or ""."""
    if asked is None or asked in allowed:
        return ""
    choices = ", ".join(allowed) or "none"
    return f"This study has no {parameter} {asked[:60]!r}; it has: {choices}."


def _default_columns(points: list[Any]) -> str | None:
    """Nodes across, as in the seed's tables, when nodes vary (else a DNE scaling series' MDT count); else the last
    independent axis."""
    independent = independent_axes(points)
    for axis in LINE_AXES:
        if axis in independent:
            return axis
    return independent[-1] if independent else None
