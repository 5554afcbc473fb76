"""``above_measured_ceiling``: an IO500 run of a storage system whose hardware a stack measured is held to
that stack's ceiling (docs/stacks.md): flagged above 1.10 x, not below, with the sums as evidence."""

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.judgements.anomalies import PhaseFacts, RunFacts, evaluate_all
from apps.results.judgements.anomalies.registry import RuleContext
from apps.results.models import Anomaly
from tests.factories import RunFactory, StorageSystemFactory

BEACON_IO2 = Path(__file__).resolve().parents[3] / "data" / "stack" / "beacon-io2"
IO500_SAMPLES = Path(__file__).resolve().parents[3] / "data" / "io500"
CEILING = {
    "stack": "beacon",
    "read": 13294.5,
    "write": 11487.2,
    "limited_by": {"read": "storage", "write": "storage"},
    "storage": {"read": 13294.5, "write": 11487.2},
    "network": {"read": 27000.0, "write": 27000.0},
}


def facts(**gib_per_s) -> RunFacts:
    return RunFacts(
        era="capp",
        phases={
            name: PhaseFacts(
                value=value, unit="GiB/s", printed_value=f"{value:.6f}", source_file="result_summary.txt", source_line=3
            )
            for name, value in gib_per_s.items()
        },
    )


def findings(run_facts: RunFacts, ceiling=CEILING):
    return evaluate_all(run_facts, context=RuleContext(measured_ceiling=ceiling), rules=["above_measured_ceiling"])


def test_a_read_above_1_10_times_the_read_ceiling_is_flagged_with_the_sums():
    # 20 GiB/s = 21,474.8 MB/s > 1.10 x 13,294.5 = 14,624 MB/s
    [finding] = findings(facts(ior_easy_read=20.0, ior_easy_write=10.0))
    assert finding.phase == "ior_easy_read"
    assert finding.severity == "warn"
    assert finding.evidence["measured_mb_s"] == pytest.approx(20 * 1073.741824)
    assert finding.evidence["ceiling_mb_s"] == 13294.5
    assert finding.evidence["storage_sum_mb_s"] == 13294.5
    assert finding.evidence["network_sum_mb_s"] == 27000.0
    assert finding.evidence["limited_by"] == "storage"


def test_a_run_within_1_10_times_the_ceiling_is_not_flagged():
    # 11.7 GiB/s = 12,562.8 MB/s write: 1.09 x 11,487.2, under the threshold
    assert findings(facts(ior_easy_write=11.7, ior_easy_read=12.0)) == []


def test_a_system_without_a_stack_is_not_judged():
    assert findings(facts(ior_easy_read=500.0), ceiling={}) == []


def ingest_the_operators_beacon_io2_stack():
    """The operator's stack of Beacon's io2 file system (NICS), as `ingest --kind stack` stores it."""
    call_command(
        "ingest",
        "--kind",
        "stack",
        str(BEACON_IO2),
        "--name",
        "beacon-io2",
        "--institution",
        "NICS",
        "--system",
        "Beacon",
        "--filesystem",
        "Lustre",
    )


@pytest.mark.django_db(transaction=True)
def test_a_stored_io500_run_of_a_system_with_a_stack_is_flagged_above_the_ceiling_and_not_below(celery_eager):
    system = StorageSystemFactory(name="Beacon", institution__name="NICS")
    fast = RunFactory(system=system, facts=facts(ior_easy_write=5.0, ior_easy_read=20.0).to_dict())
    slow = RunFactory(system=system, facts=facts(ior_easy_write=1.0, ior_easy_read=2.0).to_dict())

    # io2 alone: ceiling = its two OSTs, about 2,385 MB/s write and 2,770 MB/s read
    ingest_the_operators_beacon_io2_stack()

    flagged = Anomaly.objects.filter(rule="above_measured_ceiling")
    assert sorted(flagged.filter(run=fast).values_list("phase", flat=True)) == ["ior_easy_read", "ior_easy_write"]
    assert not flagged.filter(run=slow).exists()  # 1.0 GiB/s = 1,074 MB/s write, 2.0 = 2,147 MB/s read


@pytest.mark.django_db(transaction=True)
def test_a_bulk_ingested_io500_run_of_a_system_with_the_operators_stack_is_flagged_above_its_ceiling(
    celery_eager, tmp_path
):
    ingest_the_operators_beacon_io2_stack()
    shutil.copytree(IO500_SAMPLES / "capp-result-dir" / "submission-686", tmp_path / "tree" / "submission-686")

    # ior-easy-write printed 3.989304 GiB/s (4,283 MB/s): over 1.10 times io2's write ceiling of about 2,385 MB/s
    summary = ingest_path(
        tmp_path / "tree", overrides={"institution": "NICS", "system": "Beacon", "filesystem": "Lustre"}
    )

    flagged = Anomaly.objects.filter(run__in=summary.created, rule="above_measured_ceiling")
    assert "ior_easy_write" in flagged.values_list("phase", flat=True)
