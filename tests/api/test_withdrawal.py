"""An uploader deleting a run the committee reviewed withdraws it instead (issue #40, item 9): the committee's
notes, checks, annotations and triaged changes stay, and the run leaves the lists. A run no one reviewed is
deleted as before, and staff still delete for real."""

from datetime import date

import pytest
from django.utils import timezone

from apps.ingest.models import IngestJob
from apps.results.models import (
    Annotation,
    Change,
    ListEntry,
    ReviewCheck,
    ReviewNote,
    ReviewStatus,
    RulesEdition,
    Run,
    Upload,
)
from apps.results.models.list_kinds import EVERY_RUN_LIST
from apps.results.services import runs
from apps.results.services.review import check_item, review_run
from tests.api.uploading import uploaded_run
from tests.factories import ChangeFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed(alice, staff):
    """Alice's uploaded run, submitted, then accepted by the committee with a note, a checklist item, an annotation
    and a triaged change."""
    run = uploaded_run(alice)
    run.review_status = ReviewStatus.SUBMITTED
    runs.edit(run, fields=["review_status"])
    review_run(run, by=staff, status=ReviewStatus.ACCEPTED, note="reproduced by the committee")
    edition = RulesEdition.objects.create(name="sc24", since=date(2024, 11, 1), checklist=["hashes match"])
    check_item(run, rules_edition=edition, item="hashes match", passed=True, by=staff)
    Annotation.objects.create(system=run.system, run=run, text="new baseline: Lustre 2.15", author=staff)
    ChangeFactory(run_after=run, status="confirmed", triaged_by=staff, triaged_at=timezone.now())
    return Run.objects.get(pk=run.pk)


def ranked_entries(run: Run) -> list[str]:
    """The lists that rank the run (the historic list holds every run, marked with why it is not ranked)."""
    return list(ListEntry.objects.filter(run=run).exclude(kind=EVERY_RUN_LIST).values_list("kind", flat=True))


def committee_work(run: Run) -> tuple[int, int, int, int]:
    return (
        ReviewNote.objects.filter(run=run).count(),
        ReviewCheck.objects.filter(run=run).count(),
        Annotation.objects.filter(run=run).count(),
        Change.objects.filter(run_after=run).count(),
    )


def test_the_uploader_deleting_a_reviewed_run_withdraws_it_and_the_committees_work_stays(reviewed, alice_client):
    assert ranked_entries(reviewed)  # accepted: on the ranked lists
    before = committee_work(reviewed)

    assert alice_client.delete(f"/api/v1/runs/{reviewed.pk}/").status_code == 204

    run = Run.objects.get(pk=reviewed.pk)
    assert run.review_status == ReviewStatus.WITHDRAWN
    assert ranked_entries(run) == []
    notes, *rest = committee_work(run)
    assert (notes, *rest) == (before[0] + 1, *before[1:])  # and a note saying who withdrew it
    assert "withdrawn by its uploader alice" in ReviewNote.objects.filter(run=run).latest("pk").text


def test_the_uploader_deleting_the_upload_of_a_reviewed_run_withdraws_the_run_and_keeps_its_record(
    reviewed, alice_client, private_storage, django_capture_on_commit_callbacks
):
    before = committee_work(reviewed)
    with django_capture_on_commit_callbacks(execute=True):
        assert alice_client.delete(f"/api/v1/uploads/{reviewed.upload_id}/").status_code == 204

    run = Run.objects.get(pk=reviewed.pk)
    assert run.review_status == ReviewStatus.WITHDRAWN
    assert committee_work(run)[1:] == before[1:]
    assert Upload.objects.filter(pk=reviewed.upload_id).exists()  # the withdrawn run's record: its files
    assert ranked_entries(run) == []


def test_a_run_no_one_reviewed_is_deleted_for_real(alice, alice_client):
    run = uploaded_run(alice)

    assert alice_client.delete(f"/api/v1/runs/{run.pk}/").status_code == 204

    assert not Run.objects.filter(pk=run.pk).exists()


def test_staff_delete_a_reviewed_run_for_real(reviewed, staff_client, private_storage):
    assert staff_client.delete(f"/api/v1/runs/{reviewed.pk}/").status_code == 204

    assert not Run.objects.filter(pk=reviewed.pk).exists()
    assert IngestJob.objects.filter(upload=reviewed.upload_id).exists()
