"""Mail to a submitter: when an upload's ingest finishes or fails, and when the committee decides on one of its
runs. Each account can turn it off (`Profile.notify_by_email`).

A mail is sent by a Celery task (apps.results.tasks.send_notification) queued when the write that caused it
commits, so neither an ingest nor a review waits for (or fails with) the mail server; a redelivered message may
send a mail twice, which is harmless.
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail

from apps.results.models import Profile, ReviewStatus, Run, Upload
from apps.results.services import enqueue

#: The review statuses that are the committee's decision on a run (withdrawal is the submitter's own).
DECISIONS = (ReviewStatus.ACCEPTED, ReviewStatus.REJECTED)


def wants_mail(user) -> bool:
    if user is None or not user.email or not user.is_active:
        return False
    switch = Profile.objects.filter(user=user).values_list("notify_by_email", flat=True).first()
    return switch is not False  # an account without a profile row has the default: on


def notify(user, subject: str, body: str) -> None:
    """Mail the account once the current transaction commits, unless it asked for no mail."""
    if not wants_mail(user):
        return
    enqueue.on_commit(enqueue.SEND_NOTIFICATION, user.pk, subject, body)


def notify_upload_outcome(upload: Upload, *, failed: bool, error: str = "") -> None:
    where = f"{settings.IOBOARD_SITE_URL}/submissions/{upload.pk}/"
    if failed:
        notify(
            upload.uploader,
            f"ioboard: {upload.original_name} could not be ingested",
            f"Your upload {upload.original_name} failed:\n\n{error}\n\nDetails: {where}\n",
        )
    else:
        notify(
            upload.uploader,
            f"ioboard: {upload.original_name} is ingested",
            f"Your upload {upload.original_name} is ingested and waits for review where the site reviews.\n\n"
            f"Its runs and anything to correct: {where}\n",
        )


def notify_review_decision(run: Run, *, status: str, note: str) -> None:
    if status not in DECISIONS or run.upload is None:
        return
    label = ReviewStatus(status).label
    notify(
        run.upload.uploader,
        f"ioboard: run {run.pk} {label}",
        f"The committee set run {run.pk} ({run.upload.original_name}) to {label}.\n\n"
        + (f"Their note:\n{note}\n\n" if note.strip() else "")
        + f"{settings.IOBOARD_SITE_URL}/runs/{run.pk}/\n",
    )


def send(user_pk: int, subject: str, body: str) -> None:
    """Run by the task `apps.results.tasks.send_notification`: the account's address is read when it is sent."""
    user = get_user_model().objects.filter(pk=user_pk, is_active=True).exclude(email="").first()
    if user is not None:
        send_mail(subject, body, None, [user.email])
