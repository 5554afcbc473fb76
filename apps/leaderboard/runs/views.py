"""A run's page (`/runs/<id>/`) and the upload it came from, byte for byte."""

from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, render

from apps.leaderboard.runs import charts
from apps.results.judgements.diff import flatten
from apps.results.judgements.submission_rules import rules_edition_of_date
from apps.results.models import ListState, Run, Stack
from apps.results.models.list_kinds import LIST_KINDS, PRIMARY_LIST, ListKind
from apps.results.models.querysets import entries_with_rank
from apps.results.services.citations import citations_from
from apps.results.services.review import clause_outcomes, reproducibility_report


def _score_checks(run) -> list[dict]:
    """Computed against reported score; "agrees" is the run's print-precision rule (Run.score_agreement)."""
    agreement = run.score_agreement()
    checks = []
    for label, component, computed, reported in (
        ("Score", "total", run.score_total, run.reported_total),
        ("Bandwidth (GiB/s)", "bw", run.score_bw, run.reported_bw),
        ("Metadata (kIOPS)", "md", run.score_md, run.reported_md),
    ):
        percent = 100 * (computed / reported - 1) if computed is not None and reported else None
        checks.append(
            {
                "label": label,
                "computed": computed,
                "reported": reported,
                "percent": percent,
                "agrees": agreement.get(component, False),
            }
        )
    return checks


def _medians_list(run, placements) -> ListKind:
    """The list whose per-phase medians a run's phases are drawn against: one of its own track (a production run
    against production runs), keeping medians (ListKind.keeps_medians). The track is that of the run's first ranked
    placement, else production when the committee accepted its production declaration, else research."""
    track = next(
        (kind.track for kind, rank in placements if rank and kind.track),
        "production" if run.production_accepted else "research",
    )
    return next(
        (kind for kind in LIST_KINDS.values() if kind.track == track and kind.keeps_medians), LIST_KINDS[PRIMARY_LIST]
    )


def run_detail(request, pk: int):
    run = get_object_or_404(Run.objects.with_details().prefetch_related("rank_stats"), pk=pk)
    phases = list(run.phases.all())
    ranks = {kind: rank for kind, rank in entries_with_rank().filter(run=run).values_list("kind", "rank")}
    placements = [(kind, ranks.get(kind.slug)) for kind in LIST_KINDS.values() if kind.on_run_pages]
    medians_list = _medians_list(run, placements)
    statistics = ListState.objects.filter(kind=medians_list.slug).first()
    edition_placements = list(run.edition_entries.select_related("edition").order_by("-edition__frozen_at"))
    edition, outcomes = clause_outcomes(run)
    stack = Stack.of_system(run.system_id)
    anomalies = list(run.anomalies.all())
    return render(
        request,
        "runs/run_detail.html",
        {
            "stack": stack,
            "hardware_efficiency": stack.run_efficiency(phases) if stack else [],
            "run": run,
            "system": run.system,
            "phases": phases,
            "score_checks": _score_checks(run),
            "placements": placements,
            "ranked_placements": [(kind, rank) for kind, rank in placements if rank],
            "list_edition": rules_edition_of_date(run.run_timestamp.date().isoformat()) if run.run_timestamp else None,
            "warnings": [anomaly for anomaly in anomalies if anomaly.severity == "warn"],
            "errors": [anomaly for anomaly in anomalies if anomaly.severity == "error"],
            "medians_list": medians_list,
            "edition_entries": edition_placements,
            "config": sorted(flatten(run.config or {}).items()),
            "info_fields": sorted(flatten(run.info or {}).items()),
            "statistics": statistics,
            "chart": charts.phases_against_median(
                phases, statistics.phase_medians if statistics else {}, medians_list.title
            ),
            "rank_charts": [(stats, charts.rank_runtimes(stats)) for stats in run.rank_stats.all()],
            "edition": edition,
            "clause_outcomes": outcomes,
            "citations": citations_from(run, edition_placements, ranks),
            "reproducibility": reproducibility_report(run, staff=request.user.is_staff),
        },
    )


def run_upload(request, pk: int):
    """The upload a run came from, byte for byte, as an attachment under its original name."""
    run = get_object_or_404(Run.objects.select_related("upload"), pk=pk)
    upload = run.upload
    if upload is None or not upload.file:
        raise Http404("this run has no stored upload")
    try:
        handle = upload.file.open("rb")
    except FileNotFoundError as exc:
        raise Http404("the stored upload is missing") from exc
    return FileResponse(handle, as_attachment=True, filename=upload.original_name or upload.file.name)
