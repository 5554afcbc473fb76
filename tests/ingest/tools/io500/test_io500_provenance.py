"""Lustre provenance from the README's documented sidecar, through the real ingest."""

import re
import shutil

import pytest
import yaml

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.ingest.tools.io500.provenance import collect_provenance
from apps.ingest.tools.io500.records import IO500RunRecord
from apps.results.models import Run
from tests.conftest import REPO_ROOT
from tests.ingest.tools.io500.test_io500_pipeline import CAPP_SUBMISSION

pytestmark = pytest.mark.django_db


def readme_sidecar() -> str:
    readme = (REPO_ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(institution: University of Cambridge.*?)```", readme, re.S)
    assert block, "the README's Cambridge sidecar example is missing"
    return block.group(1)


def test_the_readme_cambridge_sidecar_yields_the_build_patches_tunables_and_striping(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(CAPP_SUBMISSION, run_dir)
    (run_dir / "ioboard.yaml").write_text(readme_sidecar())
    ingest_path(run_dir)

    run = Run.objects.select_related("lustre_build", "system").get()
    build = run.lustre_build
    assert build.base_commit == "85db9b258c"
    assert "2_12_54" in build.base_tag or "2.12.54" in build.base_tag
    applied = build.patches.filter(status="applied")
    assert sorted(applied.values_list("ticket", flat=True)) == [
        "LU-11518",
        "LU-11623",
        "LU-12043",
        "LU-12043",
        "LU-12325",
    ]
    assert list(build.patches.filter(status="reverted").values_list("commit", flat=True)) == ["ce37c38691"]
    assert build.patches.get(commit="1f4f496").review_url.endswith("33585")
    scopes = dict(run.tunables.values_list("parameter", "scope"))
    assert scopes["mdt.*.dom_lock"] == "server"
    assert scopes["ldlm.namespaces.*.lru_size"] == "client"
    overstriped = run.stripings.get(overstriping=True)
    assert overstriped.stripe_count == 1440
    assert run.stripings.filter(inherited=True, dir_stripe_count=-1).exists()
    assert run.system.name == "Data Accelerator"


def test_the_sidecar_example_is_valid_yaml():
    assert yaml.safe_load(readme_sidecar())["lustre"]["notes"].startswith("Base commit")


def test_two_runs_with_the_same_build_share_one_lustre_build_row(tmp_path):
    for name, submission in (("a", CAPP_SUBMISSION), ("b", CAPP_SUBMISSION.parent / "submission-8")):
        run_dir = tmp_path / name
        shutil.copytree(submission, run_dir)
        (run_dir / "ioboard.yaml").write_text(readme_sidecar() + f"\nnotes: run {name}\n")
        (run_dir / "extra.txt").write_text(name)
    ingest_path(tmp_path)
    assert Run.objects.count() == 2
    builds = {run.lustre_build_id for run in Run.objects.all()}
    assert len(builds) == 1


def test_scripts_in_the_result_folder_and_every_folder_above_it_up_to_the_root_are_read(tmp_path):
    """Job scripts and inventories beside a result or in the folders above it, up to the tree's root, carry its
    tunables: not resource forks, folders named like scripts, other submissions' folders, files
    above the root, or scripts past the size cap."""
    outside = tmp_path / "outside"
    root = outside / "archive"
    result_dir = root / "Site" / "system" / "run-1"
    result_dir.mkdir(parents=True)
    (outside / "above-the-root.sh").write_text("lctl set_param llite.*.above_the_root=1\n")
    (root / "archive-wide.sh").write_text("lctl set_param osc.*.max_rpcs_in_flight=64\n")
    (root / "Site" / "inventory.yml").write_text("all:\n  vars:\n    lustre_lru_size: 4000\n")
    (root / "Site" / "._resource-fork.sh").write_text("lctl set_param osc.*.forked=1\n")
    (root / "Site" / "folder.sh").mkdir()
    (root / "Other-site" / "system").mkdir(parents=True)
    (root / "Other-site" / "system" / "theirs.sh").write_text("lctl set_param osc.*.theirs=1\n")
    (result_dir / "job.slurm").write_text("lctl set_param llite.*.max_read_ahead_mb=1024\n")
    (result_dir / "notes.txt").write_text("lctl set_param osc.*.not_a_script=1\n")
    (result_dir / "huge.sh").write_text("lctl set_param osc.*.too_large=1\n" + "#" * (1024 * 1024))

    found = {
        (t.parameter, t.source_file)
        for t in collect_provenance(IO500RunRecord("Site/system/run-1", "capp"), {}, result_dir, root).tunables
    }

    assert found == {
        ("llite.*.max_read_ahead_mb", "Site/system/run-1/job.slurm"),
        ("lustre_lru_size", "Site/inventory.yml"),
        ("osc.*.max_rpcs_in_flight", "archive-wide.sh"),
    }


def test_a_script_added_to_a_folder_already_read_is_found_by_the_next_run(tmp_path):
    """A worker reads many uploads: a folder's listing is not kept past a change to it."""
    result_dir = tmp_path / "Site" / "system" / "run-1"
    result_dir.mkdir(parents=True)
    record = IO500RunRecord("Site/system/run-1", "capp")

    assert collect_provenance(record, {}, result_dir, tmp_path).tunables == []
    (tmp_path / "Site" / "tune.sh").write_text("lctl set_param osc.*.max_dirty_mb=2000\n")

    found = collect_provenance(record, {}, result_dir, tmp_path).tunables
    assert [(t.parameter, t.value, t.source_file) for t in found] == [("osc.*.max_dirty_mb", "2000", "Site/tune.sh")]
