"""json_safe: what a JSON column cannot hold becomes text, everything else is kept as it is."""

import json
import math
from datetime import datetime
from decimal import Decimal

from apps.ingest.parsers.json_values import json_safe


def test_non_finite_floats_and_foreign_objects_become_text():
    value = {
        "rate": math.inf,
        "ratio": math.nan,
        "when": datetime(2023, 10, 25, 16, 20, 4),
        "exact": Decimal("1.50"),
        "pair": (1, -math.inf),
        "nested": [{"ok": 2.5, "flag": True, "none": None}],
    }
    assert json_safe(value) == {
        "rate": "inf",
        "ratio": "nan",
        "when": "2023-10-25 16:20:04",
        "exact": "1.50",
        "pair": [1, "-inf"],
        "nested": [{"ok": 2.5, "flag": True, "none": None}],
    }


def test_the_result_is_strict_json():
    json.dumps(json_safe({"x": [math.inf, math.nan]}), allow_nan=False)
