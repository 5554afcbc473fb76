"""Change detection judged on held-out histories, side by side with Apache Otava (docs/changes.md, "Benchmark").

Run: .venv/bin/python -m bench change_judge [--seeds held-out|training|FIRST-LAST] [--no-otava]
     [--set PARAMETER=VALUE ...]

Each seed is one system's history from synth/change_series.py (15 series: 12 phases and the three
scores). Our detector gets each series with the runs whose provenance changed (the hints the service gives
it); Otava gets the values alone, as it would from a CSV, once with its defaults (p = 0.001) and once with
p = 0.01. Otava runs in its own virtualenv, `bench/.venv-otava` (gitignored; it pins numpy 2.2 / scipy 1.16
and pulls google-cloud packages, so it must not go into the project's), made on first use with
``python3.11 -m venv bench/.venv-otava && bench/.venv-otava/bin/pip install apache-otava==0.8.0``.

Scoring, per series: a reported step is right when an unmatched true step of that series is within one run
of it in the same direction (each true step matches once); any other reported step is a false step. A
reported outlier is right at an injected outlier, neutral at a wild noise draw (beyond 5 sigma) or a
derived score's shadow of a phase outlier, and false anywhere else. Recall is by detectability
``z = |ln(1+step)| / (sigma * sqrt(1/n_before + 1/n_after))``. F1 uses the recall of detectable steps
(z >= 6 and >= 5 %) and the precision of every reported step. Attribution (ours only): a found step's
attribution is the provenance difference between its two runs, right when that is the true change's (and
empty for a step with no provenance change). Intervals are 95 % Wilson score intervals.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from apps.results.judgements.changes.detection import DetectionParameters, detect
from rig import REPO_ROOT
from synth.change_series import HELD_OUT, METRICS, TRAINING, History, history

OTAVA_PYTHON = REPO_ROOT / "bench" / ".venv-otava" / "bin" / "python"
OTAVA_RUNNER = Path(__file__).resolve().parent / "otava_runner.py"
BINS = [
    ("z < 3", lambda s: s.z < 3),
    ("3 <= z < 6", lambda s: 3 <= s.z < 6),
    ("z >= 6, step < 5 %", lambda s: s.z >= 6 and s.pct < 5),
    ("z >= 6, 5-10 %", lambda s: s.z >= 6 and 5 <= s.pct < 10),
    ("z >= 6, >= 10 %", lambda s: s.z >= 6 and s.pct >= 10),
]
DETECTABLE = ("z >= 6, 5-10 %", "z >= 6, >= 10 %")


def wilson(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (Wilson 1927, JASA 22:209-212; recommended over the
    normal approximation by Agresti & Coull 1998, The American Statistician 52:119-126)."""
    if trials == 0:
        return 0.0, 1.0
    p = min(successes, trials) / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    series: int = 0
    true_found: dict[str, list[int]] = field(default_factory=lambda: {name: [0, 0] for name, _ in BINS})
    reported_steps: int = 0
    right_steps: int = 0
    false_steps: int = 0
    true_outliers: int = 0
    outliers_found: int = 0
    outliers_as_steps: int = 0
    false_outliers: int = 0
    attributions: list[int] = field(default_factory=lambda: [0, 0])
    unexplained_empty: list[int] = field(default_factory=lambda: [0, 0])

    def score(self, case: History, metric: str, steps: list[tuple[int, int, int]], outliers: list[int] | None):
        """steps: (before index, first index after, sign); outliers: indices, or None for a method without."""
        self.series += 1
        truth = [s for s in case.steps if s.metric == metric]
        matched: set[int] = set()
        for before, index, sign in steps:
            self.reported_steps += 1
            candidates = [
                k
                for k, s in enumerate(truth)
                if k not in matched and abs(s.index - index) <= 1 and (s.log_shift > 0) == (sign > 0)
            ]
            if not candidates:
                self.false_steps += 1
                continue
            k = min(candidates, key=lambda k: abs(truth[k].index - index))
            matched.add(k)
            self.right_steps += 1
            between = {hint for hint in case.hints if before < hint <= index}
            expected = {truth[k].index} if truth[k].explained else set()
            self.attributions[0] += between == expected
            self.attributions[1] += 1
            if not truth[k].explained:
                self.unexplained_empty[0] += not between
                self.unexplained_empty[1] += 1
        for k, step in enumerate(truth):
            for name, member in BINS:
                if member(step):
                    self.true_found[name][0] += k in matched
                    self.true_found[name][1] += 1
        for phase, index in case.outliers:
            if phase != metric:
                continue
            self.true_outliers += 1
            self.outliers_found += outliers is not None and index in outliers
            self.outliers_as_steps += any(after in (index, index + 1) for _, after, _ in steps)
        for index in outliers or []:
            if (metric, index) not in case.outliers and (metric, index) not in case.neutral_outliers:
                self.false_outliers += 1

    def detectable(self) -> tuple[int, int]:
        """True steps with z >= 6 and >= 5 %: (found, all)."""
        return (
            sum(self.true_found[name][0] for name in DETECTABLE),
            sum(self.true_found[name][1] for name in DETECTABLE),
        )

    def f1(self) -> float:
        found, total = self.detectable()
        recall = found / total if total else 0.0
        precision = self.right_steps / self.reported_steps if self.reported_steps else 1.0
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def ours(case: History, metric: str, parameters: DetectionParameters) -> tuple[list, list]:
    found = detect(case.values[metric], hints=sorted(case.hints), parameters=parameters)
    return (
        [(s.before_index, s.index, 1 if s.direction == "up" else -1) for s in found.steps],
        [o.index for o in found.outliers],
    )


