"""The front door names only what the committee reviewed (issue 40): a system or institution known only from runs
not yet accepted appears nowhere on it for an anonymous reader, so an upload cannot put a name of its choosing on
the first page every reader sees. Its newest runs are runs visible as ranked, as the lists' tops are."""

import pytest

from apps.results.models import ReviewStatus
from apps.results.services import runs
from tests.factories import InstitutionFactory, RunFactory, StorageSystemFactory, UploadFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewed_run():
    system = StorageSystemFactory(name="Wolf", institution=InstitutionFactory(name="Reviewed Lab"))
    return RunFactory(system=system, score_bw=10.0, score_md=10.0)


@pytest.fixture
def submitted_run():
    system = StorageSystemFactory(name="Buy Cheap Pills", institution=InstitutionFactory(name="Spam Institute"))
    return RunFactory(
        system=system,
        upload=UploadFactory(uploader=UserFactory(username="mallory")),
        review_status=ReviewStatus.SUBMITTED,
        score_bw=999.0,
        score_md=999.0,
    )


def test_an_anonymous_reader_sees_no_name_known_only_from_unaccepted_runs(client, reviewed_run, submitted_run):
    html = client.get("/").content.decode()
    assert "Wolf" in html
    assert "Reviewed Lab" in html
    assert "Buy Cheap Pills" not in html
    assert "Spam Institute" not in html
    assert f"/runs/{submitted_run.pk}/" not in html


def test_a_rejected_run_names_nothing_either(client, reviewed_run, submitted_run):
    submitted_run.review_status = ReviewStatus.REJECTED
    runs.edit(submitted_run, ["review_status"])
    assert "Buy Cheap Pills" not in client.get("/").content.decode()


def test_once_accepted_its_names_are_on_the_front_door(client, submitted_run):
    submitted_run.review_status = ReviewStatus.ACCEPTED
    runs.edit(submitted_run, ["review_status"])
    html = client.get("/").content.decode()
    assert "Buy Cheap Pills" in html
    assert "Spam Institute" in html
