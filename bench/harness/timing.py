"""A child run to completion and measured: its wall time and its peak resident set."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from rig import REPO_ROOT
from rig.processes import child_env


@dataclass
class Measured:
    returncode: int
    wall: float
    peak_rss_mib: float
    stdout: str
    stderr: str

    def json(self) -> dict:
        for line in reversed(self.stdout.strip().splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"child printed no JSON; stderr: {self.stderr[-3000:]}")


def run_measured(argv: list[str], *, env: dict | None = None, timeout: float = 3600, cwd: Path = REPO_ROOT) -> Measured:
    """Run a child to completion; its wall time and peak RSS (ru_maxrss of that child, via wait4)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        child = subprocess.Popen(argv, cwd=cwd, env=child_env(env), stdout=out, stderr=err, text=True)
        deadline = started + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                child.kill()
                pid, status, usage = os.wait4(child.pid, 0)
                break
            time.sleep(0.02)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Measured(child.returncode, wall, usage.ru_maxrss / 1024, out.read(), err.read())
