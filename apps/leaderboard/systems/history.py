"""A system's history: every metric over time, what changed in the file system, and the detected changes.

The page, its figures and the Atom feeds of detected changes (one per system, one site-wide). The series,
provenance labels and detection live in apps.results.services.changes; this module only draws and lists them.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.syndication.views import Feed
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.views.decorators.http import require_POST

from apps.leaderboard.common.plotly_json import BASE_LAYOUT, COLOURS, escaped, figure, scatter
from apps.results.judgements.changes.attribution import describe
from apps.results.models import Annotation, Change, StorageSystem
from apps.results.services.changes.events import FEWEST_RUNS, events_of
from apps.results.services.changes.history import (
    SCORE_METRICS,
    history_runs,
    metric_value,
    metrics_of,
    provenance_changes,
    run_time,
    triage,
)
from apps.web.query_guard import database_id

METRIC_TITLES = {"score": "Score", "score_bw": "Bandwidth score (GiB/s)", "score_md": "Metadata score (kIOPS)"}
FEED_SIZE = 50
MARKER_LABEL_LENGTH = 40


def _marker_label(lines: list[str]) -> str:
    """The short label of a provenance marker: what it changed to ("Lustre 2.15.4, patches LU-16338")."""
    label = ", ".join(line.split(" → ")[0].split(" ")[0] + " " + line.split(" → ")[-1] for line in lines)
    return label if len(label) <= MARKER_LABEL_LENGTH else label[: MARKER_LABEL_LENGTH - 1] + "…"


@dataclass(frozen=True)
class Timeline:
    """What every metric's figure of one history shares: when each run ran (as the x axis writes it) and the
    provenance markers (a dotted line and a label per change of the inputs). Built once per page, not once
    per figure: a history page draws fifteen figures, and building these again for each was half their cost."""

    when: dict[int, str]
    shapes: list[dict]
    annotations: list[dict]

    @classmethod
    def of(cls, runs, markers) -> Timeline:
        when = {run.pk: run_time(run).isoformat() for run in runs}
        shapes = [
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": when[run.pk],
                "x1": when[run.pk],
                "y0": 0,
                "y1": 1,
                "line": {"color": "#9aa3b5", "width": 1, "dash": "dot"},
            }
            for run, _ in markers
        ]
        annotations = [
            {
                "x": when[run.pk],
                "xref": "x",
                "y": 1,
                "yref": "paper",
                "yanchor": "bottom",
                "text": escaped(_marker_label(lines)),
                "hovertext": escaped("; ".join(lines)),
                "showarrow": False,
                "textangle": -20,
                "font": {"size": 10, "color": "#555"},
            }
            for run, lines in markers
        ]
        return cls(when, shapes, annotations)


def metric_figure(metric: str, runs, unit: str, timeline: Timeline, changes) -> dict:
    """One metric over time: the runs as a line, provenance changes as labelled vertical lines, steps as
    triangles at the first run of the new level and outliers as red crosses."""
    points = [(run, value) for run in runs if (value := metric_value(run, metric)) is not None]
    when = timeline.when
    value_of = {run.pk: value for run, value in points}
    traces = [
        scatter(
            name="runs",
            mode="lines+markers",
            x=[when[run.pk] for run, _ in points],
            y=[value for _, value in points],
            customdata=[run.pk for run, _ in points],
            marker={"size": 7, "color": COLOURS[0]},
            hovertext=[f"run #{run.pk} · {escaped(run.submission_id or '')}" for run, _ in points],
            hoverinfo="x+y+text",
        )
    ]
    for kind, symbol, colour in (("step", None, COLOURS[1]), ("outlier", "x", COLOURS[4])):
        chosen = [change for change in changes if change.kind == kind and change.run_after_id in value_of]
        if not chosen:
            continue
        traces.append(
            scatter(
                name=f"{kind}s",
                mode="markers",
                x=[when[c.run_after_id] for c in chosen],
                y=[value_of[c.run_after_id] for c in chosen],
                customdata=[c.run_after_id for c in chosen],
                marker={
                    "size": 14,
                    "color": colour,
                    "line": {"width": 2, "color": colour},
                    "symbol": [symbol or ("triangle-up" if c.direction == "up" else "triangle-down") for c in chosen],
                },
                hovertext=[f"{c.kind} {c.magnitude_pct:+.1f} %: {escaped(describe(c.attribution))}" for c in chosen],
                hoverinfo="text",
            )
        )
    title = METRIC_TITLES.get(metric, escaped(metric))
    return figure(
        traces,
        title,
        shapes=timeline.shapes,
        annotations=timeline.annotations,
        xaxis={"type": "date"},
        yaxis={"title": {"text": escaped(unit)}, "rangemode": "tozero"},
        height=320,
        margin={**BASE_LAYOUT["margin"], "t": 90, "b": 40},
    )


def _unit(metric: str, runs) -> str:
    if metric in SCORE_METRICS:
        return {"score": "", "score_bw": "GiB/s", "score_md": "kIOPS"}[metric]
    return next((phase.unit for run in runs for phase in run.phases.all() if phase.name == metric), "")


def system_history(request, pk: int):
    system = get_object_or_404(StorageSystem.objects.visible_to(request.user).select_related("institution"), pk=pk)
    runs = history_runs(system.pk)
    markers = [(runs[index], lines) for index, lines in provenance_changes(runs)]
    changes = list(Change.objects.of_system(system.pk))
    by_metric: dict[str, list[Change]] = {}
    for change in changes:
        by_metric.setdefault(change.metric, []).append(change)
    charts = []
    if len(runs) >= FEWEST_RUNS:
        metrics = list(SCORE_METRICS) + [m for m in metrics_of(runs) if m not in SCORE_METRICS]
        timeline = Timeline.of(runs, markers)
        charts = [
            (metric, metric_figure(metric, runs, _unit(metric, runs), timeline, by_metric.get(metric, [])))
            for metric in metrics
        ]
    return render(
        request,
        "systems/system_history.html",
        {
            "system": system,
            "runs": runs,
            "fewest_runs": FEWEST_RUNS,
            "markers": markers,
            "events": events_of(changes, runs),
            "changes": changes,
            "charts": charts,
            "statuses": [status for status in Change.Status if status != Change.Status.NEW],
            "annotations": Annotation.objects.of_system(system.pk),
        },
    )


@staff_member_required
@require_POST
def triage_event(request, pk: int):
    """Staff set the status (and note) of every change of one event from the history page."""
    status, changes = request.POST.get("status", ""), request.POST.get("changes", "")
    change_ids = [database_id(part) for part in changes.split(",")]
    if status not in Change.Status.values or None in change_ids:
        return HttpResponseBadRequest(
            "status must be one of "
            + ", ".join(Change.Status.values)
            + "; changes a comma-separated list of change ids"
        )
    chosen = list(Change.objects.filter(system_id=pk, pk__in=change_ids))
    if not chosen:
        return HttpResponseBadRequest("no change of this system among " + changes)
    note = request.POST.get("note", "").strip() or None
    if note is not None and "\x00" in note:
        return HttpResponseBadRequest("the note contains a NUL character, which cannot be stored")
    for change in chosen:
        triage(change, status=status, note=note, user=request.user)
    return redirect(reverse("system-history", args=[pk]) + f"#change-{chosen[0].pk}")


class ChangesFeed(Feed):
    """The newest detected changes of every system, as Atom."""

    feed_type = Atom1Feed
    title = "ioboard: detected changes"
    subtitle = "Steps and outliers in the history of each storage system, with what changed at that moment."

    def link(self):
        return reverse("home")

    def items(self):
        return _newest(Change.objects.visible())

    def item_title(self, change: Change) -> str:
        return (
            f"{change.system.institution.name} / {change.system.name}: {change.metric} {change.kind} "
            f"{change.direction} {change.magnitude_pct:+.1f} %"
        )

    def item_description(self, change: Change) -> str:
        return f"run #{change.run_before_id} → #{change.run_after_id} · {describe(change.attribution)}"

    def item_link(self, change: Change) -> str:
        return change.get_absolute_url()

    def item_pubdate(self, change: Change):
        return change.detected_at

    def item_updateddate(self, change: Change):
        return change.triaged_at or change.detected_at


class SystemChangesFeed(ChangesFeed):
    """The newest detected changes of one system, as Atom."""

    def get_object(self, request, pk: int):
        return get_object_or_404(StorageSystem.objects.visible_to(request.user).select_related("institution"), pk=pk)

    def title(self, system: StorageSystem) -> str:
        return f"ioboard: changes of {system.institution.name} / {system.name}"

    def link(self, system: StorageSystem) -> str:
        return reverse("system-history", args=[system.pk])

    def items(self, system: StorageSystem):
        return _newest(Change.objects.visible().filter(system=system))


def _newest(changes):
    return changes.select_related("system__institution").order_by("-detected_at", "-pk")[:FEED_SIZE]
