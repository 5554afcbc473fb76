"""Fuzzing the parsers that had no property test of their own: any input gives a result or their own error.

IO500 result sets (tests/ingest/tools/io500/test_io500_fuzz.py) and mdtest logs
(tests/ingest/tools/mdtest/test_mdtest_errors.py) are fuzzed next to their parsers. This file covers
the rest of what reads uploaded bytes: the Lustre provenance parsers (documented never to raise),
the DNE manifest (a result or a ParseError), the ``ioboard.yaml`` sidecar (a dict or a
SidecarError) and archive extraction (a tree or an ArchiveError, nothing left behind). Inputs are
arbitrary bytes and real files from tests/data mutated by byte flips, splices and truncation.
"""

import io
import random
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.ingest.core.archive import ArchiveError, extract_archive
from apps.ingest.core.metadata import SidecarError, find_sidecar, from_layout, read_sidecar, resolve_metadata
from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.lustre import inventory, shell, striping, tunables, versions
from apps.ingest.parsers.lustre.sidecar import parse_sidecar_lustre
from apps.ingest.tools.mdtest.manifest import parse_manifest

DATA = Path(__file__).resolve().parents[1] / "data"
LUSTRE_FILES = sorted((DATA / "lustre").glob("*"))
MANIFESTS = sorted(DATA.rglob("manifest*.csv"))
FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)

TEXT_PARSERS = [
    versions.parse_version_text,
    versions.parse_release_notes,
    tunables.parse_tunables,
    striping.parse_striping,
    inventory.parse_ansible_inventory,
    tunables.parse_bare_tunable,
    shell.shell_integer,
    shell.size_in_bytes,
    striping.path_role,
    tunables.tunable_scope,
]


def outcome(call, *refusals: type[Exception]):
    """(result, None) or (None, the refusal): any other exception escapes and fails the test."""
    try:
        return call(), None
    except refusals as refused:
        return None, refused


def real_samples() -> list[bytes]:
    return [path.read_bytes() for path in LUSTRE_FILES if path.is_file()] or [b"lctl set_param osc.*.max_rpcs=8\n"]


@st.composite
def mutated(draw, originals: list[bytes]):
    """A real file with random byte flips, a spliced-in random chunk, a truncation, or lines shuffled."""
    data = bytearray(draw(st.sampled_from(originals)))
    kind = draw(st.sampled_from(["flip", "splice", "truncate", "shuffle"]))
    if kind == "flip" and data:
        for position in draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=20)):
            data[position] = draw(st.integers(0, 255))
    elif kind == "splice":
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.binary(max_size=200))
    elif kind == "truncate":
        del data[draw(st.integers(0, len(data))) :]
    else:
        lines = bytes(data).split(b"\n")
        random.Random(draw(st.integers())).shuffle(lines)
        data = bytearray(b"\n".join(lines))
    return bytes(data)


def lustre_inputs():
    return st.one_of(st.binary(max_size=2000), mutated(real_samples())).map(
        lambda data: data.decode("utf-8", errors="replace")
    )


# ---------------------------------------------------------------- Lustre provenance


@pytest.mark.parametrize("parser", TEXT_PARSERS, ids=lambda f: f.__name__)
@FUZZ
@given(text=lustre_inputs())
def test_lustre_parsers_never_raise_on_any_text(parser, text):
    parser(text)


@FUZZ
@given(fields=st.dictionaries(st.text(max_size=40), st.text(max_size=200), max_size=12))
def test_lustre_versions_from_any_system_information(fields):
    versions.build_info_from_system_information(fields)


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=80),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=20), children, max_size=5),
    max_leaves=25,
)


@FUZZ
@given(
    sidecar=st.dictionaries(
        st.sampled_from(["lustre", "tunables", "striping", "notes", "system"]), yaml_values, max_size=4
    ),
    lustre_part=st.dictionaries(
        st.sampled_from(["notes", "server_version", "client_version"]), yaml_values, max_size=3
    ),
)
def test_lustre_part_of_any_sidecar_shape(sidecar, lustre_part):
    """Whatever YAML a sidecar holds, the Lustre reader returns provenance or refuses with a parse error
    the ingest reports; it never crashes with an AttributeError or TypeError on a wrong shape."""
    if lustre_part:
        sidecar = {**sidecar, "lustre": lustre_part}
    _, refused = outcome(lambda: parse_sidecar_lustre(sidecar), ValueError, SidecarError, ParseError)
    assert refused is None or str(refused)


# ---------------------------------------------------------------- DNE manifest


