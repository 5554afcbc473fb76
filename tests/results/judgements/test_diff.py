"""diff_runs: what changed between runs, next to the per-phase deltas ("why the improvement?")."""

import json

import pytest

from apps.results.judgements.diff import diff_runs, flatten
from apps.results.models import PhaseResult, Run
from apps.results.services.diff import load_runs
from tests.factories import (
    LustreBuildFactory,
    LustrePatchFactory,
    RunFactory,
    RunFileFactory,
    StorageSystemFactory,
    StripingFactory,
    TunableFactory,
)

pytestmark = pytest.mark.django_db


def build_with(*patches, **fields):
    """A build with patches given as (ticket, summary, status)."""
    build = LustreBuildFactory(**fields)
    for position, (ticket, summary, status) in enumerate(patches):
        LustrePatchFactory(
            build=build,
            position=position,
            ticket=ticket,
            summary=summary,
            status=status,
            commit=f"{abs(hash((ticket, summary))) % 16**7:07x}",
        )
    return build


def compared(*runs):
    return diff_runs(load_runs([r.pk for r in runs]))


def differing(diff):
    return {section.key: [d.key for d in section.differences] for section in diff.sections if section.differences}


def test_runs_that_differ_in_lustre_patches_and_one_tunable_show_exactly_those_differences():
    system = StorageSystemFactory()
    shared = [
        ("LU-12043", "llite: improve single-thread read performance", "applied"),
        ("LU-11518", "ldlm: control lru size for extent lock", "applied"),
    ]
    before = RunFactory(
        system=system,
        lustre_build=build_with(*shared, ("LU-10213", "lnd: qp max send wrs", "applied"), base_commit="85db9b258c"),
    )
    after = RunFactory(
        system=system,
        lustre_build=build_with(
            *shared,
            ("LU-12325", "dom: use LCK_PR with 'trylock' mode", "applied"),
            ("LU-10213", "lnd: qp max send wrs", "reverted"),
            base_commit="85db9b258c",
        ),
    )
    for target, lru in ((before, "10000"), (after, "4000000")):
        TunableFactory(run=target, parameter="ldlm.namespaces.*.lru_size", value=lru)
        TunableFactory(run=target, parameter="osc.*.max_pages_per_rpc", value="16M")
        StripingFactory(run=target)

    diff = compared(before, after)

    assert differing(diff) == {"tunables": ["client: ldlm.namespaces.*.lru_size"]}
    assert diff.section("tunables").differences[0].values == ["10000", "4000000"]
    assert [(p.ticket, p.statuses, p.changes) for p in diff.patches] == [
        ("LU-10213", ["applied", "reverted"], [None, "reverted"]),
        ("LU-12325", [None, "applied"], [None, "added"]),
    ]
    assert diff.files == []
    assert diff.has_differences


def test_identical_runs_have_no_differences_and_flat_phases():
    system = StorageSystemFactory()
    first, second = RunFactory(system=system), RunFactory(system=system)
    diff = compared(first, second)
    assert not diff.has_differences
    assert all(delta.percents == [0.0, 0.0] for delta in diff.phases)
    assert diff.summaries() == [[]]


