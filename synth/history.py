"""Held-out run histories with known changes, for accepting change detection beyond the shared sample.

`write_history(root, seed)` writes IO500 C-application results in the format of the io500-isc21_v1 and later
releases (`result_summary.txt`, no `result.txt`), each naming the release a site had at its date, with an
`ioboard.yaml` sidecar per submission, laid out like the public archive
(`<institution>/<system>/Lustre/<year>/submission-<id>/`), and returns the truth in the shape of
`../shared/history-sample/truth.json` (each step with its detectability ``z``). Everything random comes from the
seed: the systems,
their length, their noise (log-normal, 3 to 5 %), the provenance events (a Lustre upgrade, a patch, a
tunable, more client nodes) and which phases each event moves (x1.18 to x1.6, or its inverse), events that
move nothing, one-off outliers (x0.45 or x1.9 of one phase, with no provenance change), and a flat
system with noise only. The truth is what was injected, never what the detector says.
"""

from __future__ import annotations

import math
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

#: (printed name, normalised name, unit, a real 2024 run's scale)
PHASES = [
    ("ior-easy-write", "ior_easy_write", "GiB/s", 70.0),
    ("mdtest-easy-write", "mdtest_easy_write", "kIOPS", 5000.0),
    ("ior-hard-write", "ior_hard_write", "GiB/s", 22.0),
    ("mdtest-hard-write", "mdtest_hard_write", "kIOPS", 1800.0),
    ("find", "find", "kIOPS", 37000.0),
    ("ior-easy-read", "ior_easy_read", "GiB/s", 65.0),
    ("mdtest-easy-stat", "mdtest_easy_stat", "kIOPS", 3400.0),
    ("ior-hard-read", "ior_hard_read", "GiB/s", 27.0),
    ("mdtest-hard-stat", "mdtest_hard_stat", "kIOPS", 7000.0),
    ("mdtest-easy-delete", "mdtest_easy_delete", "kIOPS", 3500.0),
    ("mdtest-hard-read", "mdtest_hard_read", "kIOPS", 480.0),
    ("mdtest-hard-delete", "mdtest_hard_delete", "kIOPS", 850.0),
]
BW_PHASES = [name for _, name, unit, _ in PHASES if unit == "GiB/s"]
MD_PHASES = [name for _, name, unit, _ in PHASES if unit == "kIOPS"]
TUNABLES = ["osc.*.max_pages_per_rpc", "osc.*.max_rpcs_in_flight", "mdc.*.max_rpcs_in_flight", "llite.*.statahead_max"]
NAMES = ["Orion", "Vega", "Lyra", "Draco", "Hydra", "Cetus", "Pavo"]
INSTITUTIONS = ["Held-out Centre", "Testing University"]


class _System:
    def __init__(self, rng: random.Random, name: str, institution: str, first_submission: int, flat: bool):
        self.rng, self.name, self.institution, self.flat = rng, name, institution, flat
        self.length = rng.randint(10, 24)
        self.noise = rng.uniform(0.03, 0.05)
        self.first_submission = first_submission
        self.version = [2, 15, rng.randint(0, 2)]
        self.patches: list[tuple[str, str]] = []
        self.tunables = {TUNABLES[0]: "16M", TUNABLES[2]: "64"}
        self.client_nodes = rng.choice([8, 10, 16])
        self.level = {name: math.log(scale * rng.uniform(0.5, 2)) for _, name, _, scale in PHASES}


def _event_positions(rng: random.Random, length: int, count: int) -> list[int]:
    """Run indices where an event starts: at least 3 runs before the first, 3 apart, 3 runs at the last level."""
    candidates = list(range(3, length - 2))
    chosen: list[int] = []
    rng.shuffle(candidates)
    for index in candidates:
        if all(abs(index - other) >= 4 for other in chosen):
            chosen.append(index)
        if len(chosen) == count:
            break
    return sorted(chosen)


def _apply_event(system: _System, kind: str) -> list[str]:
    """Change the system's provenance; return the tokens an attribution must mention."""
    rng = system.rng
    if kind == "upgrade":
        system.version = [2, system.version[1] + (1 if system.version[2] >= 8 else 0), system.version[2] % 8 + 1]
        return [".".join(map(str, system.version))]
    if kind == "patch":
        ticket = f"LU-{rng.randint(10000, 17999)}"
        system.patches.append((ticket, rng.choice(["mdt: faster lookup", "osc: rpc batching", "llite: readahead"])))
        return [ticket]
    if kind == "tunable":
        parameter = rng.choice(TUNABLES)
        current = system.tunables.get(parameter)
        system.tunables[parameter] = rng.choice([value for value in ("4M", "8", "32", "256") if value != current])
        return [parameter]
    system.client_nodes *= 2
    return ["client_nodes", str(system.client_nodes)]


