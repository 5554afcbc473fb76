"""Apache Otava on a batch of series, run inside its own virtualenv (bench/.venv-otava; see bench/changes/judge.py).

Reads {"max_pvalue": p, "series": [[value, ...], ...]} as JSON on stdin and prints, per series, the indices of
the change points Otava reports (the first run after each), as JSON. Otava's other settings are its defaults
(`otava.series.AnalysisOptions`: window_len 50, min_magnitude 0). Otava reports no outliers.
"""

import json
import sys

from otava.analysis import compute_change_points
from otava.series import AnalysisOptions


def main() -> None:
    request = json.load(sys.stdin)
    options = AnalysisOptions()
    pvalue = request.get("max_pvalue", options.max_pvalue)
    found = []
    for values in request["series"]:
        points, _ = compute_change_points(
            values, window_len=options.window_len, max_pvalue=pvalue, min_magnitude=options.min_magnitude
        )
        found.append([int(point.index) for point in points])
    json.dump(found, sys.stdout)


if __name__ == "__main__":
    main()
