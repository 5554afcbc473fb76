"""Lustre provenance from the Cambridge ISC19 material (seeds/000) and from real io500.sh idioms."""

from pathlib import Path

import pytest
import yaml

from apps.ingest.parsers.lustre.inventory import parse_ansible_inventory
from apps.ingest.parsers.lustre.shell import shell_integer, size_in_bytes
from apps.ingest.parsers.lustre.sidecar import parse_sidecar_lustre
from apps.ingest.parsers.lustre.striping import parse_striping
from apps.ingest.parsers.lustre.tunables import parse_tunables, tunable_scope
from apps.ingest.parsers.lustre.versions import (
    build_info_from_system_information,
    parse_release_notes,
    parse_version_text,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "lustre"


def read(name: str) -> str:
    return (DATA / name).read_text()


@pytest.fixture
def cambridge_sidecar():
    return {
        "lustre": {"notes": read("cambridge-isc19-lustre-version.txt")},
        "tunables": [
            "lctl set_param mdt.*.dom_lock=trylock",
            "lctl set_param ldlm.namespaces.*.lru_size=4000000",
        ],
        "striping": ["lfs setstripe -C $((288*5)) -S 16M $io500_ior_hard"],
    }


def test_the_seed_notes_give_the_base_commit_and_tag(cambridge_sidecar):
    build = parse_sidecar_lustre(cambridge_sidecar).build

    assert build.base_commit == "85db9b258c"
    assert build.base_tag == "v2_12_54"
    assert "2.12.54" in build.base_description


def test_the_seed_notes_give_five_applied_patches_with_their_tickets(cambridge_sidecar):
    build = parse_sidecar_lustre(cambridge_sidecar).build

    applied = [patch for patch in build.patches if patch.status == "applied"]
    assert [(patch.commit, patch.ticket) for patch in applied] == [
        ("647e37f", "LU-12043"),
        ("7dc9cfe", "LU-12043"),
        ("6967cf8", "LU-11518"),
        ("d6f2913", "LU-12325"),
        ("1f4f496", "LU-11623"),
    ]
    assert applied[1].component == "llite, readahead"
    assert applied[1].summary == "don't use max RPC size always"
    assert applied[3].summary == "use LCK PR with 'trylock' mode"


def test_the_seed_notes_give_one_reverted_commit(cambridge_sidecar):
    build = parse_sidecar_lustre(cambridge_sidecar).build

    reverted = [patch for patch in build.patches if patch.status == "reverted"]
    assert len(reverted) == 1
    assert (reverted[0].commit, reverted[0].ticket, reverted[0].component) == (
        "ce37c38691",
        "LU-10213",
        "lnd",
    )
    assert reverted[0].summary == "calculate qp max send wrs properly"


def test_a_review_url_inside_a_patch_entry_belongs_to_that_patch():
    build = parse_release_notes(read("cambridge-isc19-lustre-version.txt"))

    by_commit = {patch.commit: patch for patch in build.patches}
    assert by_commit["1f4f496"].review_url == "https://review.whamcloud.com/#/c/33585"
    assert by_commit["1f4f496"].summary == "Opportunistically return UPDATE and PERM bits on open"


def test_listed_review_urls_go_in_order_to_the_patches_without_one_when_counts_agree():
    build = parse_release_notes(read("cambridge-isc19-lustre-version.txt"))

    applied = [patch for patch in build.patches if patch.status == "applied"]
    assert [patch.review_url.rsplit("/", 1)[-1] for patch in applied] == [
        "34095",
        "35033",
        "33371",
        "35031",
        "33585",
    ]
    assert build.unmatched_review_urls == []


def test_review_urls_that_cannot_be_matched_are_kept_apart():
    notes = (
        "Patches applied:\n"
        "647e37f LU-12043 llite: improve single-thread read performance\n"
        "- https://review.whamcloud.com/34095\n- https://review.whamcloud.com/35033\n"
    )

    build = parse_release_notes(notes)

    assert build.patches[0].review_url == ""
    assert build.unmatched_review_urls == [
        "https://review.whamcloud.com/34095",
        "https://review.whamcloud.com/35033",
    ]


def test_a_revert_commit_message_marks_the_patch_reverted():
    build = parse_release_notes('abc1234def Revert "LU-10213 lnd: calculate qp max send wrs properly"')

    assert build.patches[0].status == "reverted"
    assert build.patches[0].summary == "calculate qp max send wrs properly"


def test_the_notes_are_kept_verbatim(cambridge_sidecar):
    build = parse_sidecar_lustre(cambridge_sidecar).build

    assert build.notes == read("cambridge-isc19-lustre-version.txt")


def test_the_seed_lctl_lines_become_tunables_with_their_scope():
    tunables = parse_tunables(read("cambridge-isc19-tunings.txt"), "tunings.txt")

    assert [(t.parameter, t.value, t.scope) for t in tunables] == [
        ("mdt.*.dom_lock", "trylock", "server"),
        ("ldlm.namespaces.*.lru_size", "4000000", "client"),
        ("osc.{{fs_name}}-OST*.max_pages_per_rpc", "16M", "client"),
    ]
    assert [(t.source_file, t.source_line) for t in tunables] == [
        ("tunings.txt", 4),
        ("tunings.txt", 6),
        ("tunings.txt", 9),
    ]


def test_sidecar_tunable_lines_become_tunables(cambridge_sidecar):
    tunables = parse_sidecar_lustre(cambridge_sidecar).tunables

    assert [(t.parameter, t.scope, t.source_file) for t in tunables] == [
        ("mdt.*.dom_lock", "server", "ioboard.yaml"),
        ("ldlm.namespaces.*.lru_size", "client", "ioboard.yaml"),
    ]


def test_a_sidecar_accepts_bare_parameter_assignments():
    provenance = parse_sidecar_lustre({"tunables": ["osc.*.max_dirty_mb=2000"]})

    assert [(t.parameter, t.value, t.scope) for t in provenance.tunables] == [("osc.*.max_dirty_mb", "2000", "client")]


def test_explicit_sidecar_versions_win_over_the_notes():
    sidecar = {"lustre": {"server_version": "2.12.2", "client_version": "2.10.7", "notes": "Servers: Lustre 2.11"}}

    build = parse_sidecar_lustre(sidecar).build

    assert (build.server_version, build.client_version) == ("2.12.2", "2.10.7")


def test_several_parameters_on_one_line_give_several_tunables():
    tunables = parse_tunables("lctl set_param -P osc.*.checksums=0 osc.*.max_dirty_mb=2000")

    assert [(t.parameter, t.value, t.persistent) for t in tunables] == [
        ("osc.*.checksums", "0", True),
        ("osc.*.max_dirty_mb", "2000", True),
    ]


def test_the_no_name_flag_does_not_make_a_setting_persistent():
    tunables = parse_tunables("lctl set_param -n llite.*.max_cached_mb=65536")

    assert [(t.parameter, t.persistent, t.scope) for t in tunables] == [("llite.*.max_cached_mb", False, "client")]


def test_commented_out_lctl_lines_are_not_tunables():
    script = "#lctl set_param mdc.*.max_rpcs_in_flight=128\n  # lctl set_param ldlm.namespaces.*.lru_size=0\n"

    assert parse_tunables(script) == []


def test_a_command_inside_a_remote_shell_string_ends_at_its_quote():
    tunables = parse_tunables('ssh root@mds1 "lctl set_param obdfilter.*.brw_size=16" && echo done')

    assert [(t.parameter, t.value, t.scope) for t in tunables] == [("obdfilter.*.brw_size", "16", "server")]


@pytest.mark.parametrize(
    ("parameter", "scope"),
    [
        ("osc.*.max_pages_per_rpc", "client"),
        ("mdc.*.max_rpcs_in_flight", "client"),
        ("llite.*.max_read_ahead_mb", "client"),
        ("ldlm.namespaces.*.lru_size", "client"),
        ("mdt.*.dom_lock", "server"),
        ("ost.OSS.ost_io.threads_max", "server"),
        ("obdfilter.*.read_cache_enable", "server"),
        ("mds.MDS.mdt.threads_max", "server"),
        ("debug", "unknown"),
        ("lustre_max_dirty_mb", "client"),
        ("lustre_fs_name", "unknown"),
    ],
)
def test_the_scope_follows_the_parameter(parameter, scope):
    assert tunable_scope(parameter) == scope


def test_the_seed_striping_lines_are_decoded():
    layouts = parse_striping(read("cambridge-isc19-striping.sh"), "io500.sh")

    easy, hard, ior_hard = layouts
    assert (easy.path_role, easy.dir_stripe_count, easy.inherited) == ("mdtest_easy", -1, False)
    assert (hard.path_role, hard.dir_stripe_count, hard.inherited) == ("mdtest_hard", -1, True)
    assert (ior_hard.path_role, ior_hard.overstriping, ior_hard.stripe_count) == ("ior_hard", True, 1440)
    assert ior_hard.stripe_size == 16 * 1024**2
    assert (ior_hard.source_file, ior_hard.source_line) == ("io500.sh", 5)


def test_overstriping_by_a_variable_keeps_the_count_unknown():
    (layout,) = parse_striping("lfs setstripe -C $((osts * 4)) $workdir/ior-hard || true")

    assert (layout.overstriping, layout.stripe_count, layout.path_role) == (True, None, "ior_hard")


def test_wide_striping_is_minus_one():
    (layout,) = parse_striping("lfs setstripe -c -1 -S 47104k $io500_workdir/ior_hard")

    assert (layout.stripe_count, layout.stripe_size, layout.overstriping) == (-1, 47104 * 1024, False)


def test_a_data_on_mdt_component_is_recognised():
    (layout,) = parse_striping("lfs setstripe -E 64k -L mdt -E -1 -c 4 $workdir/mdtest-easy || true #DoM?")

    assert (layout.data_on_mdt_bytes, layout.stripe_count, layout.path_role) == (65536, 4, "mdtest_easy")


def test_lfs_mkdir_long_options_are_read():
    (layout,) = parse_striping("lfs mkdir --mdt-count 2 --mdt-hash all_char --default ${io500_workdir}/mdt_hard")

    assert (layout.dir_stripe_count, layout.hash_type, layout.inherited) == (2, "all_char", True)
    assert layout.path_role == "mdtest_hard"


def test_brace_expansion_gives_one_layout_per_directory():
    layouts = parse_striping("lfs setdirstripe -c 8 -D $workdir/mdtest-{easy,hard}")

    assert [(layout.path, layout.path_role) for layout in layouts] == [
        ("$workdir/mdtest-easy", "mdtest_easy"),
        ("$workdir/mdtest-hard", "mdtest_hard"),
    ]


def test_directory_overstriping_is_recognised():
    (layout,) = parse_striping("lfs setdirstripe -D -C 32 $workdir/mdtest-hard")

    assert (layout.overstriping, layout.dir_stripe_count, layout.inherited) == (True, 32, True)


def test_commented_out_striping_is_ignored():
    assert parse_striping("  #lfs setstripe -C $((osts * 4)) $workdir/ior-hard ||\n") == []


def test_the_seed_inventory_gives_lustre_variables_as_tunables():
    tunables = parse_ansible_inventory(read("cambridge-dac-inventory.yml"), "inventory.yml")

    by_name = {t.parameter: t for t in tunables}
    assert len(tunables) == 9
    assert by_name["lustre_ldlm_lru_size"].value == "4000000"
    assert by_name["lustre_ldlm_lru_size"].scope == "client"
    assert by_name["lustre_max_dirty_mb"].applies_to == "group:fs1"
    assert by_name["lustre_checksums"].source_line == 19


def test_host_level_inventory_variables_name_their_host():
    inventory = yaml.safe_dump(
        {"all": {"vars": {"lustre_max_rpcs_in_flight": 64}, "hosts": {"oss1": {"lustre_brw_size": 16}}}}
    )

    tunables = parse_ansible_inventory(inventory)

    assert {(t.parameter, t.applies_to, t.scope) for t in tunables} == {
        ("lustre_max_rpcs_in_flight", "all", "client"),
        ("lustre_brw_size", "host:oss1", "server"),
    }


def test_ini_inventories_are_read_too():
    inventory = "[fs1:vars]\nlustre_max_dirty_mb=512\n\n[fs1]\ndac-e-1 lustre_fs_name=fs1 other=1\n"

    tunables = parse_ansible_inventory(inventory)

    assert [(t.parameter, t.value, t.applies_to) for t in tunables] == [
        ("lustre_max_dirty_mb", "512", "group:fs1"),
        ("lustre_fs_name", "fs1", "host:dac-e-1"),
    ]


@pytest.mark.parametrize(
    ("text", "server", "client"),
    [
        ("Servers: Lustre 2.12.2  Clients: Lustre 2.10.7", "2.12.2", "2.10.7"),
        ("Servers: Lustre 2.11 528 Clients - 8ppn: Lustre 2.10.5", "2.11", "2.10.5"),
        (
            "Servers: Lustre 'master' branch + patches 512 Clients - 16ppn: Lustre 'master' branch + patches",
            "master branch + patches",
            "master branch + patches",
        ),
        ("Exascaler 5.0 PRE - Lustre 2.11-56 (Master)", "2.11-56", ""),
    ],
)
def test_versions_are_read_from_prose(text, server, client):
    build = parse_version_text(text)

    assert (build.server_version, build.client_version) == (server, client)


def test_system_information_fields_give_the_server_version():
    info = {"io500_info_filesystem": "Lustre", "io500_info_filesystem_version": "'2.12.2'"}

    assert build_info_from_system_information(info).server_version == "2.12.2"


def test_system_information_client_software_gives_the_client_version():
    info = {
        "filesystem_version": "Exascaler 5.0 PRE - Lustre 2.11-56 (Master)",
        "client_software_version": "2.12.0",
    }

    build = build_info_from_system_information(info)

    assert (build.server_version, build.client_version) == ("2.11-56", "2.12.0")


@pytest.mark.parametrize(("text", "size"), [("16M", 16 * 1024**2), ("64k", 65536), ("1G", 1024**3), ("4096", 4096)])
def test_sizes_are_binary_multiples(text, size):
    assert size_in_bytes(text) == size


def test_command_words_inside_a_trailing_comment_are_ignored():
    line = 'io500_ior_hard_other_options="-a MPIIO" #e.g., -E to keep precreated files using lfs setstripe -c 4 x'

    assert parse_striping(line) == []


def test_a_path_below_the_workdir_without_a_known_name_has_no_role():
    (layout,) = parse_striping("lfs setstripe -c 2 $workdir/scratch")

    assert layout.path_role == ""


def test_shell_arithmetic_is_only_evaluated_on_short_literal_expressions():
    assert shell_integer("$((288*5))") == 1440
    assert shell_integer("$((osts*4))") is None
    assert shell_integer("$((" + "1+" * 100 + "1))") is None
