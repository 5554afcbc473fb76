"""Archives an attacker (or an unlucky user) might upload, each with the words its refusal must contain."""

import io
import os
import stat
import tarfile
import zipfile
from dataclasses import dataclass, field

RESULT_TXT = b"[run]\nversion = io500-isc20\n[SCORE]\nSCORE = 1.0\n"
ESCAPE_NAME = "escaped-by-upload.txt"


@dataclass
class Hostile:
    name: str
    data: bytes
    problem: str
    settings: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


def tar_gz(*members: tuple[tarfile.TarInfo, bytes | None]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def regular(name: str, data: bytes = RESULT_TXT) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def zip_of(entries: dict[str, bytes], modes: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            if modes and name in modes:
                info.create_system = 3
                info.external_attr = modes[name] << 16
            archive.writestr(info, data)
    return buffer.getvalue()


HOSTILE_UPLOADS = [
    Hostile(
        "zip-slip.tgz",
        tar_gz(regular("result.txt"), regular(f"../../../../{ESCAPE_NAME}")),
        "path contains a '..' component",
    ),
    Hostile(
        "zip-slip.zip",
        zip_of({"result.txt": RESULT_TXT, f"../../../../{ESCAPE_NAME}": b"x"}),
        "path contains a '..' component",
    ),
    Hostile("absolute.tgz", tar_gz(regular(f"/tmp/{ESCAPE_NAME}")), "absolute path"),
    Hostile(
        "symlink.tgz",
        tar_gz(special("results", tarfile.SYMTYPE, "/etc"), regular(f"results/{ESCAPE_NAME}")),
        "symbolic link",
    ),
    Hostile("symlink.zip", zip_of({"link": b"/etc/passwd"}, modes={"link": stat.S_IFLNK | 0o777}), "symbolic link"),
    Hostile("hardlink.tgz", tar_gz(special("passwd", tarfile.LNKTYPE, "/etc/passwd")), "hard link"),
    Hostile("device.tgz", tar_gz(special("disk", tarfile.BLKTYPE)), "device"),
    Hostile("fifo.tgz", tar_gz(special("pipe", tarfile.FIFOTYPE)), "FIFO"),
    Hostile(
        "many-entries.tgz",
        tar_gz(*(regular(f"file-{n}.txt") for n in range(12))),
        "more than 10 entries",
        {"IOBOARD_ARCHIVE_MAX_ENTRIES": 10},
    ),
    Hostile(
        "bomb.tgz",
        tar_gz(regular("zeros.bin", bytes(200_000))),
        "expanded size exceeds the limit of 10000 bytes",
        {"IOBOARD_ARCHIVE_MAX_EXPANDED_BYTES": 10_000},
    ),
    Hostile(
        "oversized.tgz",
        tar_gz(regular("noise.bin", os.urandom(4000))),
        "over the upload size cap of 2000 bytes",
        {"IOBOARD_UPLOAD_MAX_BYTES": 2000},
    ),
    Hostile("garbage.tgz", b"\x1f\x8b\x08\x00" + os.urandom(3000), "unreadable tar archive"),
    Hostile("garbage.zip", b"PK\x03\x04" + os.urandom(3000), "unreadable zip archive"),
    Hostile("random.tgz", b"\x00garbage" + os.urandom(3000), "unknown magic bytes"),
    Hostile("report.pdf", b"%PDF-1.4\n" + b"1 0 obj\n" * 100, "unknown magic bytes"),
    Hostile("empty.tgz", tar_gz(), "archive contains no files"),
]
