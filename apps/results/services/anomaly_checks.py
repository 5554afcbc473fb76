"""Running the anomaly rules against stored runs and keeping their findings as Anomaly rows.

The rules themselves are plain Python (apps.results.judgements.anomalies); this module supplies what only
the database knows (other runs with the same result) and the thresholds from settings, and re-checks a
system's runs after a stack changed its measured ceiling (run by a task of apps.results.tasks).
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db.models import Q

from apps.results.judgements.anomalies import RuleContext, RunFacts, evaluate_all
from apps.results.models import Anomaly, ReviewStatus, Run, Stack
from apps.results.services import enqueue, runs


def same_result(run: Run) -> Q:
    """The stored runs that are this run's benchmark execution: the same files, or the same three scores.

    The scores too because the content hash covers every file of the result directory: the same files with
    one more beside them (an ``ioboard.yaml`` naming another institution and system) hash differently, and a
    published result could be filed again under another name unnoticed. Three recomputed floats equal to
    the last bit are one execution (positive ones: zeros are what every broken run scores)."""
    same = Q(content_hash=run.content_hash)
    if scores := identifying_scores(run):
        same |= Q(score_total=scores[0], score_bw=scores[1], score_md=scores[2])
    return same


def is_same_result(run: Run, other: Run) -> bool:
    """`same_result`, of a run already read (`other`): the test many runs' duplicates share one query for."""
    scores = identifying_scores(run)
    return other.content_hash == run.content_hash or (
        scores is not None and (other.score_total, other.score_bw, other.score_md) == scores
    )


def identifying_scores(run: Run) -> tuple[float, float, float] | None:
    """The run's three scores when they tell its execution apart (`same_result`): all positive, else None."""
    scores = (run.score_total, run.score_bw, run.score_md)
    return scores if None not in scores and min(scores) > 0 else None


def counted_duplicates(run: Run):
    """The stored runs of the same result that `run`'s `duplicate_result` finding names.

    An accepted run is published: only other accepted runs, or its owner's own, count against it. An account's
    unreviewed copy of a published result is flagged itself (the committee sees it), but stamps nothing on the
    published run, whose text would otherwise carry the copy's folder name. A run the committee has yet to accept
    is compared with every copy."""
    others = Run.objects.filter(same_result(run)).exclude(pk=run.pk)
    if run.review_status != ReviewStatus.ACCEPTED:
        return others
    return others.filter(Q(review_status=ReviewStatus.ACCEPTED) | Q(pk__in=Run.objects.of_owner_of(run).values("pk")))


#: What a `duplicate_result` finding says of each other copy, and what `is_same_result` compares.
DUPLICATE_COLUMNS = (
    "pk",
    "submission_id",
    "source_path",
    "system__name",
    "system__institution__name",
    "content_hash",
    "score_total",
    "score_bw",
    "score_md",
    "review_status",
    "upload_id",
)


def duplicate_context(run: Run, ceilings: dict[int, Stack | None] | None = None) -> RuleContext:
    """`ceilings`: the operator's stacks by system, read once for many runs (`Stack.operator_ceilings`)."""
    others = counted_duplicates(run).select_related("system__institution").only(*DUPLICATE_COLUMNS)
    return rule_context(run, others, ceilings)


def rule_context(run: Run, others: Iterable[Run], ceilings: dict[int, Stack | None] | None) -> RuleContext:
    """The run's context for the rules, with `others`, the copies that count against it (`counted_duplicates`)."""
    if ceilings is not None and run.upload_id is None and run.system_id in ceilings:
        stack = ceilings[run.system_id]
    else:
        stack = Stack.ceiling_for(run)
    return RuleContext(
        run_id=run.pk,
        system=str(run.system_id),
        measured_ceiling=stack.ceiling_evidence() if stack else {},
        runs_with_same_content_hash=[
            {
                "run_id": other.pk,
                "submission": other.submission_id,
                "path": other.source_path,
                "system": f"{other.system.institution.name} / {other.system.name}",
                "system_id": other.system_id,
            }
            for other in others
        ],
    )


def check_run_anomalies(
    run: Run,
    *,
    batch: "runs.Batch",
    include_duplicates: bool = True,
    first_check: bool = False,
    ceilings: dict[int, Stack | None] | None = None,
) -> list[Anomaly]:
    """Replace the run's anomalies with what the rules find now, and refresh its list verdicts, in the writer's
    batch (apps.results.services.runs: its lists are brought in line once, at its end). `first_check`: the writer
    has just created the run, so it has no findings to replace; `ceilings`: the operator's stacks of the writer's
    systems, read once (`duplicate_context`).

    A new run that duplicates stored ones also changes their verdict, so they are re-checked too (all of them:
    whether a copy counts depends on each one's review status, `counted_duplicates`), once, before the batch's
    transaction commits (`recheck_copies`): a bulk ingest asks for its copies in one query, not one per run.
    """
    if run.kind != Run.Kind.IO500 or not run.facts:
        return []
    with batch.transaction():
        context = duplicate_context(run, ceilings)
        if not first_check:
            run.anomalies.all().delete()
        rows = Anomaly.objects.bulk_create(findings_of(run, context))
        batch.set_verdicts(run, rows)
        if include_duplicates:
            batch.recheck_copies_of([run.pk], recheck_copies)
    return rows


