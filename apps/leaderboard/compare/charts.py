"""The compare page's figure: each phase of the compared runs against the baseline, noise verdicts marked
(built with ``apps.leaderboard.common.plotly_json``)."""

from apps.leaderboard.common.plotly_json import COLOURS, escaped, unit_panels


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
