"""The system page's figure: its runs' scores over time (built with ``apps.leaderboard.common.plotly_json``)."""

from datetime import UTC, datetime

from apps.leaderboard.common.plotly_json import BASE_LAYOUT, COLOURS, figure, log_axis, scatter


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
