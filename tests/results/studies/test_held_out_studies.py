"""Held-out parameter studies: other file systems, APIs, node counts, repetitions (3-5), noise and effects.

The studies are generated as IOR-3.3 text with known true means (``study_generator``), ingested like
any study and exported; the acceptance of the shared sample must hold on them too: every per-iteration
value stored exactly, >= 95 % of the truly different pairs significant, <= 5 % of the equal pairs.
"""

import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command

from apps.ingest.pipelines.ior import ingest_ior_paths
from tests.results.studies.study_generator import StudySpec, write_study

pytestmark = pytest.mark.django_db

SPECS = [
    StudySpec(seed=11, filesystems={"GPFS": 0.04, "BeeGFS": 0.10}, apis=["POSIX", "HDF5"], nodes=[2, 4, 16],
              configs=["stripe1", "stripe4", "stripe16", "stripe64"], repetitions=3),
    StudySpec(seed=12, filesystems={"WekaFS": 0.03, "DAOS": 0.07, "Lustre": 0.12}, apis=["PNETCDF"],
              nodes=[1, 64], configs=["a", "b", "c", "d", "e", "f"], repetitions=4, effect_range=(2.0, 6.0)),
    StudySpec(seed=13, filesystems={"NFS": 0.08}, apis=["MPIIO", "POSIX", "HDF5"], nodes=[3, 6, 12, 24],
              configs=["x1", "x2", "x3"], repetitions=5, tasks_per_node=48),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda spec: f"seed{spec.seed}-reps{spec.repetitions}")
def test_held_out_study_meets_the_acceptance_rates(spec, tmp_path):
    truth = write_study(spec, tmp_path)
    summary = ingest_ior_paths([tmp_path], study_name="held-out", manifest=tmp_path / "manifest.csv")
    assert summary.failed == []
    out = io.StringIO()
    call_command("export_study", "held-out", stdout=out)
    document = json.loads(out.getvalue(), parse_float=Decimal)

    points = {(p["source"], p["operation"]): p for p in document["points"]}
    for cell in truth["cells"]:
        assert points[(cell["log"], cell["operation"])]["iterations"] == [Decimal(v) for v in cell["iterations"]]

    group_axes = ("filesystem", "api", "nodes")
    varying = [len({p["axes"][axis] for p in document["points"]}) > 1 for axis in group_axes]
    comparisons = {(*(c["fixed"].get(axis) for axis in group_axes), c["operation"], *pair): c
                   for c in document["comparisons"] if c["axis"] == "config"
                   for pair in ((c["a"], c["b"]), (c["b"], c["a"]))}

    def significant(pair):
        fixed = (value if vary else None for value, vary in zip(pair[:3], varying, strict=True))
        return comparisons[(*fixed, *pair[3:])]["significant"]

    different = [significant(pair) for pair in truth["different"]]
    same = [significant(pair) for pair in truth["same"]]
    assert different
    assert same
    assert sum(different) >= 0.95 * len(different)
    assert sum(same) <= 0.05 * len(same)