def manifest_samples() -> list[bytes]:
    found = [path.read_bytes() for path in MANIFESTS]
    return found or [
        b"log,mdt_count,client_nodes,tasks,files_per_dir,striping,label\n"
        b"dne2_1_mds/mdtest.out,1,4,64,100000,inherited,one\n"
        b"dne2_2_mds/mdtest.out,2,4,64,100000,-D,two\n"
    ]


@FUZZ
@given(data=st.one_of(st.binary(max_size=1500), mutated(manifest_samples())))
def test_a_manifest_is_read_or_refused_with_a_parse_error(data, tmp_path_factory):
    folder = tmp_path_factory.mktemp("manifest")
    text = data.decode("utf-8-sig", errors="replace")
    manifest, refused = outcome(lambda: parse_manifest(text, name="manifest.csv", folder=folder), ParseError)
    if refused:
        assert refused.path == "manifest.csv"
    else:
        assert all(entry.log for entry in manifest.entries.values())


# ---------------------------------------------------------------- ioboard.yaml sidecar and metadata


SIDECAR = (
    b"institution: University of Cambridge\nsystem: Data Accelerator\nfilesystem: Lustre\n"
    b"client_nodes: 10\nlustre:\n  server_version: 2.12.2\n  notes: |\n    base 1a2b3c4d LU-12043 llite: x\n"
    b"tunables:\n  - osc.*.max_rpcs_in_flight=64\nstriping:\n  - -c -1 -S 16M /lustre/ior_hard\n"
)


@FUZZ
@given(data=st.one_of(st.binary(max_size=800), mutated([SIDECAR])))
def test_a_sidecar_is_read_or_refused_with_a_sidecar_error(data, tmp_path_factory):
    root = tmp_path_factory.mktemp("sidecar")
    result_dir = root / "Inst" / "Sys" / "Lustre" / "2019" / "submission-1" / "results"
    result_dir.mkdir(parents=True)
    (result_dir / "ioboard.yaml").write_bytes(data)
    loaded, refused = outcome(
        lambda: (read_sidecar(result_dir / "ioboard.yaml"), find_sidecar(result_dir, root)), SidecarError
    )
    if refused:
        assert "ioboard.yaml" in str(refused)
        return
    assert isinstance(loaded[0], dict)
    layout = from_layout(result_dir, root)
    resolve_metadata(overrides=None, sidecar=loaded[1], info={}, record_metadata={}, layout=layout)
    outcome(lambda: parse_sidecar_lustre(loaded[1]), ValueError, SidecarError, ParseError)


@FUZZ
@given(
    parts=st.lists(
        st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=["Cs"]), min_size=1, max_size=30),
        min_size=1,
        max_size=7,
    )
)
def test_metadata_from_any_folder_layout(parts, tmp_path_factory):
    root = tmp_path_factory.mktemp("layout")
    safe = [part if part not in (".", "..") else "dot" for part in parts]
    try:
        result_dir = root.joinpath(*safe)
        result_dir.mkdir(parents=True)
    except OSError:
        return  # a name the file system refuses cannot reach the parser
    assert isinstance(from_layout(result_dir, root), dict)


# ---------------------------------------------------------------- archives


def real_archives() -> list[bytes]:
    members = {
        "sub/result.txt": b"[RESULT] ior-easy-write 1.0 GiB/s : time 300.0 seconds\n",
        "sub/config.ini": b"[global]\ndatadir = ./datafiles\n",
        "sub/ioboard.yaml": SIDECAR,
    }
    tar_buffer = io.BytesIO()
    with tarfile.open(fileobj=tar_buffer, mode="w:gz") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    zip_buffer = io.BytesIO()
    with zipfile.ZipFile(zip_buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    plain = io.BytesIO()
    with tarfile.open(fileobj=plain, mode="w") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return [tar_buffer.getvalue(), zip_buffer.getvalue(), plain.getvalue()]


ARCHIVES = real_archives()


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.one_of(st.binary(max_size=3000), mutated(ARCHIVES)))
def test_an_archive_is_extracted_or_refused_and_a_refusal_leaves_nothing(data, tmp_path_factory):
    scratch = tmp_path_factory.mktemp("archive")
    source, dest = scratch / "upload.bin", scratch / "out"
    source.write_bytes(data)
    _, refused = outcome(
        lambda: extract_archive(source, dest, max_entries=50, max_expanded_bytes=1_000_000), ArchiveError
    )
    if refused:
        assert str(refused)
        assert not dest.exists() or not any(dest.iterdir())
    else:
        for path in dest.rglob("*"):
            assert path.resolve().is_relative_to(dest.resolve())
            assert not path.is_symlink()
    shutil.rmtree(scratch, ignore_errors=True)
