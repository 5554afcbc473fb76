"""Safe extraction: hostile archives are refused with a named entry, good ones extract exactly."""

import gzip
import io
import os
import re
import struct
import tarfile
import tempfile
import zipfile
from pathlib import Path

import pytest

from apps.ingest.core.archive import (
    SCRATCH_PREFIX,
    ArchiveError,
    detect_format,
    extract_archive,
    inspect_archive,
    open_input,
    sweep_orphaned_scratch,
)

CAPS = {"max_entries": 1000, "max_expanded_bytes": 10 * 1024 * 1024}

RESULT_FILES = {
    "results/2024.05.03-09.25.44/result.txt": "[run]\nversion = io500-isc24_v3\n[SCORE]\nSCORE = 153.386640\n",
    "results/2024.05.03-09.25.44/result_summary.txt": "[SCORE ] Bandwidth 122.312630 GiB/s\n",
    "results/2024.05.03-09.25.44/timestampfile": "",
    "results/2024.05.03-09.25.44/mdtest-easy-write.txt": "Nodemap: " + "1" * 40_000 + "\n",
    "io500.sh": "#!/bin/bash\nlfs setstripe -c -1 $dir\n",
}


@pytest.fixture
def sandbox(tmp_path):
    """A directory holding the archive and the destination, to prove nothing lands beside dest."""
    (tmp_path / "dest").mkdir()
    return tmp_path


def files_outside_dest(sandbox: Path) -> set[str]:
    dest = sandbox / "dest"
    return {
        str(path.relative_to(sandbox))
        for path in sandbox.rglob("*")
        if path != dest and dest not in path.parents and not path.name.startswith("upload")
    }


def tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def write_result_dir(root: Path) -> Path:
    for name, text in RESULT_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def tar_with(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def file_member(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def special_member(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def zip_with(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def test_it_extracts_a_tar_gz_of_a_result_dir_identically(tmp_path, sandbox):
    source = write_result_dir(tmp_path / "source")
    archive = sandbox / "upload.tar.gz"
    with tarfile.open(archive, "w:gz") as handle:
        handle.add(source, arcname=".")

    extract_archive(archive, sandbox / "dest", **CAPS)

    assert tree(sandbox / "dest") == tree(source)


def test_it_extracts_a_zip_of_a_result_dir_identically(tmp_path, sandbox):
    source = write_result_dir(tmp_path / "source")
    archive = sandbox / "upload.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        for path in sorted(source.rglob("*")):
            handle.write(path, path.relative_to(source))

    extract_archive(archive, sandbox / "dest", **CAPS)

    assert tree(sandbox / "dest") == tree(source)


def test_it_keeps_file_modification_times(tmp_path, sandbox):
    source = write_result_dir(tmp_path / "source")
    stamp = source / "results/2024.05.03-09.25.44/timestampfile"
    os.utime(stamp, (1_700_000_000, 1_700_000_000))
    archive = sandbox / "upload.tgz"
    with tarfile.open(archive, "w:gz") as handle:
        handle.add(source, arcname="sub")

    extract_archive(archive, sandbox / "dest", **CAPS)

    extracted = sandbox / "dest/sub/results/2024.05.03-09.25.44/timestampfile"
    assert extracted.stat().st_mtime == 1_700_000_000


def test_it_detects_the_format_by_magic_bytes_not_by_suffix(sandbox):
    archive = zip_with(sandbox / "upload.tgz", {"result_summary.txt": b"[SCORE]"})

    assert detect_format(archive) == "zip"
    extract_archive(archive, sandbox / "dest", **CAPS)
    assert (sandbox / "dest/result_summary.txt").read_bytes() == b"[SCORE]"


def test_it_reads_an_uncompressed_tar(sandbox):
    archive = tar_with(sandbox / "upload.tar", [file_member("a/result.txt", b"x")], mode="w")

    extract_archive(archive, sandbox / "dest", **CAPS)

    assert (sandbox / "dest/a/result.txt").read_bytes() == b"x"


def test_it_rejects_zip_slip(sandbox):
    archive = zip_with(sandbox / "upload.zip", {"ok.txt": b"fine", "../../evil.txt": b"pwned"})

    with pytest.raises(ArchiveError, match=r"\.\./\.\./evil\.txt.*'\.\.'"):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()
    assert list((sandbox / "dest").iterdir()) == []


def test_it_rejects_tar_slip(sandbox):
    archive = tar_with(sandbox / "upload.tgz", [file_member("results/../../evil.txt", b"pwned")])

    with pytest.raises(ArchiveError, match=re.escape("evil.txt")):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()


def test_it_rejects_backslash_traversal(sandbox):
    archive = zip_with(sandbox / "upload.zip", {"..\\..\\evil.txt": b"pwned"})

    with pytest.raises(ArchiveError, match=r"'\.\.' component"):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_rejects_an_absolute_path(sandbox):
    archive = tar_with(sandbox / "upload.tgz", [file_member("/tmp/evil.txt", b"pwned")])

    with pytest.raises(ArchiveError, match=re.escape("'/tmp/evil.txt': absolute path")):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()


def test_it_rejects_a_windows_drive_path(sandbox):
    archive = zip_with(sandbox / "upload.zip", {"C:\\evil.txt": b"pwned"})

    with pytest.raises(ArchiveError, match="absolute path"):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_accepts_a_directory_named_like_a_drive_inside_the_tree(sandbox):
    archive = zip_with(sandbox / "upload.zip", {"results/G:/2021.06.01-10.00.00/result.txt": b"x"})

    extract_archive(archive, sandbox / "dest", **CAPS)

    assert (sandbox / "dest/results/G:/2021.06.01-10.00.00/result.txt").exists()


def test_it_rejects_a_symlink(sandbox):
    archive = tar_with(
        sandbox / "upload.tgz",
        [special_member("escape", tarfile.SYMTYPE, str(sandbox)), file_member("escape/evil.txt", b"pwned")],
    )

    with pytest.raises(ArchiveError, match="'escape': symbolic link"):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()
    assert not (sandbox / "dest/escape").exists()


def test_it_rejects_a_symlink_stored_in_a_zip(sandbox):
    archive = sandbox / "upload.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        info = zipfile.ZipInfo("link")
        info.create_system = 3
        info.external_attr = (0o120777 << 16) & 0xFFFF0000
        handle.writestr(info, "/etc/passwd")

    with pytest.raises(ArchiveError, match="'link': symbolic link"):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_rejects_a_hardlink(sandbox):
    archive = tar_with(
        sandbox / "upload.tgz",
        [file_member("a.txt", b"x"), special_member("b.txt", tarfile.LNKTYPE, "/etc/passwd")],
    )

    with pytest.raises(ArchiveError, match=re.escape("'b.txt': hard link")):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_it_rejects_a_device_or_fifo_file(sandbox, kind):
    archive = tar_with(sandbox / "upload.tgz", [special_member("dev/null", kind)])

    with pytest.raises(ArchiveError, match="'dev/null': device or FIFO"):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()


def test_it_rejects_an_oversized_tar_bomb(sandbox):
    zeros = b"\0" * (CAPS["max_expanded_bytes"] + 1)
    archive = tar_with(sandbox / "upload.tgz", [file_member("bomb.bin", zeros)])
    assert archive.stat().st_size < 100_000

    with pytest.raises(ArchiveError, match=re.escape("'bomb.bin': expanded size exceeds")):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert files_outside_dest(sandbox) == set()
    assert list((sandbox / "dest").iterdir()) == []


def test_it_rejects_an_oversized_zip_bomb(sandbox):
    archive = zip_with(sandbox / "upload.zip", {"bomb.bin": b"\0" * (CAPS["max_expanded_bytes"] + 1)})

    with pytest.raises(ArchiveError, match=re.escape("'bomb.bin': expanded size exceeds")):
        extract_archive(archive, sandbox / "dest", **CAPS)


@pytest.mark.parametrize("where", ["between two entries", "after the last entry"])
def test_it_refuses_a_zip_whose_size_is_mostly_bytes_outside_its_entries(sandbox, where):
    """A zip's unused bytes (where no directory record points) are stored with the upload but counted by no entry
    limit: a zip larger than its entries and headers by more than a margin is refused, naming the archive and the
    unaccounted bytes. (Bytes before the first entry are refused already: the magic bytes are wrong.)"""
    hidden = os.urandom(1024 * 1024)
    archive = zip_with(sandbox / "upload.zip", {"a.txt": b"IO500 " * 100, "b.txt": b"score " * 100})
    packed = archive.read_bytes()
    with zipfile.ZipFile(archive) as handle:
        second = handle.getinfo("b.txt").header_offset
    at = (
        second
        if where == "between two entries"
        else struct.unpack_from("<I", packed, packed.rindex(b"PK\x05\x06") + 16)[0]
    )
    archive.write_bytes(shift_central_directory(packed[:at] + hidden + packed[at:], at, len(hidden)))

    with pytest.raises(ArchiveError, match=r"^upload\.zip: .*bytes outside its entries"):
        inspect_archive(archive)


def test_a_zip_with_a_comment_and_data_descriptors_is_within_the_margin(sandbox):
    archive = sandbox / "upload.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as handle:
        handle.comment = b"c" * 60_000
        for index in range(50):
            with handle.open(f"dir/file-{index}.txt", "w") as entry:  # streamed: a data descriptor each
                entry.write(os.urandom(2000))

    assert inspect_archive(archive).files == 50


def shift_central_directory(packed: bytes, after: int, by: int) -> bytes:
    """Rewrite the central directory's local-header offsets past ``after`` (and the directory's own offset) by
    ``by`` bytes, as a zip with bytes inserted between entries would be written."""
    end = packed.rindex(b"PK\x05\x06")
    directory_size, directory_offset = struct.unpack_from("<II", packed, end + 12)
    directory_offset += by
    struct.pack_into("<I", packed := bytearray(packed), end + 16, directory_offset)
    position = directory_offset
    while position < directory_offset + directory_size:
        (offset,) = struct.unpack_from("<I", packed, position + 42)
        if offset >= after:
            struct.pack_into("<I", packed, position + 42, offset + by)
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", packed, position + 28)
        position += 46 + name_length + extra_length + comment_length
    return bytes(packed)


def test_it_counts_bytes_across_entries(sandbox):
    half = os.urandom(CAPS["max_expanded_bytes"] // 2 + 1)  # incompressible: the total is the reason
    archive = zip_with(sandbox / "upload.zip", {"a.bin": half, "b.bin": half})

    with pytest.raises(ArchiveError, match=re.escape("'b.bin': expanded size exceeds")):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_rejects_too_many_entries(sandbox):
    entries = {f"file-{index}.txt": b"x" for index in range(11)}
    archive = zip_with(sandbox / "upload.zip", entries)

    with pytest.raises(ArchiveError, match=re.escape("'file-10.txt': archive has more than 10 entries")):
        extract_archive(archive, sandbox / "dest", max_entries=10, max_expanded_bytes=1024)


def test_it_rejects_garbage_bytes(sandbox):
    archive = sandbox / "upload.tar.gz"
    archive.write_bytes(b"this is not an archive at all" * 40)

    with pytest.raises(ArchiveError, match=re.escape("upload.tar.gz: not a tar")):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_rejects_a_truncated_gzip(sandbox):
    good = tar_with(sandbox / "good.tgz", [file_member("a.txt", os.urandom(50_000))])
    archive = sandbox / "upload.tgz"
    archive.write_bytes(good.read_bytes()[:2000])
    good.unlink()

    with pytest.raises(ArchiveError, match="unreadable tar archive"):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert list((sandbox / "dest").iterdir()) == []


def test_it_rejects_a_gzip_that_does_not_hold_a_tar(sandbox):
    archive = sandbox / "upload.tgz"
    archive.write_bytes(gzip.compress(b"just a log file\n" * 100))

    with pytest.raises(ArchiveError, match="unreadable tar archive"):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_rejects_a_duplicate_entry(sandbox):
    archive = tar_with(sandbox / "upload.tgz", [file_member("a.txt", b"1"), file_member("a.txt", b"2")])

    with pytest.raises(ArchiveError, match=re.escape("'a.txt': duplicate entry")):
        extract_archive(archive, sandbox / "dest", **CAPS)


def test_it_skips_macos_and_editor_junk(sandbox):
    archive = zip_with(
        sandbox / "upload.zip",
        {
            "results/result.txt": b"x",
            "results/._result.txt": b"\0\5\26\7",
            "__MACOSX/results/._result.txt": b"\0\5\26\7",
            "results/.result.txt.swp": b"b0VIM",
            "results/.DS_Store": b"\0",
        },
    )

    extract_archive(archive, sandbox / "dest", **CAPS)

    assert sorted(tree(sandbox / "dest")) == ["results/result.txt"]


def test_it_refuses_a_destination_that_is_not_empty(sandbox):
    (sandbox / "dest/existing.txt").write_text("keep me")
    archive = zip_with(sandbox / "upload.zip", {"a.txt": b"x"})

    with pytest.raises(ArchiveError, match="not empty"):
        extract_archive(archive, sandbox / "dest", **CAPS)

    assert (sandbox / "dest/existing.txt").read_text() == "keep me"


def test_open_input_yields_a_directory_as_is(tmp_path):
    with open_input(tmp_path) as root:
        assert root == tmp_path


def test_open_input_extracts_an_archive_and_removes_it_afterwards(sandbox):
    archive = zip_with(sandbox / "upload.zip", {"results/result.txt": b"x"})

    with open_input(archive) as root:
        assert (root / "results/result.txt").read_bytes() == b"x"
        extracted = root

    assert not extracted.exists()


def test_open_input_cleans_up_after_a_refusal(sandbox, monkeypatch):
    scratch = sandbox / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    archive = zip_with(sandbox / "upload.zip", {"../evil.txt": b"x"})

    with pytest.raises(ArchiveError), open_input(archive):
        pass

    assert list(scratch.iterdir()) == []


def test_it_refuses_a_missing_upload(sandbox):
    with pytest.raises(ArchiveError, match="cannot be read"):
        extract_archive(sandbox / "nothing.tgz", sandbox / "dest", **CAPS)


def test_the_sweep_removes_extractions_a_killed_worker_left_and_keeps_live_ones(tmp_path):
    orphan = tmp_path / f"{SCRATCH_PREFIX}orphan"
    (orphan / "results").mkdir(parents=True)
    (orphan / "results" / "result.txt").write_text("[SCORE]\n")
    os.utime(orphan, (0, 0))
    live = tmp_path / f"{SCRATCH_PREFIX}live"
    live.mkdir()
    unrelated = tmp_path / "someone-elses-old-dir"
    unrelated.mkdir()
    os.utime(unrelated, (0, 0))

    removed = sweep_orphaned_scratch(older_than_seconds=3600, scratch_root=tmp_path)

    assert removed == [orphan]
    assert not orphan.exists()
    assert live.exists()
    assert unrelated.exists()
