"""The Plotly figures of the run, compare and system pages (built with ``apps.leaderboard.plotly_json``)."""

from datetime import UTC, datetime

from apps.leaderboard.plotly_json import BASE_LAYOUT, COLOURS, bar, escaped, figure, log_axis, scatter, unit_panels


def phases_against_median(phases, medians: dict[str, float], list_title: str) -> dict:
    """Grouped bars on log axes, bandwidth and metadata in panels of their own: each phase of a run next to the
    median of that phase on a list (the list the run belongs to, `list_title`)."""
    shown = [phase for phase in phases if phase.value is not None]
    run_hover, median_values, median_hover = [], [], []
    for phase in shown:
        median = medians.get(phase.name)
        ratio = f"<br>×{phase.value / median:.3g} the median" if median else ""
        run_hover.append(f"{phase.value:.6g} {escaped(phase.unit)}{ratio}")
        median_values.append(median)
        median_hover.append(f"{median:.6g} {escaped(phase.unit)}" if median is not None else "no median")
    series = [
        {"name": "this run", "values": [phase.value for phase in shown], "hover": run_hover, "color": COLOURS[0]},
        {"name": f"{escaped(list_title)} median", "values": median_values, "hover": median_hover, "color": "#9aa3b5"},
    ]
    return unit_panels(
        [escaped(phase.name) for phase in shown],
        [phase.unit for phase in shown],
        series,
        f"Phases against the {escaped(list_title)} median",
    )


def _when(run) -> datetime | None:
    if run.run_timestamp:
        return run.run_timestamp
    if run.year:
        return datetime(run.year, 1, 1, tzinfo=UTC)
    return run.created_at


def score_timeline(runs) -> dict:
    """A system's runs over time: ranked-eligible runs as a line, excluded ones as crosses."""
    dated = sorted((run for run in runs if run.score_total is not None), key=lambda run: (_when(run), run.pk))
    traces = []
    for title, keep, marker, mode in (
        ("eligible runs", lambda run: run.is_eligible, {"size": 9, "color": COLOURS[0]}, "lines+markers"),
        ("excluded runs", lambda run: not run.is_eligible, {"size": 10, "symbol": "x", "color": COLOURS[4]}, "markers"),
    ):
        chosen = [run for run in dated if keep(run)]
        if not chosen:
            continue
        traces.append(
            scatter(
                name=title,
                mode=mode,
                x=[_when(run).isoformat() for run in chosen],
                y=[run.score_total for run in chosen],
                marker=marker,
                customdata=[run.pk for run in chosen],
                hovertext=[
                    f"run {run.pk}: {run.client_nodes or '?'} nodes, BW {run.score_bw or 0:.4g} GiB/s, "
                    f"MD {run.score_md or 0:.4g} kIOPS"
                    for run in chosen
                ],
                hoverinfo="x+y+text",
            )
        )
    return figure(
        traces,
        "Score over time",
        yaxis=log_axis("IO500 score", [run.score_total for run in dated]),
        xaxis={"type": "date"},
        margin={**BASE_LAYOUT["margin"], "b": 50},
    )


def compare_phases(diff, noise=()) -> dict:
    """Grouped bars on log axes, a panel per unit: every phase of the compared runs side by side. A change within
    run-to-run noise (`noise`: apps.results.services.changes.noise verdicts) is drawn pale and says so in its hover."""
    beyond = {verdict.name: verdict.beyond for verdict in noise}
    series = []
    for index, label in enumerate(diff.labels):
        hover, opacity = [], []
        for delta in diff.phases:
            value, percent = delta.values[index], delta.percents[index]
            verdict = beyond.get(delta.name, [None] * len(diff.labels))[index - 1] if index else None
            change = f" ({percent:+.1f} %)" if index and percent is not None else ""
            if verdict is False:
                change += ", within run-to-run noise"
            hover.append(f"{value:.6g} {escaped(delta.unit)}{change}" if value is not None else "missing")
            opacity.append(0.45 if verdict is False else 1.0)
        series.append(
            {
                "name": escaped(label),
                "values": [delta.values[index] for delta in diff.phases],
                "hover": hover,
                "color": COLOURS[index % len(COLOURS)],
                "opacity": opacity,
            }
        )
    return unit_panels(
        [escaped(delta.name) for delta in diff.phases],
        [delta.unit for delta in diff.phases],
        series,
        "Phases side by side (pale: within run-to-run noise of the baseline)",
    )


def rank_runtimes(stats) -> dict:
    """One phase's ranks as bars sorted by runtime, the slow tail (``PhaseRankStats.slow_tail``) in red.

    Sorted bars rather than a histogram: a few hundred ranks still read as a curve, and the
    rank number of each straggler stays visible in the hover.
    """
    rows = sorted(stats.per_rank, key=lambda row: row[1])
    tail = set(stats.slow_tail)
    traces = [
        bar(
            x=list(range(len(rows))),
            y=[row[1] for row in rows],
            hovertext=[f"rank {row[0]}: {row[1]:.4g} s" for row in rows],
            hoverinfo="text",
            marker={"color": ["#b3261e" if row[0] in tail else COLOURS[0] for row in rows]},
        )
    ]
    imbalance = f", max/min {stats.imbalance:.3g}" if stats.imbalance else ""
    ranks_axis = {"title": {"text": f"{stats.ranks} ranks, fastest to slowest"}}
    return figure(
        traces,
        f"{escaped(stats.phase)}{imbalance}",
        yaxis={"title": {"text": "seconds"}},
        xaxis=ranks_axis,
        showlegend=False,
        margin={"t": 40, "r": 10, "b": 45, "l": 60},
        height=260,
    )
