"""What changed between runs: the structured answer to "why the improvement?".

`diff_runs(runs)` compares two or more runs, the first being the baseline, and returns a `RunDiff`:
the per-phase and score deltas next to every input that differs (run shape, benchmark version,
configuration keys, system information, command lines, Lustre build and patches, tunables,
striping, configuration files). Keys whose values are equal in every run are left out, so two
runs that differ only in a patch and a tunable show exactly those. Identity fields that always
differ (ids, hashes, paths, timestamps) are not inputs and are never compared.

Plain Python over already-loaded rows: pass runs fetched with `Run.objects.with_details()` (or
`apps.results.services.diff.load_runs()`), and comparing them costs no further query.
"""

from __future__ import annotations

import difflib
import json
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

ADDED, REMOVED, CHANGED = "added", "removed", "changed"
REVERTED, REVERT_DROPPED, RECOMMITTED = "reverted", "revert dropped", "new commit"


@dataclass
class Difference:
    """One key whose value is not the same in every run; `values[i]` is None when run i lacks it."""

    key: str
    values: list[str | None]
    changes: list[str | None]  # per run against the baseline: added, removed, changed or None (same)

    @property
    def cells(self) -> list[tuple[str | None, str | None]]:
        return list(zip(self.values, self.changes, strict=True))


@dataclass
class Section:
    key: str
    title: str
    differences: list[Difference] = field(default_factory=list)


@dataclass
class PatchDifference:
    """A Lustre patch present in some builds; `statuses[i]` is applied, reverted or None (absent)."""

    key: str
    ticket: str
    commit: str
    summary: str
    ticket_url: str
    review_url: str
    statuses: list[str | None]
    commits: list[str | None]
    changes: list[str | None]  # per run against the baseline: added, removed, reverted, revert dropped...

    @property
    def cells(self) -> list[tuple[str | None, str | None, str | None]]:
        return list(zip(self.statuses, self.commits, self.changes, strict=True))


@dataclass
class Delta:
    """A phase or score in every run, with its change against the baseline."""

    name: str
    unit: str
    values: list[float | None]
    seconds: list[float | None]
    deltas: list[float | None]  # values[i] - values[0]
    percents: list[float | None]  # 100 * (values[i] / values[0] - 1)
    ratios: list[float | None]  # values[i] / values[0]

    @property
    def cells(self) -> list[tuple[float | None, float | None]]:
        return list(zip(self.values, self.percents, strict=True))


@dataclass
class FileDiff:
    """A configuration or script file kept with the runs; `diffs[i]` is a unified diff against the baseline."""

    name: str
    present: list[bool]
    diffs: list[list[str] | None]


@dataclass
class RunDiff:
    run_ids: list[int]
    labels: list[str]
    scores: list[Delta]
    phases: list[Delta]
    sections: list[Section]
    patches: list[PatchDifference]
    files: list[FileDiff]

    @property
    def has_differences(self) -> bool:
        return bool(self.patches or self.files or any(section.differences for section in self.sections))

    def section(self, key: str) -> Section:
        return next(section for section in self.sections if section.key == key)

    def summaries(self) -> list[list[str]]:
        """For each run after the baseline, short sentences naming what changed (first the inputs, then phases)."""
        return [self._summary(index) for index in range(1, len(self.run_ids))]

    def _summary(self, index: int) -> list[str]:
        lines = []
        for key in ("run", "lustre"):
            for difference in self.section(key).differences:
                before, after = difference.values[0], difference.values[index]
                if before != after:
                    lines.append(f"{difference.key}: {before or '—'} → {after or '—'}")
        counts: dict[str, int] = {}
        for patch in self.patches:
            if change := patch.changes[index]:
                counts[change] = counts.get(change, 0) + 1
        if counts:
            lines.append("Lustre patches: " + ", ".join(f"{count} {kind}" for kind, count in counts.items()))
        for key in ("tunables", "striping", "config", "commands", "info"):
            section = self.section(key)
            changed = [d.key for d in section.differences if d.changes[index]]
            if changed:
                shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more" if len(changed) > 4 else "")
                lines.append(f"{section.title}: {shown}")
        changed_files = [f.name for f in self.files if f.diffs[index] or f.present[index] != f.present[0]]
        if changed_files:
            lines.append("Files: " + ", ".join(changed_files))
        moves = sorted(
            (d for d in self.phases if d.ratios[index] and d.ratios[index] != 1),
            key=lambda d: abs(math.log(d.ratios[index] or 1)),
            reverse=True,
        )
        if moves:
            lines.append("Largest phase changes: " + ", ".join(f"{d.name} ×{d.ratios[index]:.3g}" for d in moves[:3]))
        return lines

    def to_dict(self) -> dict:
        data = asdict(self)
        data["has_differences"] = self.has_differences
        data["summaries"] = self.summaries()
        return data


