"""The submitter's pages: "Upload" (through the API's own receiver, apps.ingest.uploads), an upload's live
status, "My submissions", "Withdraw", and a corrected version that supersedes an upload."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from apps.ingest.models import IngestJob
from apps.ingest.parsers.secrets import REMOVED, removed_token_lines
from apps.ingest.uploads import UploadRefused, receive_upload, refuse_oversized_request
from apps.leaderboard.submissions.forms import UploadForm
from apps.results.models import ReviewNote, Run, Upload
from apps.results.services.submissions import supersede, withdraw, would_place


def own_upload(request, pk: int) -> Upload:
    """The signed-in account's upload (staff: any); another's is a 404, as if it did not exist."""
    uploads = Upload.objects.all() if request.user.is_staff else Upload.objects.filter(uploader=request.user)
    return get_object_or_404(uploads, pk=pk)


@login_required
def upload(request, supersedes: int | None = None):
    previous = own_upload(request, supersedes) if supersedes else None
    form = UploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST":
        try:
            refuse_oversized_request(int(request.META.get("CONTENT_LENGTH") or 0))
            if form.is_valid():
                received = receive_upload(
                    form.cleaned_data["file"],
                    name=form.cleaned_data["file"].name,
                    kind=form.cleaned_data["kind"],
                    uploader=request.user,
                    metadata=form.metadata(),
                    edition=form.cleaned_data["edition"],
                    embargo_until=form.cleaned_data["embargo_until"],
                )
                if previous and received.created:
                    supersede(previous, received.upload, by=request.user)
                return redirect("submission", received.upload.pk)
        except UploadRefused as refusal:
            form.add_error("file", str(refusal))
    return render(request, "submissions/upload.html", {"form": form, "previous": previous})


def status_context(upload: Upload) -> dict:
    job = upload.jobs.order_by("-pk").first()
    runs = list(upload.runs.select_related("system").prefetch_related("anomalies").order_by("pk"))
    return {
        "upload": upload,
        "job": job,
        "entries": [(run, would_place(run)) for run in runs],
        "error_lines": [
            *(line for line in (job.error if job else "").splitlines() if line.strip()),
            *token_warnings(runs),
        ],
    }


def token_warnings(runs: list[Run]) -> list[str]:
    """Where a token was removed from a kept file: the uploader should revoke it."""
    return [
        f"{kept.name}:{line}: an API token was removed from the kept copy of this file; revoke it (API tokens)"
        for run in runs
        for kept in run.files.filter(content__contains=REMOVED).order_by("name")
        for line in removed_token_lines(kept.content)
    ]


def with_retry_after(response, job: IngestJob | None):
    """Ask the page's script to poll again after the same wait the API gives a client (Retry-After)."""
    if job is not None and not job.is_finished:
        response["Retry-After"] = str(settings.IOBOARD_UPLOAD_POLL_SECONDS)
    return response


@login_required
def submission(request, pk: int):
    context = status_context(own_upload(request, pk))
    return with_retry_after(render(request, "submissions/submission.html", context), context["job"])


@login_required
def submission_status(request, pk: int):
    """The status partial the upload page polls."""
    context = status_context(own_upload(request, pk))
    return with_retry_after(render(request, "submissions/_status.html", context), context["job"])


@login_required
def my_submissions(request):
    notes = ReviewNote.objects.filter(for_submitter=True).select_related("author").order_by("created_at", "pk")
    runs = (
        Run.objects.without_large_fields()
        .select_related("system")
        .prefetch_related(Prefetch("review_notes", queryset=notes))
    )
    uploads = (
        Upload.objects.filter(uploader=request.user)
        .prefetch_related(Prefetch("runs", queryset=runs.order_by("pk")), "jobs", "superseded_by")
        .select_related("supersedes")
        .order_by("-created_at", "-pk")
    )
    return render(request, "submissions/my_submissions.html", {"uploads": uploads})


@login_required
@require_POST
def withdraw_submission(request, pk: int):
    upload = own_upload(request, pk)
    if upload.uploader_id != request.user.pk:
        raise Http404
    count = withdraw(upload, by=request.user)
    messages.success(request, f"{upload.original_name}: {count} run(s) withdrawn.")
    return redirect("my-submissions")