def findings_of(run: Run, context: RuleContext) -> list[Anomaly]:
    """The rules' findings on the run, as its (unsaved) anomalies."""
    findings = evaluate_all(RunFacts.from_dict(run.facts), settings.IOBOARD_ANOMALY_THRESHOLDS, context)
    return [
        Anomaly(run=run, rule=f.rule, severity=f.severity, phase=f.phase or "", message=f.message, evidence=f.evidence)
        for f in findings
    ]


def check_new_runs(
    created: Iterable[Run], *, batch: "runs.Batch", ceilings: dict[int, Stack | None] | None = None
) -> None:
    """`check_run_anomalies` of the operator's runs just created together (a bulk ingest's chunk): their copies
    read in one query, their findings stored in one insert and their verdicts in one update, not a few queries
    per run. Each run's copies are the stored runs of its result, the others of the chunk among them: one by one,
    those stored after it would name it when checked, and its own findings would be checked again before the
    commit (`recheck_copies`), so it ends with the same findings."""
    checked = [run for run in created if run.kind == Run.Kind.IO500 and run.facts]
    if not checked:
        return
    if any(run.upload_id is not None for run in checked):
        raise ValueError("check_new_runs counts the copies of the operator's runs only (counted_duplicates)")
    with batch.transaction():
        candidates = Q(pk__in=[])
        for run in checked:
            candidates |= same_result(run)
        stored = list(Run.objects.filter(candidates).select_related("system__institution").only(*DUPLICATE_COLUMNS))
        findings = []
        for run in checked:
            others = [
                other
                for other in stored
                if other.pk != run.pk and is_same_result(run, other) and counts_against_operator(run, other)
            ]
            findings.append((run, findings_of(run, rule_context(run, others, ceilings))))
        Anomaly.objects.bulk_create([row for _, rows in findings for row in rows])
        batch.set_verdicts_all(findings)
        batch.recheck_copies_of([run.pk for run in checked], recheck_copies)


def counts_against_operator(run: Run, other: Run) -> bool:
    """`counted_duplicates` of the operator's run (no upload), of a copy already read."""
    return (
        run.review_status != ReviewStatus.ACCEPTED
        or other.review_status == ReviewStatus.ACCEPTED
        or other.upload_id is None
    )


def recheck_copies(batch: "runs.Batch", run_ids: set[int]) -> None:
    """Check again the stored copies of these runs (each run but itself), each once, in the batch."""
    # What `same_result` reads, not the runs' facts and files: a bulk ingest's chunk asks for all its runs.
    checked = list(Run.objects.filter(pk__in=run_ids).only("pk", "content_hash", "score_total", "score_bw", "score_md"))
    if not checked:
        return
    copies = Q(pk__in=[])
    for run in checked:
        copies |= same_result(run) & ~Q(pk=run.pk)
    for other in Run.objects.filter(copies):
        check_run_anomalies(other, batch=batch, include_duplicates=False)


@contextmanager
def duplicates_rechecked(gone: Iterable[Run], *, batch: "runs.Batch | None" = None) -> Iterator[None]:
    """Check again, after the block, the copies of the runs it deletes or withdraws: a `duplicate_result` finding
    a copy caused lifts with it."""
    copies: set[int] = set()
    for run in gone:
        copies.update(Run.objects.filter(same_result(run)).exclude(pk=run.pk).values_list("pk", flat=True))
    yield
    with runs.joined(batch) as work:
        for other in Run.objects.filter(pk__in=copies):
            check_run_anomalies(other, batch=work, include_duplicates=False)


def check_system_against_ceiling(system_id: int) -> None:
    """Re-run the anomaly rules of the system's IO500 runs (a stack of the system changed its measured
    ceiling: ``above_measured_ceiling``; the task `apps.results.tasks.check_runs_against_ceiling`). Idempotent:
    the rules replace a run's findings. One commit per run, the lists maintained once at the end."""
    with runs.batch(atomic=False) as batch:
        for run in Run.objects.filter(system_id=system_id, kind=Run.Kind.IO500).iterator(chunk_size=200):
            check_run_anomalies(run, batch=batch, include_duplicates=False)


def schedule_ceiling_check(system_id: int) -> None:
    """After the current transaction commits, check the system's runs against its stack's ceiling."""
    enqueue.on_commit(enqueue.CHECK_RUNS_AGAINST_CEILING, system_id)
