"""DNE scaling pages: the list of series, and one series with its saturation analysis and charts.

The views fetch (a constant number of queries whatever the series holds), hand the points to
``apps.results.judgements.scaling`` and render; the rules and the figures live there.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.leaderboard.common.plotly_json import Chart
from apps.leaderboard.scaling.charts import client_scaling_figure, mdt_scaling_figure, overlay_figure
from apps.results.judgements.scaling.analysis import (
    DEFAULT_SATURATION_THRESHOLD,
    GroupAnalysis,
    analyse_points,
    operation_label,
)
from apps.results.models import ScalingSeries
from apps.results.models.visibility import owned_visible_condition
from apps.web.query_guard import database_id

#: Groups (operation, files per directory, striping) shown a page at a time, each with its table and two charts, and
#: SUMMARY rows a page at a time: an upload chooses how many of each a series has (up to IOBOARD_SCALING_MAX_POINTS,
#: each point its own group at worst), and every reader of the page would pay for all of them.
SCALING_GROUPS_PER_PAGE = 12
SCALING_ROWS_PER_PAGE = 500


@dataclass
class GroupSection:
    group: GroupAnalysis
    mdt_chart: Chart
    client_chart: Chart

    @property
    def title(self) -> str:
        return self.group.key.describe()


def scaling_list(request: HttpRequest) -> HttpResponse:
    series = ScalingSeries.with_counts(request.user).filter(owned_visible_condition(request.user)).order_by("name")
    return render(request, "scaling/scaling_list.html", {"series_list": series})


def scaling_detail(request: HttpRequest, pk: int) -> HttpResponse:
    series = get_object_or_404(
        ScalingSeries.objects.filter(owned_visible_condition(request.user)).select_related(
            "system__institution", "lustre_build", "upload", "study"
        ),
        pk=pk,
    )
    threshold, threshold_error = _threshold(request.GET.get("threshold"))
    points = list(series.points_seen_by(request.user).order_by("mdt_count", "tasks", "pk"))
    analysis = analyse_points(points, saturation_threshold=threshold)
    page = Paginator(analysis.groups, SCALING_GROUPS_PER_PAGE).get_page(request.GET.get("page"))
    sections = [
        GroupSection(
            group,
            Chart(f"fig-mdts-{index}", mdt_scaling_figure(group)),
            Chart(f"fig-clients-{index}", client_scaling_figure(group)),
        )
        for index, group in enumerate(page.object_list)
    ]
    other = _other_series(request.GET.get("compare"), series, request.user)
    context = {
        "series": series,
        "points": points,
        "page": page,
        "rows": Paginator(points, SCALING_ROWS_PER_PAGE).get_page(request.GET.get("rows")),
        "log_count": len({point.log_hash for point in points}),
        "analysis": analysis,
        "threshold": threshold,
        "threshold_percent": round(threshold * 100, 1),
        "threshold_error": threshold_error,
        "sections": sections,
        "striping_overlays": _striping_overlays(page.object_list),
        "compared": other,
        "comparison_overlays": (
            _comparison_overlays(series, page.object_list, other, threshold, request.user) if other else []
        ),
        "other_series": ScalingSeries.objects.filter(owned_visible_condition(request.user))
        .exclude(pk=series.pk)
        .order_by("name")
        .values_list("pk", "name"),
    }
    return render(request, "scaling/scaling_detail.html", context)


def _threshold(raw: str | None) -> tuple[float, str]:
    """The saturation threshold from ?threshold= (a fraction, or a percentage above 1)."""
    if raw in (None, ""):
        return DEFAULT_SATURATION_THRESHOLD, ""
    try:
        value = float(raw)
    except ValueError:
        return DEFAULT_SATURATION_THRESHOLD, f"threshold {raw!r} is not a number; using the default"
    value = value / 100 if value > 1 else value
    if not 0 < value < 1:
        return DEFAULT_SATURATION_THRESHOLD, f"threshold {raw!r} is out of range; using the default"
    return value, ""


def _other_series(raw: str | None, series: ScalingSeries, reader) -> ScalingSeries | None:
    other = database_id(raw or "")
    if other is None or other == series.pk:
        return None
    return ScalingSeries.objects.filter(owned_visible_condition(reader), pk=other).first()


def _striping_overlays(shown: list[GroupAnalysis]) -> list[Chart]:
    """Inherited against non-inherited striping, wherever a series measured both, among the groups shown."""
    by_load: dict[tuple[str, int | None], list[GroupAnalysis]] = {}
    for group in shown:
        by_load.setdefault((group.key.operation, group.key.files_per_dir), []).append(group)
    charts = []
    for (operation, files_per_dir), groups in by_load.items():
        if len(groups) < 2:
            continue
        load = f"{files_per_dir:,} files/dir" if files_per_dir else "files/dir unknown"
        figure = overlay_figure(
            [(f"{group.key.striping} striping", group) for group in groups],
            title=f"{operation_label(operation)} ({load}): striping compared",
        )
        charts.append(Chart(f"fig-striping-{len(charts)}", figure))
    return charts


def _comparison_overlays(
    series: ScalingSeries, shown: list[GroupAnalysis], other: ScalingSeries, threshold: float, reader
) -> list[Chart]:
    """This series against another (e.g. two Lustre builds), for every group shown that both measured."""
    other_analysis = analyse_points(other.points_seen_by(reader), saturation_threshold=threshold)
    charts = []
    for group in shown:
        counterpart = other_analysis.group(group.key.operation, group.key.files_per_dir, group.key.striping)
        if counterpart is None:
            continue
        figure = overlay_figure(
            [(series.name, group), (other.name, counterpart)],
            title=f"{group.key.describe()}: {series.name} vs {other.name}",
        )
        charts.append(Chart(f"fig-compare-{len(charts)}", figure))
    return charts
