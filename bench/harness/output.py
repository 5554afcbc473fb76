"""What a benchmark prints and writes: the machine it ran on, the command that ran it, tables, JSON figures."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from rig import REPO_ROOT
from rig.databases import psql


def machine() -> dict:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory": memory,
        "kernel": platform.release(),
        "python": platform.python_version(),
    }


def machine_line() -> str:
    m = machine()
    return f"{m['nproc']} CPUs ({m['cpu']}), {m['memory']} RAM, Linux {m['kernel']}, Python {m['python']}"


def service_versions() -> str:
    parts = []
    with contextlib.suppress(Exception):
        out = psql("SHOW server_version", capture=True).strip()
        parts.append(f"PostgreSQL {out}")
    with contextlib.suppress(Exception):
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True, timeout=10).stdout
        parts.append("Redis " + out.split("v=")[1].split()[0])
    return ", ".join(parts)


def this_command() -> str:
    """How this benchmark was started, as something to paste back into a shell (from the repo root)."""
    argv = list(sys.argv)
    if Path(argv[0]).resolve() == REPO_ROOT / "bench" / "__main__.py":
        return " ".join([".venv/bin/python -m bench", *(shlex.quote(a) for a in argv[1:])])
    return " ".join(shlex.quote(a) for a in argv)


def now_utc() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def table(headers: Sequence[str], rows: Iterable[Sequence]) -> str:
    def cell(value) -> str:
        if isinstance(value, float):
            return f"{value:,.3f}" if abs(value) < 100 else f"{value:,.1f}"
        return str(value).replace("|", "\\|")

    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def add_json_option(parser) -> None:
    parser.add_argument(
        "--json", type=Path, metavar="FILE", help="also write the figures to FILE as JSON (bench.report reads them)"
    )


def write_json(path: Path | None, figures: dict) -> None:
    """The figures of one bench run, for ``python -m bench report``; nothing when no ``--json`` was given."""
    if path is not None:
        path.write_text(json.dumps(figures, indent=1, default=str), encoding="utf-8")
