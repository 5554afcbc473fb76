"""A run's page (`/runs/<id>/`) and the upload it came from, byte for byte."""

from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, render

from apps.ingest.parsers.secrets import REMOVED
from apps.leaderboard.runs.page import RunPage
from apps.results.models import Run


def run_detail(request, pk: int):
    run = get_object_or_404(Run.objects.visible_to(request.user).with_details().prefetch_related("rank_stats"), pk=pk)
    return render(request, "runs/run_detail.html", RunPage(run, staff=request.user.is_staff).context())


def run_upload(request, pk: int):
    """The upload a run came from, byte for byte, as an attachment under its original name.

    An archive a token was found in (removed from the kept files the run page shows, not from the archive, which
    is kept byte for byte) is its uploader's and staff's only."""
    run = get_object_or_404(Run.objects.visible_to(request.user).select_related("upload"), pk=pk)
    upload = run.upload
    if upload is None or not upload.file:
        raise Http404("this run has no stored upload")
    own = request.user.is_staff or (upload.uploader_id is not None and upload.uploader_id == request.user.pk)
    if not own and run.files.filter(content__contains=REMOVED).exists():
        raise Http404("this run has no stored upload")
    try:
        handle = upload.file.open("rb")
    except FileNotFoundError as exc:
        raise Http404("the stored upload is missing") from exc
    return FileResponse(handle, as_attachment=True, filename=upload.original_name or upload.file.name)