def _affected(rng: random.Random, kind: str) -> list[str]:
    if kind == "client_nodes":
        return rng.sample(BW_PHASES, rng.randint(2, 4))
    group = rng.choice([BW_PHASES, MD_PHASES])
    return rng.sample(group, rng.randint(1, 3))


def _detectability(move: float, phase: str, index: int, moves: dict[int, dict[str, float]], system: _System) -> float:
    """``|move| / (noise * sqrt(1/n_before + 1/n_after))``, n counted to the phase's neighbouring steps."""
    places = sorted({0, system.length, *(i for i, moved in moves.items() if phase in moved)})
    position = places.index(index)
    before, after = index - places[position - 1], places[position + 1] - index
    return abs(move) / (system.noise * math.sqrt(1 / before + 1 / after))


def _sidecar(system: _System, submission: int) -> str:
    version = ".".join(map(str, system.version))
    lines = [
        f"institution: {system.institution}",
        f"system: {system.name}",
        "filesystem: Lustre",
        f"client_nodes: {system.client_nodes}",
        f"submission_id: {submission}",
        "lustre:",
        f'  server_version: "{version}"',
        f'  client_version: "{version}"',
    ]
    if system.patches:
        lines += ["  notes: |", f"    Base commit: 0000000000 - New tag {version}", "    Patches applied:"]
        lines += [f"    {system.rng.getrandbits(28):07x} {ticket} {summary}" for ticket, summary in system.patches]
    lines.append("tunables:")
    lines += [f'  - "lctl set_param {parameter}={value}"' for parameter, value in sorted(system.tunables.items())]
    return "\n".join(lines) + "\n"


#: The IO500 release a site running on a date would use: the one published for the list before the list the run is
#: made for (the ISC list in June takes runs up to May, the SC list in November up to November, a December run is
#: for the next ISC list). Tags as the public archive's result files print them.
RELEASE_BEFORE_LIST = {
    "isc23": "io500-sc22_v2",
    "sc23": "io500-isc23",
    "isc24": "io500-sc23_v1",
    "sc24": "io500-isc24_v3",
    "isc25": "io500-sc24_v1",
    "sc25": "io500-isc25_v2",
    "isc26": "io500-sc25",
}


def release_at(when: datetime) -> str:
    """The release tag a run made on ``when`` prints in its header."""
    year, conference = (when.year + 1, "isc") if when.month == 12 else (when.year, "isc" if when.month <= 5 else "sc")
    return RELEASE_BEFORE_LIST[f"{conference}{year % 100:02d}"]


def _summary(values: dict[str, float], seconds: dict[str, float], release: str) -> str:
    lines = [f"IO500 version {release} (standard)"]
    for printed, name, unit, _ in PHASES:
        lines.append(f"[RESULT] {printed:>20} {values[name]:15.6f} {unit} : time {seconds[name]:.3f} seconds")
        if name == "mdtest_easy_write":
            lines.append(f"[      ] {'timestamp':>20} {0:15.6f} kIOPS : time 0.000 seconds")
    rounded = {name: float(f"{value:.6f}") for name, value in values.items()}
    bw = math.exp(sum(math.log(rounded[n]) for n in BW_PHASES) / len(BW_PHASES))
    md = math.exp(sum(math.log(rounded[n]) for n in MD_PHASES) / len(MD_PHASES))
    lines.append(f"[SCORE ] Bandwidth {bw:.6f} GiB/s : IOPS {md:.6f} kiops : TOTAL {math.sqrt(bw * md):.6f}")
    return "\n".join(lines) + "\n"


def write_submission(
    root: Path, institution: str, system: str, submission: int, when: datetime, values: dict[str, float], sidecar: str
) -> Path:
    """One submission folder as the public archive lays it out; returns the folder."""
    folder = root / institution / system / "Lustre" / str(when.year) / f"submission-{submission}"
    results = folder / "results" / when.strftime("%Y.%m.%d-%H.%M.%S")
    results.mkdir(parents=True)
    (folder / "ioboard.yaml").write_text(sidecar)
    (results / "result_summary.txt").write_text(_summary(values, {phase: 400.0 for phase in values}, release_at(when)))
    return folder


