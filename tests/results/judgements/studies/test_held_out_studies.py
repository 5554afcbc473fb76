"""Held-out parameter studies: other file systems, APIs, node counts, repetitions (3-5), noise and effects,
each configuration run as several jobs whose iterations share a job factor (job-level noise).

The studies are generated as IOR-3.3 text with known true means (``synth.study``), ingested like
any study and exported. Acceptance: every per-iteration value stored exactly; >= 95 % of the truly
different pairs (2x or more apart) called ``different``; <= 5 % of the equal pairs; the 95 % interval of
the ratio covering the true ratio for >= 90 % of the pairs; and one job a side never tested.
"""

import io
import json
from decimal import Decimal

import pytest
from django.core.management import call_command

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from synth.study import StudySpec, write_study

pytestmark = pytest.mark.django_db

SPECS = [
    StudySpec(
        seed=11,
        filesystems={"GPFS": 0.04, "BeeGFS": 0.10},
        apis=["POSIX", "HDF5"],
        nodes=[2, 16],
        configs=["stripe1", "stripe4", "stripe16", "stripe64"],
        repetitions=3,
        jobs=3,
        job_noise=0.05,
    ),
    StudySpec(
        seed=12,
        filesystems={"WekaFS": 0.03, "DAOS": 0.07, "Lustre": 0.12},
        apis=["PNETCDF"],
        nodes=[1, 64],
        configs=["a", "b", "c", "d"],
        repetitions=4,
        effect_range=(2.0, 6.0),
        jobs=4,
        job_noise=0.08,
    ),
    StudySpec(
        seed=13,
        filesystems={"NFS": 0.08},
        apis=["MPIIO", "POSIX", "HDF5"],
        nodes=[3, 24],
        configs=["x1", "x2", "x3"],
        repetitions=5,
        tasks_per_node=48,
        jobs=5,
        job_noise=0.03,
    ),
]
GROUP_AXES = ("filesystem", "api", "nodes")


def ingest_and_judge(spec: StudySpec, root) -> tuple[dict, dict[str, list[tuple[dict, float]]]]:
    """The exported study and, for the truth's different and same pairs, (comparison, true ratio a/b)."""
    truth = write_study(spec, root)
    name = f"held-out {spec.seed}"
    summary = ingest_ior_paths([root], study_name=name, manifest=root / "manifest.csv")
    assert summary.failed == []
    out = io.StringIO()
    call_command("export_study", name, stdout=out)
    document = json.loads(out.getvalue(), parse_float=Decimal)
    varying = [len({p["axes"][axis] for p in document["points"]}) > 1 for axis in GROUP_AXES]
    comparisons = {}
    for c in document["comparisons"]:
        if c["axis"] == "config":
            fixed = tuple(c["fixed"].get(axis) for axis in GROUP_AXES)
            comparisons[(*fixed, c["operation"], c["a"], c["b"])] = (c, False)
            comparisons[(*fixed, c["operation"], c["b"], c["a"])] = (c, True)
    true_ratios = {tuple(entry[:6]): entry[6] for entry in truth["ratios"]}
    judged: dict[str, list[tuple[dict, float]]] = {}
    for kind in ("different", "same"):
        for pair in truth[kind]:
            fixed = (value if vary else None for value, vary in zip(pair[:3], varying, strict=True))
            comparison, flipped = comparisons[(*fixed, *pair[3:])]
            ratio = true_ratios[tuple(pair)]
            judged.setdefault(kind, []).append((comparison, 1 / ratio if flipped else ratio))
    return document, judged


def test_held_out_studies_with_job_noise_meet_the_acceptance_rates(tmp_path):
    """The rates are over the three studies' pairs together: 5 % of one study's 14 equal pairs would allow none."""
    judged: dict[str, list[tuple[dict, float]]] = {"different": [], "same": []}
    for spec in SPECS:
        document, study_judged = ingest_and_judge(spec, tmp_path / str(spec.seed))
        points = {(p["source"], p["operation"]): p for p in document["points"]}
        for cell in spec.truth["cells"]:
            assert points[(cell["log"], cell["operation"])]["iterations"] == [Decimal(v) for v in cell["iterations"]]
        assert {tuple(c["jobs"]) for kind in study_judged for c, _ in study_judged[kind]} == {(spec.jobs, spec.jobs)}
        for kind, pairs in study_judged.items():
            judged[kind] += pairs

    different = [c["verdict"] == "different" for c, _ in judged["different"]]
    same = [c["verdict"] == "different" for c, _ in judged["same"]]
    assert len(different) >= 40
    assert len(same) >= 40
    assert sum(different) >= 0.95 * len(different)
    assert sum(same) <= 0.05 * len(same)
    pairs = judged["different"] + judged["same"]
    covered = [c["ratio_ci"][0] <= Decimal(repr(ratio)) <= c["ratio_ci"][1] for c, ratio in pairs]
    assert sum(covered) >= 0.90 * len(covered)


def test_a_single_iteration_single_job_study_says_not_testable(tmp_path, client):
    """IO500 runs IOR once with one iteration: such a study can be stored and shown, never tested."""
    spec = StudySpec(
        seed=21, filesystems={"Lustre": 0.05}, apis=["POSIX"], nodes=[4], configs=["one", "two", "three"], repetitions=1
    )
    document, _ = ingest_and_judge(spec, tmp_path)

    assert {(c["verdict"], c["p_value"], c["ratio_ci"], tuple(c["jobs"])) for c in document["comparisons"]} == {
        ("not_testable", None, None, (1, 1))
    }
    study_id = json.loads(client.get("/api/v1/studies/").content)["results"][0]["id"]
    html = client.get(f"/studies/{study_id}/").content.decode()
    assert "not testable: no config value has 2 jobs (logs) on both sides of a comparison (write)" in html
    assert "no significant difference" not in html
