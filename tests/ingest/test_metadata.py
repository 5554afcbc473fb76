"""Metadata priority: explicit options > ioboard.yaml > io500_info_* values > archive layout."""

from pathlib import Path

import pytest

from apps.ingest.core.metadata import (
    SidecarError,
    find_sidecar,
    from_info,
    from_layout,
    memory_gib,
    network_gbit,
    resolve_metadata,
)


def test_it_reads_the_public_archive_layout_from_the_relative_path(tmp_path):
    run_dir = tmp_path / "DKRZ" / "Mistral" / "lustre02" / "2019" / "submission-109" / "results"
    run_dir.mkdir(parents=True)
    assert from_layout(run_dir, tmp_path) == {
        "institution": "DKRZ",
        "system": "Mistral",
        "filesystem": "lustre02",
        "year": 2019,
        "submission_id": "109",
    }


def test_a_file_system_name_with_a_slash_keeps_every_component(tmp_path):
    run_dir = tmp_path / "EPCC" / "Archer" / "work " / " fs2" / "2019" / "submission-7"
    run_dir.mkdir(parents=True)
    # The archive's "work / fs2" became two folders, "work " and " fs2"; joined back, it reads as submitted.
    assert from_layout(run_dir, tmp_path)["filesystem"] == "work / fs2"


def test_folders_above_the_ingested_root_never_name_the_institution(tmp_path):
    root = tmp_path / "Uploader Home" / "incoming"
    run_dir = root / "A" / "B" / "2019" / "submission-7"
    run_dir.mkdir(parents=True)

    assert from_layout(run_dir, root) == {"year": 2019, "submission_id": "7"}


def test_a_root_that_is_itself_a_submission_folder_gives_no_layout(tmp_path):
    root = tmp_path / "DKRZ" / "Mistral" / "lustre02" / "2019" / "submission-109"
    root.mkdir(parents=True)

    assert from_layout(root, root) == {}
    assert from_layout(root / "results", root) == {}


def test_the_submission_id_is_text_as_the_run_stores_it(tmp_path):
    run_dir = tmp_path / "2020" / "submission-0042"
    run_dir.mkdir(parents=True)

    assert from_layout(run_dir, tmp_path) == {"year": 2020, "submission_id": "0042"}


def test_without_a_submission_folder_the_layout_says_nothing(tmp_path):
    assert from_layout(tmp_path / "results", tmp_path) == {}


def test_info_placeholders_count_as_absent():
    found = from_info(
        {"io500_info_system_name": "xxx", "io500_info_institution": "'NASA'", "io500_info_ds_nodes": "132 servers"}
    )
    assert found == {"institution": "NASA", "server_count": 132}


def test_explicit_options_beat_the_sidecar_which_beats_the_files_which_beat_the_layout():
    merged = resolve_metadata(
        overrides={"institution": "From option"},
        sidecar={"institution": "From sidecar", "system": "Sidecar system"},
        info={
            "io500_info_institution": "From info",
            "io500_info_system": "Info system",
            "io500_info_filesystem_name": "Info fs",
        },
        record_metadata={},
        layout={"institution": "Layout", "system": "Layout sys", "filesystem": "Layout fs", "year": 2019},
    )
    assert merged["institution"] == "From option"
    assert merged["system"] == "Sidecar system"
    assert merged["filesystem"] == "Info fs"
    assert merged["year"] == 2019


def test_nearer_sidecars_override_farther_ones(tmp_path):
    run_dir = tmp_path / "campaign" / "run1"
    run_dir.mkdir(parents=True)
    (tmp_path / "ioboard.yaml").write_text("institution: Cambridge\nsystem: Data Accelerator\n")
    (run_dir / "ioboard.yaml").write_text("system: DAC phase 2\n")
    assert find_sidecar(run_dir, tmp_path) == {"institution": "Cambridge", "system": "DAC phase 2"}


def test_a_broken_sidecar_names_its_file_and_line(tmp_path):
    (tmp_path / "ioboard.yaml").write_text("institution: ok\nsystem: [unclosed\n")
    with pytest.raises(SidecarError, match=r"ioboard\.yaml:\d+"):
        find_sidecar(tmp_path, tmp_path)


@pytest.mark.parametrize(
    ("text", "line", "key"),
    [
        ('institution: ok\nsystem: "Wolf\\0"\n', 2, "system"),
        ('institution: ok\n\nlustre:\n  notes: "a\\x00b"\n', 4, "notes"),
        ('institution: ok\ncommands:\n  - ior -a POSIX\n  - "mdtest\\0"\n', 4, "commands"),
        ('"sys\\0tem": Wolf\n', 1, "sys\x00tem"),
        ('institution: "\\ud800"\n', 1, "institution"),
    ],
    ids=["a value", "a nested value", "a list item", "a key", "a lone surrogate"],
)
def test_a_nul_escape_in_a_sidecar_is_refused_naming_the_key_and_line(tmp_path, text, line, key):
    """YAML's \\0 and \\x00 escapes (and \\ud800) make text no database column can store: refused at reading,
    naming the key and line, instead of failing as an internal error when the run is written."""
    (tmp_path / "ioboard.yaml").write_text(text)
    with pytest.raises(SidecarError) as refused:
        find_sidecar(tmp_path, tmp_path)
    assert f"ioboard.yaml:{line}: " in str(refused.value)
    assert repr(key) in str(refused.value)


def test_a_sidecar_that_is_not_a_mapping_is_refused(tmp_path):
    (tmp_path / "ioboard.yaml").write_text("- just\n- a list\n")
    with pytest.raises(SidecarError, match="expected a mapping"):
        find_sidecar(Path(tmp_path), tmp_path)


@pytest.mark.parametrize(
    ("text", "gbit"),
    [("100GbE", 100.0), ("2x HDR", 400.0), ("IB-EDR", 100.0), ("InfiniBand HDR", 200.0), ("Omnipath", 100.0),
     ("25 Gbps", 25.0), ("Ethernet", None), ("xxx", None), (None, None)],
)  # fmt: skip
def test_a_declared_client_network_becomes_gbit_per_node(text, gbit):
    assert network_gbit(text) == gbit


@pytest.mark.parametrize(("text", "gib"), [("512GiB", 512.0), ("384 GB", 384.0), ("1.5T", 1536.0), ("2", None)])
def test_a_declared_client_memory_becomes_gib(text, gib):
    assert memory_gib(text) == gib
