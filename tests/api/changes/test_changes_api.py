"""GET /api/v1/changes/ with its filters, and staff triage by PATCH (status and note only)."""

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Change
from apps.results.services.changes.history import detect_all_changes
from synth import small_history

pytestmark = pytest.mark.django_db
URL = "/api/v1/changes/"


@pytest.fixture
def step(tmp_path):
    small_history.write_all(tmp_path)
    ingest_path(tmp_path)
    detect_all_changes()
    return Change.objects.get(kind="step", metric="mdtest_easy_write")


def test_the_list_filters_by_system_metric_kind_and_status(anonymous_client, step):
    everything = anonymous_client.get(URL).json()
    assert everything["count"] == Change.objects.count()
    found = anonymous_client.get(
        URL, {"system": step.system_id, "metric": "mdtest_easy_write", "kind": "step", "status": "new"}
    ).json()
    assert [row["id"] for row in found["results"]] == [step.pk]
    assert found["results"][0]["attribution"][0]["field"] == "patch:LU-16338 lock-free stat path"
    # A +50 % step over +-3 % noise: far beyond four standard errors, with the p-value 1 - confidence rounds away.
    assert found["results"][0]["z"] > 4
    assert 0 < found["results"][0]["p_value"] < 1e-4
    assert anonymous_client.get(URL, {"kind": "outlier", "metric": "mdtest_easy_write"}).json()["count"] == 0
    assert anonymous_client.get(URL, {"status": "bogus"}).status_code == 400


def test_staff_triage_sets_status_note_and_who(staff_client, staff, step):
    response = staff_client.patch(
        f"{URL}{step.pk}/", {"status": "acknowledged", "note": "2.15.4 upgrade", "magnitude_pct": 0}, format="json"
    )
    assert response.status_code == 200, response.content
    step.refresh_from_db()
    assert (step.status, step.note, step.triaged_by) == ("acknowledged", "2.15.4 upgrade", staff)
    assert step.triaged_at is not None
    assert step.magnitude_pct > 40  # read-only: detection output is not editable


def test_others_cannot_triage(anonymous_client, alice_client, step):
    assert anonymous_client.patch(f"{URL}{step.pk}/", {"status": "invalid"}, format="json").status_code == 401
    assert alice_client.patch(f"{URL}{step.pk}/", {"status": "invalid"}, format="json").status_code == 403
    step.refresh_from_db()
    assert step.status == "new"


def test_who_triaged_a_change_is_named_to_signed_in_readers_only(
    staff_client, staff, alice_client, anonymous_client, step
):
    staff_client.patch(f"{URL}{step.pk}/", {"status": "acknowledged"}, format="json")
    assert anonymous_client.get(f"{URL}{step.pk}/").json()["triaged_by"] is None
    assert alice_client.get(f"{URL}{step.pk}/").json()["triaged_by"] == staff.username
