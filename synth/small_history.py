"""A hand-made history of one system, small enough to read: nine runs, an upgrade at the eighth.

`NOISE` is the per-run factor of every phase (within ±3 %); from the eighth run on mdtest_easy_write is
1.5 times higher, with Lustre 2.15.4 instead of 2.15.3 and patch LU-16338. A second system (Flat) has
the same noise and no change at all.
"""

from datetime import UTC, datetime, timedelta
from pathlib import Path

from synth.history import PHASES, write_submission

NOISE = [1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00, 1.02]
UPGRADE_AT = 7
STEP_FACTOR = 1.5
FIRST_SUBMISSION = 70001


def sidecar(system: str, submission: int, upgraded: bool) -> str:
    version = "2.15.4" if upgraded else "2.15.3"
    lines = [
        "institution: Hand Lab",
        f"system: {system}",
        "filesystem: Lustre",
        "client_nodes: 10",
        f"submission_id: {submission}",
        "lustre:",
        f'  server_version: "{version}"',
        f'  client_version: "{version}"',
    ]
    if upgraded:
        lines += [
            "  notes: |",
            "    Base commit: 0000000000 - New tag 2.15.4",
            "    Patches applied:",
            "    5aadd0d LU-16338 mdt: lock-free stat path",
        ]
    return "\n".join(lines) + "\n"


def write_run(root: Path, system: str, index: int) -> Path:
    """Run `index` (0-based) of `system`; the upgrade only happens on the system named Stepper."""
    upgraded = system == "Stepper" and index >= UPGRADE_AT
    values = {name: scale * NOISE[index] for _, name, _, scale in PHASES}
    if upgraded:
        values["mdtest_easy_write"] *= STEP_FACTOR
    submission = FIRST_SUBMISSION + index + (0 if system == "Stepper" else 100)
    when = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=10 * index)
    return write_submission(root, "Hand Lab", system, submission, when, values, sidecar(system, submission, upgraded))


def write_all(root: Path, runs: int = len(NOISE)) -> None:
    for system in ("Stepper", "Flat"):
        for index in range(runs):
            write_run(root, system, index)
