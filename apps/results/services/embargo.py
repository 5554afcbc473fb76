"""The release of embargoed uploads (issue 37, private until release): an edition frozen, or an embargo date passed.

An upload submitted to an edition (`Upload.edition`) or with an embargo date (`Upload.embargo_until`) is private
until released (apps.results.models.visibility). Staff release an edition by freezing it
(apps.results.services.editions releases it first, so the frozen edition holds its runs); an embargo date is
released by the periodic `release_due_embargoes` task (apps/results/tasks.py). At the release every run of those
uploads becomes public at once: onto the lists in one transaction, the data version bumped, their systems' change
detection scheduled.
"""

from django.db.models import QuerySet
from django.utils import timezone

from apps.results.models import Edition, Run, Upload
from apps.results.services import runs
from apps.results.services.freshness import bump_data_version_on_commit


class EmbargoError(ValueError):
    """An upload's edition or embargo date cannot be used."""


def embargo_of(edition: str, embargo_until) -> bool:
    """Whether an upload submitted with these is private until released; refuses an edition already frozen."""
    if edition and Edition.objects.filter(name=edition).exists():
        raise EmbargoError(f"edition {edition} is frozen already: submit to an edition not yet released")
    return bool(edition) or (embargo_until is not None and embargo_until > timezone.now())


def release_edition(name: str) -> list[int]:
    """Release every upload submitted to edition `name`. Returns the runs made public."""
    return release(Upload.objects.filter(edition=name, embargoed=True))


def release(uploads: QuerySet) -> list[int]:
    """Make these uploads and everything they stored public at once. Returns the runs made public."""
    with runs.batch() as work:
        upload_ids = list(uploads.values_list("pk", flat=True))
        if not upload_ids:
            return []
        Upload.objects.filter(pk__in=upload_ids).update(embargoed=False)
        released = work.release(Run.objects.filter(upload_id__in=upload_ids))
        bump_data_version_on_commit()  # their series and studies too
    return released


def release_due() -> list[int]:
    """Release the uploads (without an edition) whose embargo date has passed. Returns the runs made public."""
    return release(Upload.objects.filter(embargoed=True, edition="", embargo_until__lte=timezone.now()))
