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


#: Bars a per-rank chart draws for its evenly spaced sample (and at most as many more for the slow tail): a chart of
#: a 100,000-rank run drew 100,000 bars into its page.
RANK_CHART_BARS = 2000


def _drawn_positions(rows: list, tail: set) -> list[int]:
    """Positions in the sorted `rows` to draw: all of them up to RANK_CHART_BARS; past it, that many evenly spaced
    (the fastest and the slowest among them) and the slowest RANK_CHART_BARS ranks of the slow tail, so that every
    straggler a run is likely to have stays visible."""
    if len(rows) <= RANK_CHART_BARS:
        return list(range(len(rows)))
    step = (len(rows) - 1) / (RANK_CHART_BARS - 1)
    spaced = {round(index * step) for index in range(RANK_CHART_BARS)}
    stragglers = [position for position, row in enumerate(rows) if row[0] in tail][-RANK_CHART_BARS:]
    return sorted(spaced.union(stragglers))


def rank_runtimes(stats) -> dict:
    """One phase's ranks as bars sorted by runtime, the slow tail (``PhaseRankStats.slow_tail``) in red.

    Sorted bars rather than a histogram: a few hundred ranks still read as a curve, and the
    rank number of each straggler stays visible in the hover. Past RANK_CHART_BARS ranks the curve is sampled
    (``_drawn_positions``); each bar keeps its place in the whole sorted order.
    """
    rows = sorted(stats.per_rank, key=lambda row: row[1])
    tail = set(stats.slow_tail)
    drawn = _drawn_positions(rows, tail)
    traces = [
        bar(
            x=drawn,
            y=[rows[position][1] for position in drawn],
            hovertext=[f"rank {rows[position][0]}: {rows[position][1]:.4g} s" for position in drawn],
            hoverinfo="text",
            marker={"color": ["#b3261e" if rows[position][0] in tail else COLOURS[0] for position in drawn]},
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
