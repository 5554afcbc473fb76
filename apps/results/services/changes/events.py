"""One story per event: a system's detected changes grouped by the input change they follow.

An upgrade that moves four phases and two scores is one event with six metrics, not six rows: the changes
of one event share their two runs (a step's last run before and first run after; an outlier's run) and so
their attribution. An event whose attribution includes a difference of the configuration class (client
nodes, procs, the benchmark's kind or rules mode) compares two experiments, not one file system before
and after: it is labelled expected, and bandwidth phases are judged per client node as well.

Each change is shown with two sizes under one definition, ``100 * (new / old - 1)``: between the robust
levels (what detection judged, `Change.magnitude_pct`) and between the two runs themselves (what the
compare page shows for the same pair of runs). They differ by the noise of those two runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from apps.results.judgements.changes.attribution import configuration_entries
from apps.results.models import Change, Run
from apps.results.services.changes.history import metric_value, run_time

#: A history needs this many runs before a step (two at the new level) or an outlier can be told.
FEWEST_RUNS = 3
PER_NODE_UNITS = ("GiB/s",)


@dataclass
class MetricChange:
    change: Change
    runs_pct: float | None  # 100 * (value after / value before - 1) for these two runs, as the compare page
    per_node_pct: float | None  # the same per client node, for a bandwidth metric across a node-count change

    @property
    def p_text(self) -> str:
        p = self.change.p_value
        return "" if p is None else (f"{p:.3f}" if p >= 0.001 else f"{p:.0e}")


@dataclass
class Event:
    kind: str
    run_before: Run
    run_after: Run
    attribution: list[dict]
    metrics: list[MetricChange] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.kind}-{self.run_before.pk}-{self.run_after.pk}"

    @property
    def configuration(self) -> list[dict]:
        """The attribution entries that change the configuration class."""
        return configuration_entries(self.attribution)

    @property
    def statuses(self) -> list[str]:
        return sorted({metric.change.status for metric in self.metrics})

    @property
    def change_ids(self) -> str:
        return ",".join(str(metric.change.pk) for metric in self.metrics)


def events_of(changes: list[Change], runs: list[Run]) -> list[Event]:
    """The changes grouped by event, newest first. `runs`: the system's history (`services.history_runs`),
    whose phases are read already, so no change costs a query."""
    by_pk = {run.pk: run for run in runs}
    events: dict[tuple, Event] = {}
    for change in changes:
        key = (change.kind, change.run_before_id, change.run_after_id)
        run_before, run_after = by_pk.get(change.run_before_id), by_pk.get(change.run_after_id)
        if run_before is None or run_after is None:
            continue  # a run no longer in the history (deleted or no longer an IO500 run)
        if key not in events:
            events[key] = Event(change.kind, run_before, run_after, change.attribution)
        event = events[key]
        before, after = metric_value(run_before, change.metric), metric_value(run_after, change.metric)
        runs_pct = 100 * (after / before - 1) if before and after and change.kind == Change.Kind.STEP else None
        per_node = None
        nodes_before, nodes_after = run_before.client_nodes, run_after.client_nodes
        if (
            runs_pct is not None
            and nodes_before
            and nodes_after
            and nodes_before != nodes_after
            and _unit(run_after, change.metric) in PER_NODE_UNITS
        ):
            per_node = 100 * ((1 + change.magnitude_pct / 100) * nodes_before / nodes_after - 1)
        event.metrics.append(MetricChange(change, runs_pct, per_node))
    for event in events.values():
        event.metrics.sort(key=lambda m: -(m.change.z or 0))
    return sorted(events.values(), key=lambda e: (run_time(e.run_after), e.run_after.pk), reverse=True)


def _unit(run: Run, metric: str) -> str:
    if metric == "score_bw":
        return "GiB/s"
    return next((phase.unit for phase in run.phases.all() if phase.name == metric), "")
