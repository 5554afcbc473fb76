"""The compare page (`/compare/?runs=12,34`): two to six runs side by side, what differs between them and
whether it is beyond the noise; with no runs (or bad ids), a picker of the newest runs."""

from django.http import Http404
from django.shortcuts import render

from apps.leaderboard.compare import charts
from apps.leaderboard.systems.search import SystemSearchForm, newest_shown_runs
from apps.results.judgements.diff import diff_runs
from apps.results.models import Run
from apps.results.services.changes.noise import NOISE_SIGMAS, noise_verdicts
from apps.results.services.citations import mixed_lists_warning
from apps.results.services.diff import load_runs
from apps.web.query_guard import database_id

MAX_COMPARED = 6


def _compared_ids(request) -> tuple[list[int], str]:
    """The run ids of `?runs=` (commas or spaces between them, repeated parameters), and what is wrong with them."""
    ids: list[int] = []
    for value in request.GET.getlist("runs"):
        for part in value.replace(" ", ",").split(","):
            part = part.strip()
            if not part:
                continue
            run_id = database_id(part)
            if run_id is None:
                return ids, f"{part[:30]!r} is not a run id: give whole numbers, e.g. ?runs=12,34."
            if run_id not in ids:
                ids.append(run_id)
    return ids, ""


def compare(request):
    ids, problem = _compared_ids(request)
    context = {"ids": ids, "max_compared": MAX_COMPARED, "query": ",".join(map(str, ids))}
    if not problem and ids and not 2 <= len(ids) <= MAX_COMPARED:
        problem = f"Give between 2 and {MAX_COMPARED} run ids, e.g. ?runs=12,34."
    if problem or not ids:
        picker_form = SystemSearchForm(request.GET)
        context.update(
            {
                "problem": problem,
                "picker_query": picker_form.query,
                "picker": newest_shown_runs(picker_form.query, reader=request.user),
            }
        )
        return render(request, "compare/compare.html", context, status=400 if problem else 200)
    try:
        runs = load_runs(ids, request.user)
    except Run.DoesNotExist as missing:
        raise Http404(str(missing)) from missing
    diff = diff_runs(runs)
    noise = noise_verdicts(runs, diff)
    context.update(
        {
            "runs": runs,
            "diff": diff,
            "summaries": list(zip(runs[1:], diff.summaries(), strict=True)),
            "chart": charts.compare_phases(diff, noise),
            "noise": noise,
            "noise_by_row": {verdict.name: verdict.beyond for verdict in noise},
            "noise_sigmas": NOISE_SIGMAS,
            "list_warning": mixed_lists_warning(ids),
        }
    )
    return render(request, "compare/compare.html", context)
