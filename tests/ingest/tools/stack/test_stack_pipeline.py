"""``ingest --kind stack`` and ``export_stack``: a bottom-up campaign stored whole, its meaning exactly the
stack-sample README's (checked against its truth.json), or refused naming the file and line."""

import json
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.results.models import Stack, StackComponent
from tests.conftest import shared_path

DATA = Path(__file__).resolve().parents[3] / "data" / "stack"
MEASURED_TOLERANCE = 0.005
DERIVED_TOLERANCE = 0.01

pytestmark = pytest.mark.django_db(transaction=True)


def ingest(path: Path, name: str, *extra: str) -> None:
    call_command("ingest", "--kind", "stack", str(path), "--name", name, *extra)


def export(name: str, tmp_path: Path) -> dict:
    output = tmp_path / f"{name}.json"
    call_command("export_stack", name, "--format", "json", "-o", str(output))
    return json.loads(output.read_text())


def close(actual, expected, tolerance):
    if expected is None:
        return actual is None
    return actual is not None and abs(actual - expected) <= tolerance * abs(expected)


def assert_layer_rows_match(exported: list[dict], truth: list[dict]) -> None:
    by_key = {(row["layer"], row["component"], row["operation"]): row for row in exported}
    assert len(by_key) == len(exported)
    for want in truth:
        got = by_key[(want["layer"], want["component"], want["operation"])]
        assert got["unit"] == want["unit"]
        assert (got["tool"], got["source"]) == (want["tool"], want["source"])
        assert close(got["measured"], want["measured"], MEASURED_TOLERANCE), (want, got)
        assert close(got["expected"], want["expected"], DERIVED_TOLERANCE), (want, got)
        assert close(got["efficiency"], want["efficiency"], DERIVED_TOLERANCE), (want, got)


def test_the_stack_sample_campaign_exports_its_truth(tmp_path):
    truth = json.loads(shared_path("stack-sample", "truth.json").read_text())
    started = time.monotonic()
    ingest(shared_path("stack-sample", "campaign"), "beacon")
    seconds = time.monotonic() - started
    exported = export("beacon", tmp_path)

    assert seconds < 30, f"ingest took {seconds:.1f} s"
    assert exported["name"] == truth["name"]
    assert len(exported["layers"]) == len(truth["layers"])
    assert_layer_rows_match(exported["layers"], truth["layers"])
    assert [(o["layer"], o["component"], o["operation"]) for o in exported["outliers"]] == [
        (o["layer"], o["component"], o["operation"]) for o in truth["outliers"]
    ]
    for got, want in zip(exported["outliers"], truth["outliers"], strict=True):
        assert close(got["peer_median"], want["peer_median"], DERIVED_TOLERANCE)
    for operation in ("read", "write"):
        assert close(exported["ceiling"][operation], truth["ceiling"][operation], DERIVED_TOLERANCE)
    assert exported["ceiling"]["limited_by"] == truth["ceiling"]["limited_by"]
    assert [(r["source"], r["operation"], r["over_ceiling"]) for r in exported["file_system"]] == [
        (r["source"], r["operation"], r["over_ceiling"]) for r in truth["file_system"]
    ]
    for got, want in zip(exported["file_system"], truth["file_system"], strict=True):
        assert close(got["measured"], want["measured"], MEASURED_TOLERANCE)
        assert close(got["efficiency"], want["efficiency"], DERIVED_TOLERANCE)


def test_a_cut_of_the_sample_in_the_repository_gives_the_sample_rows_and_its_own_ceiling(tmp_path):
    """io2 alone (tests/data/stack/beacon-io2): every component keeps what is below it, so its rows are
    truth.json's; the ceiling is io2's two OSTs' obdfilter-survey figures (its LNet carries more)."""
    truth = json.loads((DATA / "beacon-io2" / "truth-rows.json").read_text())
    ingest(DATA / "beacon-io2", "beacon-io2")
    exported = export("beacon-io2", tmp_path)

    assert_layer_rows_match(exported["layers"], truth["layers"])
    assert len(exported["layers"]) == len(truth["layers"])
    assert exported["outliers"] == []  # io2's drives are all healthy; io4's slow ones are not in this cut
    osts = {(r["component"], r["operation"]): r["measured"] for r in truth["layers"] if r["layer"] == "ost"}
    for operation in ("read", "write"):
        ceiling = osts[("beacon-OST0001", operation)] + osts[("beacon-OST0002", operation)]
        assert close(exported["ceiling"][operation], ceiling, 1e-6)
        for row in (r for r in exported["file_system"] if r["operation"] == operation):
            assert close(row["efficiency"], row["measured"] / ceiling, 1e-6)
            assert row["over_ceiling"] == (row["measured"] > 1.10 * ceiling)
    assert exported["ceiling"]["limited_by"] == {"read": "storage", "write": "storage"}
    assert sum(r["over_ceiling"] for r in exported["file_system"]) == 4  # 4 runs at 12 GB/s on one server


def test_ingesting_a_campaign_again_replaces_it(tmp_path):
    ingest(DATA / "beacon-io2", "again")
    ingest(DATA / "beacon-io2", "again")
    assert Stack.objects.filter(name="again").count() == 1
    stack = Stack.objects.get(name="again")
    assert stack.measurements.count() == 58
    card0 = StackComponent.objects.get(stack=stack, name="io2-card0")
    assert sorted(card0.below.values_list("name", flat=True)) == ["io2-sdb", "io2-sdc", "io2-sdd", "io2-sde"]
