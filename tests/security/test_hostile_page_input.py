"""Numbers and text that reach pages from readers, staff forms and uploaded names, answered without a 500.

Python's ``str.isdigit`` is true for "²" and other superscripts, which ``int()`` cannot read: a check with it
let such a value through to ``int()`` (found live against a gunicorn stack, issue #22). A NUL cannot be stored in
PostgreSQL text, so a form field holding one is refused before it is saved.
"""

import shutil
from pathlib import Path

import pytest

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.results.models import Change, ScalingSeries, Study
from tests.factories import ChangeFactory, UserFactory

pytestmark = pytest.mark.django_db

STUDY = Path(__file__).resolve().parents[1] / "data" / "ior" / "study-slice"


@pytest.fixture
def study_with_superscripts(tmp_path) -> Study:
    """The study slice with two configurations named as an uploader may name them: "4²" and "5²"."""
    logs = shutil.copytree(STUDY, tmp_path / "study")
    manifest = logs / "manifest.csv"
    manifest.write_text(manifest.read_text().replace(",hint4,", ",4²,").replace(",hint5,", ",5²,"))
    ingest_ior_paths([logs], study_name="squares", manifest=manifest)
    return Study.objects.get(name="squares")


def test_a_study_whose_configurations_are_named_with_superscripts_is_shown(client, study_with_superscripts):
    page = client.get(f"/studies/{study_with_superscripts.pk}/")
    assert page.status_code == 200
    assert "4²" in page.content.decode()
    assert client.get(f"/api/v1/studies/{study_with_superscripts.pk}/").status_code == 200


@pytest.mark.parametrize("other", ["²", "١", "1²", "99999999999999999999999", "-1", "x"])
def test_a_scaling_page_compared_with_any_other_value_is_shown(client, other):
    series = ScalingSeries.objects.create(name="campaign")
    assert client.get(f"/scaling/{series.pk}/", {"compare": other}).status_code == 200


@pytest.fixture
def staff_client(client):
    client.force_login(UserFactory(username="triage-staff", is_staff=True))
    return client


@pytest.fixture
def change() -> Change:
    return ChangeFactory()


@pytest.mark.parametrize("changes", ["²", "1,²", "", "1,,2", "99999999999999999999999"])
def test_triage_with_change_ids_that_are_no_ids_is_a_400(staff_client, change, changes):
    response = staff_client.post(
        f"/systems/{change.system_id}/history/triage/", {"status": "expected", "changes": changes}
    )
    assert response.status_code == 400
    change.refresh_from_db()
    assert change.triaged_at is None


def test_a_triage_note_with_a_nul_is_a_400_and_changes_nothing(staff_client, change):
    response = staff_client.post(
        f"/systems/{change.system_id}/history/triage/",
        {"status": "expected", "changes": str(change.pk), "note": "a\x00b"},
    )
    assert response.status_code == 400
    assert "NUL" in response.content.decode()
    change.refresh_from_db()
    assert (change.status, change.note) == (Change.Status.NEW, "")