def diff_runs(runs) -> RunDiff:
    """Compare runs (the first is the baseline). Needs at least two, loaded with their details."""
    runs = list(runs)
    if len(runs) < 2:
        raise ValueError("a comparison needs at least two runs")
    sections = [
        _section("run", "Run", [_run_facts(run) for run in runs]),
        _section("lustre", "Lustre build", [_lustre_facts(run) for run in runs]),
        _section("tunables", "Tunables", [_tunables(run) for run in runs]),
        _section("striping", "Striping", [_stripings(run) for run in runs]),
        _section("config", "Configuration", [flatten(run.config or {}) for run in runs], sort=True),
        _section("commands", "Command lines", [_commands(run) for run in runs]),
        _section("info", "System information", [flatten(run.info or {}) for run in runs], sort=True),
    ]
    return RunDiff(
        run_ids=[run.pk for run in runs],
        labels=[f"{run.system.name} run {run.pk}" for run in runs],
        scores=_score_deltas(runs),
        phases=_phase_deltas(runs),
        sections=sections,
        patches=_patch_differences(runs),
        files=_file_differences(runs),
    )


def _changes(values: list) -> list[str | None]:
    baseline = values[0]
    changes: list[str | None] = [None]
    for value in values[1:]:
        if value == baseline:
            changes.append(None)
        elif baseline is None:
            changes.append(ADDED)
        elif value is None:
            changes.append(REMOVED)
        else:
            changes.append(CHANGED)
    return changes


def _section(key: str, title: str, facts: list[dict[str, str]], sort: bool = False) -> Section:
    keys: list[str] = []
    for run_facts in facts:
        keys.extend(k for k in run_facts if k not in keys)
    if sort:
        keys.sort()
    section = Section(key=key, title=title)
    for name in keys:
        values = [run_facts.get(name) for run_facts in facts]
        if len(set(values)) > 1:
            section.differences.append(Difference(key=name, values=values, changes=_changes(values)))
    return section


def _text(value) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return str(value)


def flatten(data: dict, prefix: str = "") -> dict[str, str]:
    """{"ior-easy": {"transferSize": "16m"}} → {"ior-easy.transferSize": "16m"}; empty values dropped."""
    flat: dict[str, str] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, f"{name}."))
        elif (text := _text(value)) is not None:
            flat[name] = text
    return flat


def _run_facts(run) -> dict[str, str]:
    system = run.system
    facts = {
        "System": f"{system.institution.name} / {system.name} ({system.filesystem})",
        "Kind": run.kind,
        "Benchmark version": run.benchmark_version,
        "Rules generation": run.generation,
        "Client nodes": run.client_nodes,
        "Total client procs": run.client_procs,
        "Procs per node": run.procs_per_node,
        "Score formula": run.score_formula,
    }
    return {key: text for key, value in facts.items() if (text := _text(value)) is not None}


def _lustre_facts(run) -> dict[str, str]:
    build = run.lustre_build
    if build is None:
        return {}
    facts = {
        "Server version": build.server_version,
        "Client version": build.client_version,
        "Base tag": build.base_tag,
        "Base commit": build.base_commit,
    }
    return {key: text for key, value in facts.items() if (text := _text(value)) is not None}


def _tunables(run) -> dict[str, str]:
    values: dict[str, list[str]] = {}
    for tunable in run.tunables.all():
        key = tunable.parameter if tunable.scope == "unknown" else f"{tunable.scope}: {tunable.parameter}"
        values.setdefault(key, []).append(tunable.value)
    return {key: "; ".join(found) for key, found in values.items()}


def _stripings(run) -> dict[str, str]:
    layouts: dict[str, list[str]] = {}
    for striping in run.stripings.all():
        parts = []
        if striping.stripe_count is not None:
            parts.append(f"stripe count {striping.stripe_count}")
        if striping.stripe_size:
            parts.append(f"stripe size {striping.stripe_size}")
        if striping.overstriping:
            parts.append("overstriping")
        if striping.dir_stripe_count is not None:
            parts.append(f"dir stripe count {striping.dir_stripe_count}")
        if striping.inherited:
            parts.append("inherited (-D)")
        key = striping.path_role or striping.command or "layout"
        layouts.setdefault(key, []).append(", ".join(parts) or striping.command)
    return {key: "; ".join(found) for key, found in layouts.items()}


def _commands(run) -> dict[str, str]:
    return {phase.name: phase.command for phase in run.phases.all() if phase.command}


def _patch_key(patch) -> str:
    summary = " ".join(patch.summary.split()).casefold()
    if patch.ticket or summary:
        return f"{patch.ticket.upper()} {summary}".strip()
    return patch.commit[:12].lower()


def _patch_change(before, after) -> str | None:
    """How run B's build treats a patch compared with the baseline build A."""
    if before is None and after is None:
        return None
    if before is None:
        return REVERTED if after.status == "reverted" else ADDED
    if after is None:
        return REVERT_DROPPED if before.status == "reverted" else REMOVED
    if before.status != after.status:
        return REVERTED if after.status == "reverted" else REVERT_DROPPED
    if before.commit and after.commit and before.commit[:12].lower() != after.commit[:12].lower():
        return RECOMMITTED
    return None