def write_history(root: Path, seed: int) -> dict:
    """Write a held-out history under `root`; return its truth (steps, outliers, flat_systems)."""
    rng = random.Random(seed)
    truth: dict = {"steps": [], "outliers": [], "flat_systems": []}
    submission = 90000 + 1000 * (seed % 50)
    names = rng.sample(NAMES, rng.randint(3, 4))
    for position, name in enumerate(names):
        flat = position == 0
        system = _System(rng, name, rng.choice(INSTITUTIONS), submission, flat)
        if flat:
            truth["flat_systems"].append(name)
        positions = [] if flat else _event_positions(rng, system.length, rng.randint(2, 3))
        events: dict[int, str] = {}
        moves: dict[int, dict[str, float]] = {}
        for index in positions:
            kind = rng.choice(["upgrade", "patch", "tunable", "client_nodes"])
            events[index] = kind
            # One event in five changes an input without moving any phase: no step may be reported there.
            moves[index] = (
                {}
                if rng.random() < 0.2
                else {phase: rng.choice([-1, 1]) * math.log1p(rng.uniform(0.18, 0.6)) for phase in _affected(rng, kind)}
            )
        quiet = [i for i in range(1, system.length - 1) if all(abs(i - e) >= 2 for e in events)]
        outliers = (
            {}
            if flat or not quiet or rng.random() < 0.3
            else {rng.choice(quiet): (rng.choice(PHASES)[1], rng.choice([0.45, 1.9]))}
        )
        when = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=rng.randint(0, 60))
        for index in range(system.length):
            if index in events:
                tokens = _apply_event(system, events[index])
                for phase, move in moves[index].items():
                    system.level[phase] += move
                    truth["steps"].append(
                        {
                            "system": name,
                            "metric": phase,
                            "after_submission": submission,
                            "direction": "up" if move > 0 else "down",
                            "cause_tokens": tokens,
                            "z": _detectability(move, phase, index, moves, system),
                        }
                    )
            values = {phase: math.exp(level + rng.gauss(0, system.noise)) for phase, level in system.level.items()}
            if index in outliers:
                phase, factor = outliers[index]
                values[phase] *= factor
                truth["outliers"].append({"system": name, "metric": phase, "submission": submission})
            write_submission(root, system.institution, name, submission, when, values, _sidecar(system, submission))
            submission += 1
            when += timedelta(days=rng.randint(7, 45), hours=rng.randint(0, 23), minutes=rng.randint(0, 59))
    return truth


#: The derived scores: a step in one at a true step's run is the phases' step seen through it, neither right
#: nor wrong.
DERIVED = {"score", "score_bw", "score_md"}


def change_record(change) -> dict:
    """A stored change (``apps.results.models.Change``, its system and runs read) in the truth's terms: which
    system, metric and kind, its direction, the submissions either side, and its attribution."""
    return {
        "system": change.system.name,
        "metric": change.metric,
        "kind": change.kind,
        "direction": change.direction,
        "after": int(change.run_after.submission_id),
        "before": int(change.run_before.submission_id),
        "attribution": change.attribution,
    }


def names_in(entry: dict) -> set[str]:
    """What one attribution entry names: its field, the patch ticket or tunable parameter in it, its new value.

    ``patch:LU-16338 lock-free stat path`` names LU-16338, ``tunable:client: osc.*.max_pages_per_rpc`` names
    osc.*.max_pages_per_rpc and max_pages_per_rpc, ``lustre.server_version`` with after 2.15.4 names 2.15.4.
    """
    field = entry["field"]
    names = {field, str(entry["after"])}
    if field.startswith("patch:"):
        names.add(field.removeprefix("patch:").split(" ")[0])
    if field.startswith("tunable:"):
        parameter = field.rsplit(": ", 1)[-1]
        names |= {parameter, parameter.rsplit(".", 1)[-1]}
    return names


def names_cause(attribution: list[dict], token: str) -> bool:
    """Whether an attribution names one of the truth's ``cause_tokens`` as a whole entry, not as a substring."""
    return any(token in names_in(entry) for entry in attribution)
