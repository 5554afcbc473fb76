"""A system's history as series, change detection on them, and the Change rows that keep what detection found.

`detect_systems_changes(system_ids)` is the one entry point (`detect_system_changes` for one system): it
reads the systems' runs once, builds one series per metric of each system (every scored phase, plus score,
score_bw and score_md), runs `detection.detect` on each, attributes every step with the run diff, and
reconciles the stored `Change` rows: a change found again keeps its triage (status, note, who, when), a new
one is added, and one no longer found is deleted unless somebody triaged it (then it stays, marked
``detected=False``). It also stores the system's run-to-run noise per metric and configuration class
(`MetricNoise`).

A writer's batch (apps.results.services.runs) calls `schedule_change_detection(run_ids)` once, with the runs
created or rewritten in it: after the commit, the Celery task `apps.results.tasks.detect_changes_task` runs
`detect_runs_changes`, which recomputes only the systems of those runs.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from apps.results.judgements.changes.attribution import attribute, configuration_entries
from apps.results.judgements.changes.detection import DetectionParameters, detect, noise_of
from apps.results.judgements.diff import diff_runs, flatten
from apps.results.models import Annotation, Change, MetricNoise, Run, StorageSystem
from apps.results.models.querysets import DETAIL_RELATIONS
from apps.results.models.run_details import Relation
from apps.results.services import enqueue
from apps.results.services.freshness import bump_data_version_on_commit

#: Run-level metrics and the Run fields they read.
SCORE_METRICS = {"score": "score_total", "score_bw": "score_bw", "score_md": "score_md"}
SCORED_GROUPS = ("bw", "md")
#: Noise is only estimated from this many runs of one configuration class.
NOISE_MIN_RUNS = 3


def detection_parameters() -> DetectionParameters:
    return DetectionParameters.from_mapping(getattr(settings, "IOBOARD_CHANGE_DETECTION", {}))


#: What the history page reads of a run: when it ran, its scores, and its provenance (provenance_label).
HISTORY_RUN_FIELDS = (
    "system_id",
    "kind",
    "submission_id",
    "run_timestamp",
    "year",
    "created_at",
    "score_total",
    "score_bw",
    "score_md",
    "client_nodes",
    "benchmark_version",
    "config",
    "lustre_build",
)
#: What the history page reads of a run's related rows: of its phases a metric's value, unit and group
#: (metric_value, metrics_of); its provenance (tunables, striping, the build's patches) whole.
HISTORY_ROWS = (
    Relation("phases", "PhaseResult", fields=("name", "position", "value", "unit", "score_group")),
    *[relation for relation in DETAIL_RELATIONS if relation.accessor in ("tunables", "stripings", "patches")],
)


def history_runs(system_id: int) -> list[Run]:
    """The system's runs visible as ranked (as `histories_of` chooses them) in time order, with what its history
    page reads (HISTORY_RUN_FIELDS, the phases' values, the provenance), not what only a diff or a run page reads
    (anomalies, the upload, the phases' commands and details, the other run fields): for a history of a few runs,
    building those objects cost more than reading the rows."""
    runs = Run.objects.filter(system_id=system_id).ranked().only(*HISTORY_RUN_FIELDS).with_related_rows(*HISTORY_ROWS)
    return in_time_order(runs)


def histories_of(system_ids: list[int]) -> dict[int, list[Run]]:
    """{system id: its runs visible as ranked, in time order} for these systems, read in one set of queries.

    Visible as ranked (`Run.objects.ranked()`): a submitted, rejected or excluded run is no point of a system's
    public history, so a fabricated run named after a system neither makes a step nor shows on its history.

    Without the runs' files and anomaly facts, the bulk of a run that neither the detection nor the history
    page reads (only a step's two runs are diffed, which reads their files then): a batch of histories holds
    many runs at once.
    """
    histories: dict[int, list[Run]] = {pk: [] for pk in system_ids}
    runs = Run.objects.filter(system_id__in=system_ids).ranked().with_details(files=False).defer("facts")
    for run in runs:
        histories[run.system_id].append(run)
    return {pk: in_time_order(runs) for pk, runs in histories.items()}


def in_time_order(runs: Iterable[Run]) -> list[Run]:
    return sorted(runs, key=lambda run: (run_time(run), run.pk))


def run_time(run: Run) -> datetime:
    """When a run ran: its timestamp, else the 1st of January of its year, else when it was stored."""
    if run.run_timestamp:
        return run.run_timestamp
    if run.year:
        return datetime(run.year, 1, 1, tzinfo=UTC)
    return run.created_at


def config_class(run: Run) -> str:
    """Runs of one class are comparable; another client count or rules mode is another experiment."""
    config = run.config or {}
    return f"{run.kind}, {run.client_nodes or '?'} client nodes, rules {config.get('rules') or 'regular'}" + (
        ", SCC" if config.get("scc") else ""
    )


def metric_value(run: Run, metric: str) -> float | None:
    if metric in SCORE_METRICS:
        value = getattr(run, SCORE_METRICS[metric])
    else:
        value = next((phase.value for phase in run.phases.all() if phase.name == metric), None)
    return value if value is not None and math.isfinite(value) and value > 0 else None


def metrics_of(runs: Iterable[Run]) -> list[str]:
    """Every scored phase seen in the runs (in the order the benchmark runs them), then the three scores."""
    phases: list[str] = []
    for run in runs:
        phases.extend(p.name for p in run.phases.all() if p.score_group in SCORED_GROUPS and p.name not in phases)
    return phases + list(SCORE_METRICS)


def provenance_label(run: Run) -> dict[str, str]:
    """What a storage team changes between runs, as short texts; a marker goes where one of them changes.

    Patches are named by ticket and summary, not commit: the same patch rebuilt is not a change. Each
    tunable and striping is its own entry, so a marker names the one that changed.
    """
    build = run.lustre_build
    label = {"Lustre": "", "patches": ""}
    if build is not None:
        label["Lustre"] = "/".join(dict.fromkeys(v for v in (build.server_version, build.client_version) if v))
        label["patches"] = ", ".join(
            sorted(
                f"{p.ticket or p.commit[:10]}{' reverted' if p.status == 'reverted' else ''}"
                for p in build.patches.all()
            )
        )
    label.update({t.parameter: t.value for t in run.tunables.all()})
    label.update({f"striping {s.path_role or 'layout'}": s.command or s.path_role for s in run.stripings.all()})
    label["client nodes"] = str(run.client_nodes or "")
    label["benchmark"] = run.benchmark_version
    config = json.dumps(flatten(run.config or {}), sort_keys=True)
    label["config"] = hashlib.sha256(config.encode()).hexdigest()[:8]
    return label


def provenance_changes(runs: list[Run]) -> list[tuple[int, list[str]]]:
    """(index, ["Lustre 2.15.3 → 2.15.4", ...]) for each run whose provenance differs from the run before."""
    labels = [provenance_label(run) for run in runs]
    changes = []
    for index in range(1, len(runs)):
        before, after = labels[index - 1], labels[index]
        keys = list(dict.fromkeys([*before, *after]))
        lines = [
            f"{key} {before.get(key) or '—'} → {after.get(key) or '—'}"
            for key in keys
            if before.get(key) != after.get(key)
        ]
        if lines:
            changes.append((index, lines))
    return changes


@dataclass
class DetectedChange:
    """One detected change, not yet stored."""

    metric: str
    kind: str
    run_before: Run
    run_after: Run
    direction: str
    magnitude_pct: float
    confidence: float
    z: float
    expected: bool
    attribution: list[dict]

    @property
    def key(self) -> tuple[str, str, int]:
        return self.metric, self.kind, self.run_after.pk


def _comparable_groups(runs: list[Run]) -> list[list[int]]:
    """Indices of runs compared with each other.

    When each configuration class occupies one stretch of the history (10 nodes, then 20 nodes), the whole
    history is one series and a step at the switch is attributed to it (client_nodes: 10 → 20). When the
    classes interleave, each class is its own series, so a run on other hardware is neither a step nor
    an outlier of the others.
    """
    classes = [config_class(run) for run in runs]
    stretches = [cls for index, cls in enumerate(classes) if index == 0 or classes[index - 1] != cls]
    if len(stretches) == len(set(stretches)):
        return [list(range(len(runs)))]
    return [[index for index, cls in enumerate(classes) if cls == wanted] for wanted in dict.fromkeys(classes)]


def find_changes(
    runs: list[Run], annotations: Iterable[Annotation] = (), parameters: DetectionParameters | None = None
) -> tuple[list[DetectedChange], dict]:
    """Changes in every metric of one system's runs (time order), and the noise per (metric, class)."""
    parameters = parameters or detection_parameters()
    annotations = list(annotations)
    position = {run.pk: index for index, run in enumerate(runs)}
    hints = {index for index, _ in provenance_changes(runs)}
    detected: list[DetectedChange] = []
    for metric in metrics_of(runs):
        starts = {position[a.run_id] for a in annotations if a.run_id in position and a.metric in ("", metric)}
        for group in _comparable_groups(runs):
            series = [(index, value) for index in group if (value := metric_value(runs[index], metric)) is not None]
            indices = [index for index, _ in series]
            detection = detect(
                [value for _, value in series],
                baselines=[k for k, index in enumerate(indices) if index in starts],
                hints=[k for k, index in enumerate(indices) if index in hints],
                parameters=parameters,
            )
            for outlier in detection.outliers:
                run = runs[indices[outlier.index]]
                detected.append(
                    DetectedChange(
                        metric,
                        Change.Kind.OUTLIER,
                        run,
                        run,
                        outlier.direction,
                        outlier.magnitude_pct,
                        outlier.confidence,
                        outlier.z,
                        False,
                        [],
                    )
                )
            for step in detection.steps:
                before, after = runs[indices[step.before_index]], runs[indices[step.index]]
                attribution = attribute(diff_runs([before, after]))
                # Another configuration class (client nodes, rules mode) is another experiment: expected.
                expected = step.at_baseline or bool(configuration_entries(attribution))
                detected.append(
                    DetectedChange(
                        metric,
                        Change.Kind.STEP,
                        before,
                        after,
                        step.direction,
                        step.magnitude_pct,
                        step.confidence,
                        step.z,
                        expected,
                        attribution,
                    )
                )
    return detected, _noise(runs)


def _noise(runs: list[Run]) -> dict[tuple[str, str], tuple[float, int]]:
    by_class: dict[str, list[Run]] = {}
    for run in runs:
        by_class.setdefault(config_class(run), []).append(run)
    noise = {}
    for cls, members in by_class.items():
        if len(members) < NOISE_MIN_RUNS:
            continue
        for metric in metrics_of(members):
            values = [value for run in members if (value := metric_value(run, metric)) is not None]
            if len(values) >= NOISE_MIN_RUNS:
                noise[(metric, cls)] = (noise_of([math.log(value) for value in values]), len(values))
    return noise


def detect_system_changes(system_id: int) -> dict[str, int]:
    """Recompute and reconcile one system's changes and noise; returns counts of added/kept/removed rows."""
    return detect_systems_changes([system_id])


#: Runs whose histories `detect_systems_changes` reads together (a system with more is read alone): a run
#: brings its files, so a batch is bounded by runs rather than by systems.
RUNS_PER_BATCH = 100


def detect_systems_changes(system_ids: Iterable[int]) -> dict[str, int]:
    """Recompute and reconcile these systems' changes and noise; returns the counts of added/kept/removed rows.

    Reads the histories of several systems (up to RUNS_PER_BATCH runs) in one set of queries and reconciles
    them in one transaction, not one of each per system: after an ingest most of the systems it wrote hold
    one or two runs, and those per-system reads were most of the work.
    """
    counts = {"added": 0, "kept": 0, "removed": 0}
    for batch in _batches(sorted(set(system_ids))):
        systems = StorageSystem.objects.in_bulk(batch)
        if missing := sorted(set(batch) - set(systems)):
            raise StorageSystem.DoesNotExist(f"no storage system {missing[0]}")
        histories = histories_of(batch)
        annotations: dict[int, list[Annotation]] = {pk: [] for pk in batch}
        for annotation in Annotation.objects.filter(system_id__in=batch):
            annotations[annotation.system_id].append(annotation)
        found = {pk: find_changes(histories[pk], annotations[pk]) for pk in batch}
        with transaction.atomic():
            stored: dict[int, dict[tuple, Change]] = {pk: {} for pk in batch}
            for change in Change.objects.select_for_update().filter(system_id__in=batch).order_by("pk"):
                stored[change.system_id][(change.metric, change.kind, change.run_after_id)] = change
            for pk in batch:
                for name, count in _reconcile(systems[pk], found[pk][0], stored[pk]).items():
                    counts[name] += count
            MetricNoise.objects.filter(system_id__in=batch).delete()
            MetricNoise.objects.bulk_create(
                MetricNoise(system=systems[pk], metric=metric, config_class=cls[:255], sigma=sigma, runs=count)
                for pk in batch
                for (metric, cls), (sigma, count) in found[pk][1].items()
            )
            bump_data_version_on_commit()  # the systems' history pages
    return counts


def detect_runs_changes(run_pks: Iterable[int]) -> None:
    """Recompute the changes of the systems of these runs (the task `apps.results.tasks.detect_changes_task`).
    Idempotent: running it twice stores the same rows."""
    detect_systems_changes(Run.objects.filter(pk__in=run_pks).values_list("system_id", flat=True).distinct())


def schedule_change_detection(run_ids: Iterable[int]) -> None:
    """After the current transaction commits, recompute the changes of the systems of these new or
    rewritten runs, and only of those."""
    run_ids = sorted({int(pk) for pk in run_ids})
    if run_ids:
        enqueue.on_commit(enqueue.DETECT_CHANGES, run_ids)


def _batches(system_ids: list[int]) -> list[list[int]]:
    """The systems in consecutive batches of at most RUNS_PER_BATCH IO500 runs (a larger system alone)."""
    sizes = dict(
        Run.objects.filter(system_id__in=system_ids)
        .ranked()
        .order_by()
        .values_list("system_id")
        .annotate(runs=Count("pk"))
    )
    batches: list[list[int]] = []
    runs = 0
    for pk in system_ids:
        size = sizes.get(pk, 0)
        if not batches or runs + size > RUNS_PER_BATCH:
            batches.append([])
            runs = 0
        batches[-1].append(pk)
        runs += size
    return batches


def _reconcile(system: StorageSystem, detected: list[DetectedChange], stored: dict[tuple, Change]) -> dict[str, int]:
    """Store one system's detected changes over its stored ones, {(metric, kind, run after id): change}, locked by
    the caller: a change found again keeps its triage, one no longer found goes unless somebody triaged it."""
    counts = {"added": 0, "kept": 0, "removed": 0}
    for change_found in detected:
        fields = {
            "run_before": change_found.run_before,
            "direction": change_found.direction,
            "magnitude_pct": round(change_found.magnitude_pct, 2),
            "confidence": round(change_found.confidence, 4),
            "z": round(change_found.z, 2),
            "attribution": change_found.attribution,
            "detected": True,
        }
        change = stored.pop(change_found.key, None)
        if change is None:
            Change.objects.create(
                system=system,
                metric=change_found.metric,
                kind=change_found.kind,
                run_after=change_found.run_after,
                status=Change.Status.EXPECTED if change_found.expected else Change.Status.NEW,
                **fields,
            )
            counts["added"] += 1
            continue
        for name, value in fields.items():
            setattr(change, name, value)
        change.save()
        counts["kept"] += 1
    for change in stored.values():
        counts["removed"] += 1
        if change.status == Change.Status.NEW:
            change.delete()
        elif change.detected:
            Change.objects.filter(pk=change.pk).update(detected=False)
    return counts


def detect_all_changes() -> dict[str, int]:
    totals = {"systems": 0, "added": 0, "kept": 0, "removed": 0}
    for system_id in StorageSystem.objects.filter(runs__isnull=False).distinct().values_list("pk", flat=True):
        counts = detect_system_changes(system_id)
        totals["systems"] += 1
        for key, value in counts.items():
            totals[key] += value
    return totals


def triage(change: Change, *, status: str | None, note: str | None, user) -> Change:
    """A staff decision about a change: its status and/or note, with who and when."""
    if status is not None:
        change.status = status
    if note is not None:
        change.note = note
    change.triaged_by = user if user is not None and user.is_authenticated else None
    change.triaged_at = timezone.now()
    with transaction.atomic():
        change.save(update_fields=[*Change.TRIAGE_FIELDS, "triaged_by", "triaged_at"])
        bump_data_version_on_commit()
    return change