def test_the_cambridge_story_lists_what_changed_between_may_and_june_2019():
    """LAD'19: 2.12.2 servers / 2.10.7 clients → master 2.12.54 + patches, a reverted commit, DoM tunables."""
    system = StorageSystemFactory(name="Data Accelerator", institution__name="University of Cambridge")
    may = RunFactory(
        system=system,
        client_nodes=502,
        client_procs=8032,
        score_bw=120.47,
        score_md=1103.69,
        score_total=364.64,
        lustre_build=build_with(server_version="2.12.2", client_version="2.10.7", base_tag="v2_12_2"),
    )
    june_build = build_with(
        ("LU-12043", "llite: improve single-thread read performance", "applied"),
        ("LU-12043", "llite, readahead: don't use max RPC size always", "applied"),
        ("LU-11518", "ldlm: control lru size for extent lock", "applied"),
        ("LU-12325", "dom: use LCK_PR with 'trylock' mode", "applied"),
        ("LU-11623", "mdt: Opportunistically return UPDATE and PERM bits on open", "applied"),
        ("LU-10213", "lnd: calculate qp max send wrs properly", "reverted"),
        server_version="2.12.54",
        client_version="2.12.54",
        base_tag="v2_12_54",
        base_commit="85db9b258c",
    )
    june = RunFactory(
        system=system,
        client_nodes=512,
        client_procs=8192,
        score_bw=162.05,
        score_md=2377.44,
        score_total=620.70,
        lustre_build=june_build,
    )
    TunableFactory(run=june, parameter="mdt.*.dom_lock", value="trylock", scope="server")
    TunableFactory(run=june, parameter="ldlm.namespaces.*.lru_size", value="4000000")
    StripingFactory(
        run=june,
        path_role="ior_hard",
        stripe_count=1440,
        stripe_size="16M",
        overstriping=True,
        command="lfs setstripe -C 1440 -S 16M $io500_ior_hard",
    )
    PhaseResult.objects.filter(run=june, name="mdtest_easy_stat").update(value=183233.0)

    diff = compared(may, june)
    why = diff.summaries()[0]

    assert "Client nodes: 502 → 512" in why
    assert "Server version: 2.12.2 → 2.12.54" in why
    assert "Client version: 2.10.7 → 2.12.54" in why
    assert "Lustre patches: 5 added, 1 reverted" in why
    assert "Tunables: client: ldlm.namespaces.*.lru_size, server: mdt.*.dom_lock" in why
    assert "Striping: ior_hard" in why
    assert why[-1].startswith("Largest phase changes: mdtest_easy_stat ×")
    stat = next(delta for delta in diff.phases if delta.name == "mdtest_easy_stat")
    assert stat.ratios[1] == pytest.approx(166.0185, rel=1e-6)  # by hand: 183233.0 / 1103.69
    total = diff.scores[0]
    assert total.percents[1] == pytest.approx(70.2227, rel=1e-5)  # by hand: 100 * (620.70 / 364.64 - 1)


def test_configuration_keys_command_lines_and_run_shape_are_compared():
    system = StorageSystemFactory()
    first = RunFactory(
        system=system,
        benchmark_version="io500-sc19",
        procs_per_node=8,
        config={"ior-easy": {"transferSize": "1m", "API": "POSIX"}, "global": {"drop-caches": True}},
    )
    second = RunFactory(
        system=system,
        benchmark_version="io500-isc20_v1",
        procs_per_node=16,
        config={"ior-easy": {"transferSize": "16m", "API": "POSIX"}, "mdtest-easy": {"n": 540000}},
    )
    PhaseResult.objects.filter(run=second, name="ior_hard_write").update(command="ior -a MPIIO -t 47008b")
    diff = compared(first, second)
    assert differing(diff) == {
        "run": ["Benchmark version", "Procs per node"],
        "config": ["global.drop-caches", "ior-easy.transferSize", "mdtest-easy.n"],
        "commands": ["ior_hard_write"],
    }
    config = {d.key: (d.values, d.changes) for d in diff.section("config").differences}
    assert config["global.drop-caches"] == (["true", None], [None, "removed"])
    assert config["mdtest-easy.n"] == ([None, "540000"], [None, "added"])
    assert config["ior-easy.transferSize"] == (["1m", "16m"], [None, "changed"])


def test_a_revert_dropped_and_a_patch_removed_are_told_apart():
    first = RunFactory(lustre_build=build_with(("LU-1", "a: one", "applied"), ("LU-2", "b: two", "reverted")))
    second = RunFactory(
        system=first.system,
        lustre_build=build_with(server_version="2.15.0", base_commit=first.lustre_build.base_commit),
    )
    diff = compared(first, second)
    assert [(p.ticket, p.changes[1]) for p in diff.patches] == [("LU-1", "removed"), ("LU-2", "revert dropped")]
    assert differing(diff)["lustre"] == ["Server version"]


