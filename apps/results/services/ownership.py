"""Who owns what was stored, and what a writer may change: the one place every pipeline, the API's delete and
permission checks, reprocessing and the admin ask.

A run, a DNE scaling series, a parameter study and each of their points belong to the upload that stored them,
or to the *operator* when they came from the command line (no upload). The rules:

- Another account's upload of files already stored is "already published": it changes nothing (no re-attached
  run, no new owner, no renamed system). A re-upload by the same account finds what its account stored, as
  before.
- The operator's command-line ingest of files it holds (the public archive) takes over a run an account uploaded
  first: the run is read again from the operator's files and is the operator's, accepted as reviewed; the
  command's report names the account's upload, for staff to look at.
- An upload adds to a series or a study only when its account created it; points stored by another upload or
  by the operator are never replaced or deleted by it.
- Reprocessing an upload rewrites only what that upload owns.
- Deleting an upload deletes only what it owns, all of it: its runs, points and stacks; a series or study it
  created that still holds points of others passes to the owner of those points. (Nothing it stored may stay
  behind without its upload: that is how the operator's rows look, which no account may replace.)
- An account's upload describes (storage vendor, server count) only a system without another owner's runs,
  the operator's description replaces it, and it goes with its upload (`StorageSystem.described_by`); an
  account's stack holds only the account's runs to its ceiling (`Stack.ceiling_for`).
- What the committee reviewed is not the uploader's alone to delete: an uploader taking down a run with the
  committee's notes, checks, annotations or triaged changes withdraws it (it leaves the lists, the committee's work
  stays), and an upload holding such runs stays as their record. Staff delete for real.
- An upload naming an existing storage system that holds runs of another owner makes a *claim*: its run waits
  as submitted, with the claim said on the run, until the committee accepts it (`system_claim`).

Why the account and not the upload for "may add": the same bytes are one upload per account and kind
(content-addressed), so an account's second campaign log is another upload of the same owner; why the upload and
not the account for "replace": a point is the record of the file that stored it, and only re-reading that file
may rewrite it.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet

from apps.results.models import (
    Annotation,
    Change,
    ReviewCheck,
    ReviewNote,
    ReviewStatus,
    Run,
    ScalingPoint,
    StorageSystem,
    StudyPoint,
    Upload,
)
from apps.results.services import runs
from apps.results.services.anomaly_checks import duplicates_rechecked, schedule_ceiling_check
from apps.results.services.freshness import bump_data_version_on_commit
from apps.results.services.review import review_run

OPERATOR = "the operator (command-line ingest)"


def owner_name(upload: Upload | None) -> str:
    """Who owns what `upload` stored, in words for refusals and the admin."""
    if upload is None:
        return OPERATOR
    who = upload.uploader.get_username() if upload.uploader_id else "a deleted account"
    return f"upload {upload.pk} ({upload.original_name}) by {who}"


def same_account(writer: Upload | None, owner: Upload | None) -> bool:
    """Whether `writer` writes for the owner of what `owner` stored: the same upload, another upload of the same
    account, or the operator writing over the operator's."""
    if writer is None or owner is None:
        return writer is None and owner is None
    return writer.pk == owner.pk or (writer.uploader_id is not None and writer.uploader_id == owner.uploader_id)


def may_add_to(writer: Upload | None, container_owner: Upload | None) -> bool:
    """May `writer` add points to a series or study stored by `container_owner`? The operator may add anywhere;
    an upload only to what its own account created."""
    return writer is None or same_account(writer, container_owner)


def may_rewrite(writer: Upload | None, owner_ids: set[int | None]) -> bool:
    """May `writer` replace what was stored by the uploads `owner_ids` (None: the operator)? The operator may;
    an upload only what it stored itself."""
    return writer is None or owner_ids <= {writer.pk}


def may_reprocess(writer: Upload | None, owner: Upload | None) -> bool:
    """May re-reading `writer`'s files rewrite a run owned by `owner`? Only its own (the operator: any run)."""
    return writer is None or (owner is not None and owner.pk == writer.pk)


def account_may_change(user, obj) -> bool:
    """May a signed-in `user` change or delete `obj` (a run, an ingest job, a series or a study: anything with
    an `upload`)? Staff may; otherwise only the account whose upload stored it. The operator's are staff's."""
    if user.is_staff:
        return True
    upload = obj.upload
    return upload is not None and upload.uploader_id is not None and upload.uploader_id == user.pk