def otava(cases: list[History], pvalue: float | None) -> dict[tuple[int, str], list]:
    """Otava's change points for every series of `cases`, from one subprocess in its own virtualenv."""
    keys = [(case.seed, metric) for case in cases for metric in METRICS]
    values = {case.seed: case for case in cases}
    request = {"series": [[float(v) for v in values[seed].values[metric]] for seed, metric in keys]}
    if pvalue is not None:
        request["max_pvalue"] = pvalue
    answer = subprocess.run(
        [str(OTAVA_PYTHON), str(OTAVA_RUNNER)], input=json.dumps(request), text=True, capture_output=True, check=True
    )
    found = {}
    for (seed, metric), indices in zip(keys, json.loads(answer.stdout), strict=True):
        series = values[seed].values[metric]
        found[(seed, metric)] = [
            (previous, index, 1 if series[index:nxt].mean() > series[previous:index].mean() else -1)
            for previous, index, nxt in zip([0, *indices], indices, [*indices[1:], len(series)], strict=False)
        ]
    return found


def seeds_of(text: str) -> range:
    if text == "held-out":
        return HELD_OUT
    if text == "training":
        return TRAINING
    first, _, last = text.partition("-")
    return range(int(first), int(last or first) + 1)


def pct(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k}/{n} = {100 * k / n:.0f} % ({100 * low:.0f}-{100 * high:.0f})" if n else "-"


def per_100(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{100 * k / n:.1f} ({100 * low:.1f}-{100 * high:.1f})"


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench change_judge", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="held-out")
    parser.add_argument("--no-otava", action="store_true")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PARAMETER=VALUE",
        help="override a DetectionParameters field (tuning: on the training seeds only)",
    )
    return parser.parse_args(argv)


def tally_methods(cases: list[History], parameters: DetectionParameters, with_otava: bool) -> dict[str, Tally]:
    """Each method's tally over every history's series: ioboard's detector, and Otava at its default p-value
    and at ours."""
    methods: dict[str, Tally] = {"ioboard": Tally()}
    for case in cases:
        for metric in METRICS:
            methods["ioboard"].score(case, metric, *ours(case, metric, parameters))
    if with_otava:
        for label, pvalue in (("Otava defaults (p = 0.001)", None), ("Otava p = 0.01", 0.01)):
            tally = methods[label] = Tally()
            found = otava(cases, pvalue)
            for case in cases:
                for metric in METRICS:
                    tally.score(case, metric, found[(case.seed, metric)], None)
    return methods


def print_table(seeds: str, cases: list[History], methods: dict[str, Tally]) -> None:
    """The methods side by side: recall per bin of detectability, precision, false alarms, outliers, causes."""
    names = list(methods)
    print(f"seeds {seeds}: {len(cases)} histories, {methods['ioboard'].series} series\n")
    print("| | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for name, _ in BINS:
        print(f"| recall, {name} | " + " | ".join(pct(*t.true_found[name]) for t in methods.values()) + " |")
    rows = [
        ("**recall, detectable (z >= 6, >= 5 %)**", lambda t: pct(*t.detectable())),
        ("F1 (detectable recall, precision of all steps)", lambda t: f"{t.f1():.2f}"),
        ("steps reported / right", lambda t: f"{t.reported_steps} / {t.right_steps}"),
        ("false steps per 100 series", lambda t: per_100(t.false_steps, t.series)),
        (
            "false outliers per 100 series",
            lambda t: per_100(t.false_outliers, t.series) if t is methods["ioboard"] else "-",
        ),
        ("true outliers found", lambda t: pct(t.outliers_found, t.true_outliers) if t is methods["ioboard"] else "-"),
        ("true outliers reported as a step", lambda t: pct(t.outliers_as_steps, t.true_outliers)),
        ("attribution right (found steps)", lambda t: pct(*t.attributions) if t is methods["ioboard"] else "-"),
        (
            "unexplained steps with empty attribution",
            lambda t: pct(*t.unexplained_empty) if t is methods["ioboard"] else "-",
        ),
    ]
    for label, show in rows:
        print(f"| {label} | " + " | ".join(show(t) for t in methods.values()) + " |")


def main(argv: list[str]) -> None:
    arguments = parse_arguments(argv)
    parameters = DetectionParameters.from_mapping(
        {name: float(value) for name, _, value in (text.partition("=") for text in arguments.set)}
    )
    cases = [history(seed) for seed in seeds_of(arguments.seeds)]
    print_table(arguments.seeds, cases, tally_methods(cases, parameters, not arguments.no_otava))
