"""Is a difference between two runs beyond run-to-run noise? The compare page's answer, per phase and score.

The noise of a metric is a system's own (`MetricNoise`, measured by change detection from at least three
runs of one configuration class) when every compared run is of that system and the baseline's class has
one; otherwise the median over every system that has one (site-wide). One run against one other run
differs by noise alone with a standard deviation of ``sqrt(2) * sigma`` (in log terms), so a difference
is called beyond noise past ``NOISE_SIGMAS`` of those.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from apps.results.models import MetricNoise
from apps.results.services.changes.history import config_class

NOISE_SIGMAS = 2.0
#: The compare page's score rows (RunDiff.scores names) → change-detection metric names.
SCORE_ROWS = {"Score": "score", "Bandwidth": "score_bw", "Metadata": "score_md"}


@dataclass
class NoiseVerdict:
    name: str
    sigma_pct: float
    source: str
    beyond: list[bool | None]  # per compared run after the baseline; None when a value is missing


def noise_verdicts(runs, diff) -> list[NoiseVerdict]:
    """For each score and phase row of `diff`, whether each run's difference from the baseline is beyond noise."""
    rows = [(delta, SCORE_ROWS[delta.name]) for delta in diff.scores] + [(delta, delta.name) for delta in diff.phases]
    metrics = [metric for _, metric in rows]
    site: dict[str, list[float]] = {}
    for metric, sigma in MetricNoise.objects.filter(metric__in=metrics).values_list("metric", "sigma"):
        site.setdefault(metric, []).append(sigma)
    own: dict[str, float] = {}
    baseline = runs[0]
    if len({run.system_id for run in runs}) == 1:
        own = dict(
            MetricNoise.objects.filter(
                system_id=baseline.system_id, metric__in=metrics, config_class=config_class(baseline)[:255]
            ).values_list("metric", "sigma")
        )
    verdicts = []
    for delta, metric in rows:
        if metric in own:
            sigma, source = own[metric], "this system"
        elif site.get(metric):
            sigma, source = statistics.median(site[metric]), f"median of {len(site[metric])} systems"
        else:
            continue
        threshold = NOISE_SIGMAS * math.sqrt(2) * sigma
        beyond = [None if not ratio else abs(math.log(ratio)) > threshold for ratio in delta.ratios[1:]]
        verdicts.append(NoiseVerdict(delta.name, 100 * math.expm1(sigma), source, beyond))
    return verdicts
