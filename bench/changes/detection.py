"""Simulated behaviour of change detection (docs/changes.md): false alarms on noise, steps and outliers found.

Run: .venv/bin/python -m bench change_detection [seed]

Noise-only series of 3 to 150 runs (log-normal noise 3-5 %), single steps of 15-60 % with at least two runs
on each side (8-30 runs), and single outliers of 30-120 % (in log terms) at any interior run (6-30 runs).
No provenance hints are given, so a step's position rests on the values alone.
"""

import argparse

import numpy as np

from apps.results.judgements.changes.detection import detect


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench change_detection", description=__doc__.split("\n")[0])
    parser.add_argument("seed", nargs="?", type=int, default=0, help="the random generator's seed (default 0)")
    rng = np.random.default_rng(parser.parse_args(argv).seed)
    false_steps = false_outliers = series = 0
    for length in (3, 4, 5, 6, 8, 10, 15, 20, 30, 60, 150):
        for _ in range(400):
            detection = detect(np.exp(rng.normal(0, rng.uniform(0.03, 0.05), length)))
            series += 1
            false_steps += bool(detection.steps)
            false_outliers += bool(detection.outliers)
    print(f"noise only: {false_steps}/{series} series with a step, {false_outliers}/{series} with an outlier")
    trials, missed_steps, extra_steps, missed_outliers = 3000, 0, 0, 0
    for _ in range(trials):
        length, sigma = rng.integers(8, 30), rng.uniform(0.03, 0.05)
        first_after = rng.integers(2, length - 1)
        values = rng.normal(0, sigma, length)
        values[first_after:] += rng.choice([-1, 1]) * np.log1p(rng.uniform(0.15, 0.6))
        steps = detect(np.exp(values)).steps
        missed_steps += not any(step.index == first_after for step in steps)
        extra_steps += any(step.index != first_after for step in steps)
        length = rng.integers(6, 30)
        values = rng.normal(0, sigma, length)
        outlying = rng.integers(1, length - 1)
        values[outlying] += rng.choice([-1, 1]) * rng.uniform(0.3, 1.2)
        detection = detect(np.exp(values))
        missed_outliers += not any(o.index == outlying for o in detection.outliers) or bool(detection.steps)
    print(
        f"steps of 15-60 %: {missed_steps}/{trials} missed at their run, {extra_steps}/{trials} with a step elsewhere"
    )
    print(f"outliers of 30-120 % (log): {missed_outliers}/{trials} missed or reported with a step")