def system_claim(system: StorageSystem, writer: Upload | None) -> str:
    """The claim `writer` makes by naming `system`, or "" when it makes none: a system that already holds runs of
    another owner (the operator, or another account) is claimed. The text says whose runs it holds."""
    if writer is None:
        return ""
    others = Run.objects.filter(system=system).exclude(upload=writer)
    if writer.uploader_id is not None:
        others = others.exclude(upload__uploader_id=writer.uploader_id)
    other = others.select_related("upload__uploader").order_by("pk").first()
    if other is None:
        return ""
    return (
        f"names the existing system {system} (institution {system.institution.name!r}), which holds runs of "
        f"{owner_name(other.upload)} (run {other.pk}): the committee accepts or rejects the claim"
    )


def reviewed(selected: QuerySet) -> QuerySet:
    """The runs of `selected` the committee has worked on: a review note (every review decision leaves one), a
    checklist item, an annotation, or a change it triaged."""
    here = OuterRef("pk")
    triaged = Change.objects.filter(Q(run_before=here) | Q(run_after=here), triaged_at__isnull=False)
    return selected.filter(
        Exists(ReviewNote.objects.filter(run=here))
        | Exists(ReviewCheck.objects.filter(run=here))
        | Exists(Annotation.objects.filter(run=here))
        | Exists(triaged)
    )


def take_down_runs(selected: Iterable[Run], *, by) -> None:
    """An account takes runs down (the API's delete; the caller checked `account_may_change`): staff delete them;
    an uploader withdraws those the committee reviewed and deletes the rest. Their copies are checked again
    (`duplicate_result`)."""
    selected = list(selected)
    with runs.batch() as batch, duplicates_rechecked(selected, batch=batch):
        withdrawn = _withdraw_reviewed(selected, by, batch) if not by.is_staff else set()
        batch.delete([run for run in selected if run.pk not in withdrawn])


def _withdraw_reviewed(selected: list[Run], by, batch: runs.Batch) -> set[int]:
    """Withdraw the runs of `selected` the committee reviewed, each with a note naming `by`; their primary keys."""
    held = reviewed(Run.objects.filter(pk__in=[run.pk for run in selected]))
    for run in held:
        review_run(
            run,
            by=by,
            status=ReviewStatus.WITHDRAWN,
            note=f"withdrawn by its uploader {by.get_username()}",
            for_submitter=True,
            batch=batch,
        )
    return {run.pk for run in held}


def delete_upload(upload: Upload, *, by=None) -> None:
    """Remove an upload and what it owns: its runs, points and stacks, and the series and studies it created unless
    they hold points of others (those pass to the owner of the remaining points); then its jobs and its file. The
    runs of a deleted stack's system are checked again (against an older stack's ceiling, or none).

    An uploader (`by`, not staff) withdraws instead the runs the committee reviewed (`take_down_runs`): the upload,
    its jobs and its file then stay, as those runs' record; everything else it owns goes."""
    stored = upload.file
    with transaction.atomic():
        owned = list(upload.runs.all())
        with runs.batch() as batch, duplicates_rechecked(owned, batch=batch):
            withdrawn = _withdraw_reviewed(owned, by, batch) if by is not None and not by.is_staff else set()
            batch.delete([run for run in owned if run.pk not in withdrawn])
            for system in StorageSystem.objects.filter(described_by=upload):
                system.storage_vendor, system.server_count, system.described_by = "", None, None
                batch.edit_system(system, fields=["storage_vendor", "server_count", "described_by"])
        for system_id in set(upload.stacks.exclude(system=None).values_list("system", flat=True)):
            schedule_ceiling_check(system_id)
        upload.stacks.all().delete()
        ScalingPoint.objects.filter(upload=upload).delete()
        StudyPoint.objects.filter(upload=upload).delete()
        for series in upload.scaling_series.all():
            _delete_or_pass_on(series)
        for study in upload.studies.filter(scaling_series__isnull=True):
            _delete_or_pass_on(study)
        bump_data_version_on_commit()  # its series' and studies' pages (its runs' went with runs.delete)
        if withdrawn:
            return
        upload.delete()
        transaction.on_commit(lambda: stored.storage.delete(stored.name))


def _delete_or_pass_on(container) -> None:
    """A series or study whose creating upload goes: deleted when empty, else owned by a remaining point's
    owner (the operator when its points came from the command line). A series' study follows its series."""
    heir = container.points.order_by("pk").values_list("upload", flat=True).first()
    if not container.points.exists():
        container.delete()
        return
    container.upload_id = heir
    container.save(update_fields=["upload"])
    if hasattr(container, "ensure_study"):
        container.ensure_study()