def test_a_patch_rebuilt_from_another_commit_is_reported():
    first = RunFactory(lustre_build=build_with(("LU-7", "x: y", "applied")))
    second = RunFactory(system=first.system, lustre_build=build_with(("LU-7", "x: y", "applied")))
    second.lustre_build.patches.update(commit="fffffff")
    assert [p.changes for p in compared(first, second).patches] == [[None, "new commit"]]


def test_configuration_files_get_a_unified_diff():
    first, second = RunFactory(), RunFactory()
    RunFileFactory(run=first, name="io500.sh", content='io500_mpiargs="-np 4"\nexport X=1\n')
    RunFileFactory(run=second, name="io500.sh", content='io500_mpiargs="-np 8"\nexport X=1\n')
    RunFileFactory(run=second, name="job.slurm", content="#SBATCH -N 10\n")
    files = {f.name: f for f in compared(first, second).files}
    assert files["io500.sh"].present == [True, True]
    assert '-io500_mpiargs="-np 4"' in files["io500.sh"].diffs[1]
    assert '+io500_mpiargs="-np 8"' in files["io500.sh"].diffs[1]
    assert files["job.slurm"].present == [False, True]


def test_three_runs_compare_each_to_the_first():
    system = StorageSystemFactory()
    base = RunFactory(system=system, client_nodes=10, score_bw=100, score_md=100)
    same_nodes = RunFactory(system=system, client_nodes=10, score_bw=200, score_md=100)
    more_nodes = RunFactory(system=system, client_nodes=20, score_bw=50, score_md=100)
    diff = compared(base, same_nodes, more_nodes)
    nodes = diff.section("run").differences[0]
    assert (nodes.key, nodes.values, nodes.changes) == ("Client nodes", ["10", "10", "20"], [None, None, "changed"])
    bandwidth = diff.scores[1]
    assert bandwidth.percents == [0.0, 100.0, -50.0]
    assert bandwidth.deltas == [0.0, 100.0, -50.0]
    assert len(diff.summaries()) == 2


def test_missing_phases_and_zero_baselines_have_no_ratio():
    first, second = RunFactory(), RunFactory()
    PhaseResult.objects.filter(run=first, name="find").update(value=0.0)
    PhaseResult.objects.filter(run=second, name="mdtest_hard_read").delete()
    deltas = {d.name: d for d in compared(first, second).phases}
    assert deltas["find"].ratios == [None, None]
    assert deltas["mdtest_hard_read"].values[1] is None
    assert deltas["mdtest_hard_read"].percents == [0.0, None]


def test_to_dict_is_plain_json_for_the_api():
    first = RunFactory(lustre_build=build_with(("LU-1", "a: one", "applied")))
    second = RunFactory(lustre_build=build_with(("LU-1", "a: one", "reverted")))
    data = json.loads(json.dumps(compared(first, second).to_dict()))
    assert data["run_ids"] == [first.pk, second.pk]
    assert data["has_differences"] is True
    assert data["patches"][0]["changes"] == [None, "reverted"]
    assert {section["key"] for section in data["sections"]} == {
        "run",
        "lustre",
        "tunables",
        "striping",
        "config",
        "commands",
        "info",
    }
    assert data["phases"][0]["name"] == "ior_easy_write"
    assert data["summaries"][0]


def test_load_runs_keeps_the_order_and_names_unknown_ids(django_assert_num_queries):
    first, second = RunFactory(), RunFactory()
    with django_assert_num_queries(1 + 5):  # no Lustre build: its patches are not queried
        assert [r.pk for r in load_runs([second.pk, first.pk])] == [second.pk, first.pk]
    with pytest.raises(Run.DoesNotExist, match="999999"):
        load_runs([first.pk, 999999])


def test_a_comparison_needs_two_runs():
    with pytest.raises(ValueError, match="two"):
        diff_runs([RunFactory()])


def test_flatten_joins_nested_keys_and_drops_empty_values():
    assert flatten({"a": {"b": 1, "c": {"d": [1, 2]}, "e": ""}, "f": False}) == {
        "a.b": "1",
        "a.c.d": "[1, 2]",
        "f": "false",
    }
