"""Acceptance of change detection against injected truth: the shared history sample and held-out histories.

The expected steps, outliers and flat systems come from truth.json or from the held-out generator's own
record of what it injected (synth/history.py), never from the detector.
"""

import json
import math
import os

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Change
from apps.results.services.changes.history import detect_all_changes
from synth.history import DERIVED, change_record, names_cause, write_history
from tests.conftest import shared_path

pytestmark = pytest.mark.django_db
DETECTABLE_Z = 6


def held_out_seeds() -> list[int]:
    """Seeds 1-5, or the range in IOBOARD_HELDOUT_SEEDS (e.g. "1-40") to measure docs/changes.md's figures."""
    first, _, last = os.environ.get("IOBOARD_HELDOUT_SEEDS", "1-5").partition("-")
    return list(range(int(first), int(last or first) + 1))


def detected_changes() -> list[dict]:
    return [change_record(c) for c in Change.objects.select_related("system", "run_before", "run_after")]


def assert_matches_truth(truth: dict, changes: list[dict]) -> None:
    """Every injected step found at its run, in its direction, its causes named by (field, after) entries.

    A held-out step with a recorded detectability ``z`` below 6 (docs/changes.md) need not be found.
    """
    steps = [c for c in changes if c["kind"] == "step"]
    for expected in truth["steps"]:
        if expected.get("z", math.inf) < DETECTABLE_Z:
            continue
        found = [
            c
            for c in steps
            if c["system"] == expected["system"]
            and c["metric"] == expected["metric"]
            and c["after"] == expected["after_submission"]
        ]
        assert found, f"missed step {expected}"
        assert found[0]["direction"] == expected["direction"], (expected, found[0])
        for token in expected["cause_tokens"]:
            assert names_cause(found[0]["attribution"], token), f"attribution of {expected} lacks {token!r}: {found[0]}"
    for expected in truth["outliers"]:
        assert any(
            c["kind"] == "outlier"
            and c["system"] == expected["system"]
            and c["metric"] == expected["metric"]
            and c["after"] == expected["submission"]
            for c in changes
        ), f"missed outlier {expected}"
        assert not [
            c
            for c in steps
            if c["system"] == expected["system"]
            and c["metric"] == expected["metric"]
            and c["after"] in (expected["submission"], expected["submission"] + 1)
        ], f"outlier {expected} reported as a step"
    for step in steps:
        assert step["system"] not in truth["flat_systems"], f"step on a flat system: {step}"
        true_places = {t["after_submission"] for t in truth["steps"] if t["system"] == step["system"]}
        injected_here = any(
            t["system"] == step["system"] and t["metric"] == step["metric"] and t["after_submission"] == step["after"]
            for t in truth["steps"]
        )
        derived_at_true_place = step["metric"] in DERIVED and step["after"] in true_places
        assert injected_here or derived_at_true_place, f"step where none was injected: {step}"


@pytest.mark.corpus
def test_the_shared_history_sample_matches_its_truth():
    sample = shared_path("history-sample")
    summary = ingest_path(sample)
    assert not summary.failed
    detect_all_changes()
    truth = json.loads((sample / "truth.json").read_text())
    assert_matches_truth(truth, detected_changes())
    # A step at a change of client nodes compares two experiments: it is stored as expected, the others new.
    for expected in truth["steps"]:
        change = Change.objects.get(
            system__name=expected["system"],
            metric=expected["metric"],
            kind="step",
            run_after__submission_id=str(expected["after_submission"]),
        )
        assert change.status == ("expected" if "client_nodes" in expected["cause_tokens"] else "new"), expected


@pytest.mark.parametrize("seed", held_out_seeds())
def test_a_held_out_history_matches_what_was_injected(tmp_path, seed):
    truth = write_history(tmp_path, seed)
    assert truth["steps"]
    assert truth["flat_systems"]
    summary = ingest_path(tmp_path)
    assert not summary.failed
    assert len(summary.created) > 30
    detect_all_changes()
    assert_matches_truth(truth, detected_changes())


def test_causes_are_matched_as_structured_entries_not_substrings():
    attribution = [
        {"field": "patch:LU-16338 lock-free stat path", "before": None, "after": "applied 1a2b"},
        {"field": "tunable:client: osc.*.max_pages_per_rpc", "before": "16M", "after": "4M"},
        {"field": "client_nodes", "before": "10", "after": "20"},
    ]
    assert all(names_cause(attribution, token) for token in ("LU-16338", "max_pages_per_rpc", "client_nodes", "20"))
    # Substrings of the JSON dump that name nothing: a fragment of a ticket, of a value, of a field.
    assert not any(names_cause(attribution, token) for token in ("LU-1633", "2", "pages", "client"))
