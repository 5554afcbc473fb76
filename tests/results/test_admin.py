"""The admin's change page: staff triage a change (status and note); what detection found is shown, never edited."""

import pytest

from apps.results.models import Change
from tests.factories import ChangeFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def change() -> Change:
    return ChangeFactory(z=-3.0)


def test_the_change_page_shows_the_p_value_beside_what_detection_found(admin_client, change):
    page = admin_client.get(f"/admin/results/change/{change.pk}/change/").content.decode()
    assert "P value" in page
    assert "0.0026997" in page  # two-sided p of z = -3: erfc(3 / sqrt 2)
    assert 'name="magnitude_pct"' not in page
    assert 'name="status"' in page
    assert 'name="note"' in page


def test_saving_the_change_page_triages_it_and_leaves_the_detection_as_found(admin_client, admin_user, change):
    response = admin_client.post(
        f"/admin/results/change/{change.pk}/change/",
        {"status": "expected", "note": "the 2.15 upgrade", "magnitude_pct": "50"},
    )
    assert response.status_code == 302
    change.refresh_from_db()
    assert (change.status, change.note, change.magnitude_pct) == ("expected", "the 2.15 upgrade", -20)
    assert change.triaged_by == admin_user
    assert change.triaged_at is not None
