"""Change detection on generated held-out histories: true steps found, false steps, outliers (docs/changes.md).

Run: .venv/bin/python -m bench change_heldout FIRST_SEED LAST_SEED

Each seed's history (``synth.history``) is ingested into a fresh SQLite
file and detected in full; the counts compare the stored changes with what the generator injected, by the
rules of the acceptance test (a derived score's step at a true step's run is neither right nor wrong).
"""

import argparse
import os
import secrets
import tempfile
from collections import Counter
from pathlib import Path

from synth.history import DERIVED, names_cause


def count_steps(truth: dict, steps: list[dict], totals: Counter) -> int:
    """Each injected step: found at its run, in its direction, its causes named. Returns the misses."""
    errors = 0
    for expected in truth["steps"]:
        totals["true steps"] += 1
        found = [
            c
            for c in steps
            if (c["system"], c["metric"], c["after"])
            == (expected["system"], expected["metric"], expected["after_submission"])
        ]
        totals["found"] += bool(found)
        good = (
            bool(found)
            and found[0]["direction"] == expected["direction"]
            and all(names_cause(found[0]["attribution"], token) for token in expected["cause_tokens"])
        )
        totals["right direction and causes"] += good
        errors += not good
    return errors


def count_outliers(truth: dict, changes: list[dict], totals: Counter) -> int:
    """Each injected outlier found at its run. Returns the misses."""
    errors = 0
    for expected in truth["outliers"]:
        totals["true outliers"] += 1
        hit = any(
            c["kind"] == "outlier"
            and (c["system"], c["metric"], c["after"])
            == (expected["system"], expected["metric"], expected["submission"])
            for c in changes
        )
        totals["outliers found"] += hit
        errors += not hit
    return errors


def count_false_steps(truth: dict, steps: list[dict], totals: Counter) -> int:
    """Steps where none was injected (a derived score's step at a true step's run is not one)."""
    errors = 0
    for step in steps:
        places = {t["after_submission"] for t in truth["steps"] if t["system"] == step["system"]}
        injected = any(
            (t["system"], t["metric"], t["after_submission"]) == (step["system"], step["metric"], step["after"])
            for t in truth["steps"]
        )
        if not injected and not (step["metric"] in DERIVED and step["after"] in places):
            totals["false steps"] += 1
            errors += 1
    return errors


def score_seed(truth: dict, changes: list[dict], totals: Counter) -> None:
    steps = [c for c in changes if c["kind"] == "step"]
    errors = count_steps(truth, steps, totals) + count_outliers(truth, changes, totals)
    errors += count_false_steps(truth, steps, totals)
    totals["seeds with any error"] += bool(errors)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench change_heldout", description=__doc__.split("\n")[0])
    parser.add_argument("first", type=int, help="the first seed")
    parser.add_argument("last", type=int, help="the last seed (inclusive)")
    args = parser.parse_args(argv)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    scratch = Path(tempfile.mkdtemp(prefix="ioboard-heldout-"))
    os.environ["SQLITE_PATH"] = str(scratch / "db.sqlite3")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))  # the settings hold no key; a throw-away one
    import django

    django.setup()
    from django.core.management import call_command

    from apps.ingest.tools.io500.pipeline import ingest_path
    from apps.results.models import Change
    from apps.results.services.changes.history import detect_all_changes
    from synth.history import change_record, write_history

    call_command("migrate", verbosity=0)
    totals = Counter(
        dict.fromkeys(
            [
                "true steps",
                "found",
                "right direction and causes",
                "true outliers",
                "outliers found",
                "false steps",
                "seeds with any error",
            ],
            0,
        )
    )
    for seed in range(args.first, args.last + 1):
        call_command("flush", interactive=False, verbosity=0)
        truth = write_history(scratch / f"seed-{seed}", seed)
        ingest_path(scratch / f"seed-{seed}")
        detect_all_changes()
        changes = [change_record(c) for c in Change.objects.select_related("system", "run_before", "run_after")]
        score_seed(truth, changes, totals)
    print(f"seeds {args.first}-{args.last}: " + ", ".join(f"{key} {value}" for key, value in totals.items()))