def _patch_differences(runs) -> list[PatchDifference]:
    builds = [{_patch_key(p): p for p in run.lustre_build.patches.all()} if run.lustre_build else {} for run in runs]
    keys: list[str] = []
    for build in builds:
        keys.extend(key for key in build if key not in keys)
    differences = []
    for key in keys:
        found = [build.get(key) for build in builds]
        changes = [None] + [_patch_change(found[0], other) for other in found[1:]]
        if not any(changes):
            continue
        sample = next(patch for patch in found if patch is not None)
        differences.append(
            PatchDifference(
                key=key,
                ticket=sample.ticket,
                commit=sample.commit,
                summary=sample.summary,
                ticket_url=sample.ticket_url,
                review_url=sample.review_url,
                statuses=[patch.status if patch else None for patch in found],
                commits=[patch.commit if patch else None for patch in found],
                changes=changes,
            )
        )
    return differences


def _delta(name: str, unit: str, values: list[float | None], seconds: list[float | None]) -> Delta:
    baseline = values[0]
    deltas: list[float | None] = []
    percents: list[float | None] = []
    ratios: list[float | None] = []
    for value in values:
        deltas.append(value - baseline if value is not None and baseline is not None else None)
        ratio = value / baseline if value is not None and baseline else None
        ratios.append(ratio)
        percents.append(100 * (ratio - 1) if ratio is not None else None)
    return Delta(name=name, unit=unit, values=values, seconds=seconds, deltas=deltas, percents=percents, ratios=ratios)


def _score_deltas(runs) -> list[Delta]:
    none: list[float | None] = [None] * len(runs)
    return [
        _delta("Score", "", [run.score_total for run in runs], none),
        _delta("Bandwidth", "GiB/s", [run.score_bw for run in runs], none),
        _delta("Metadata", "kIOPS", [run.score_md for run in runs], none),
    ]


def _phase_deltas(runs) -> list[Delta]:
    by_run = [{phase.name: phase for phase in run.phases.all()} for run in runs]
    names: list[str] = []
    for phases in by_run:
        names.extend(name for name in phases if name not in names)
    deltas = []
    for name in names:
        found = [phases.get(name) for phases in by_run]
        unit = next(phase.unit for phase in found if phase is not None)
        deltas.append(
            _delta(
                name,
                unit,
                [phase.value if phase else None for phase in found],
                [phase.seconds if phase else None for phase in found],
            )
        )
    return deltas


#: What the file diffs of one comparison hold in all. A run may keep hundreds of files of up to 256 KiB, and a
#: comparison of six such runs wrote every line of every diff into one page; past this budget a diff ends with
#: ``BUDGET_SPENT`` and each file after it is named with ``NOT_DIFFED`` instead of its diff (which is not computed).
FILE_DIFF_LINES = 2000
FILE_DIFF_CHARS = 200_000
BUDGET_SPENT = (
    "… the rest is not shown: this comparison's file diffs are past their budget ({lines} lines, {chars} characters);"
    " every file is in the runs' uploads"
)

NOT_DIFFED = "… not diffed: this comparison's file diffs are past their budget"


class _DiffBudget:
    """The lines and characters the file diffs of one comparison have left."""

    def __init__(self):
        self.lines, self.chars = FILE_DIFF_LINES, FILE_DIFF_CHARS

    @property
    def spent(self) -> bool:
        return self.lines <= 0 or self.chars <= 0

    def take(self, lines: Iterable[str]) -> list[str]:
        """As many of `lines` as the budget holds, then the line saying it is spent."""
        taken = []
        for line in lines:
            if self.lines <= 0 or self.chars < len(line):
                self.lines = self.chars = 0
                taken.append(BUDGET_SPENT.format(lines=FILE_DIFF_LINES, chars=FILE_DIFF_CHARS))
                break
            taken.append(line)
            self.lines -= 1
            self.chars -= len(line)
        return taken


def _file_differences(runs) -> list[FileDiff]:
    by_run = [{f.name: f.content for f in run.files.all()} for run in runs]
    names = sorted({name for files in by_run for name in files})
    differences = []
    budget = _DiffBudget()
    for name in names:
        contents = [files.get(name) for files in by_run]
        if len(set(contents)) == 1:
            continue
        baseline = (contents[0] or "").splitlines()
        diffs: list[list[str] | None] = [None]
        for index, content in enumerate(contents[1:], start=1):
            if content == contents[0]:
                diffs.append(None)
                continue
            if budget.spent:
                diffs.append([NOT_DIFFED])
                continue
            diffs.append(
                budget.take(
                    difflib.unified_diff(
                        baseline,
                        (content or "").splitlines(),
                        fromfile=f"run {runs[0].pk}/{name}",
                        tofile=f"run {runs[index].pk}/{name}",
                        lineterm="",
                        n=2,
                    )
                )
            )
        differences.append(FileDiff(name=name, present=[c is not None for c in contents], diffs=diffs))
    return differences
