"""The run page's figures: its phases against the list's medians, its ranks' runtimes (built with
``apps.leaderboard.common.plotly_json``)."""

from apps.leaderboard.common.plotly_json import COLOURS, bar, escaped, figure, unit_panels


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
