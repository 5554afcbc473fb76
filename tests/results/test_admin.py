"""The admin's change pages: staff triage a change (status and note), what detection found is shown, never edited;
an anomaly edited by hand leaves its run's verdict and list entries as the verbs would, a run's phases are shown."""

import json

import pytest
from django import forms as forms_module

from apps.results.models import Change, ListEntry
from apps.results.services import runs
from tests.factories import ChangeFactory, RunFactory

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


def submitted(admin_client, url: str, **changes) -> dict:
    """The admin change page at `url` as its form shows it (inlines and their management forms included), with
    `changes` on top: what a click on Save posts."""
    page = admin_client.get(url)
    forms = [page.context["adminform"].form]
    data = {}
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        forms += [formset.management_form, *formset.forms]
    for form in forms:
        for name, field in form.fields.items():
            value = form[name].value()
            if value is None or value is False:
                continue
            if isinstance(field, forms_module.MultipleChoiceField):
                data[form.add_prefix(name)] = list(value)
            else:
                data[form.add_prefix(name)] = field.prepare_value(value)
    data.update(changes)
    return data


def listed_on_the_page(client) -> list[tuple[int, int]]:
    """(run id, rank) of the rows of the live research list, as its export gives them to a reader."""
    response = client.get("/lists/io500/export.json")
    rows = json.loads(b"".join(response.streaming_content) if response.streaming else response.content)["rows"]
    return [(row["id"], row["rank"]) for row in rows]


@pytest.fixture
def two_runs():
    """The best run (200) and a runner-up (100), both on the research list."""
    best = RunFactory(score_bw=200.0, score_md=200.0, phases=False)
    runner_up = RunFactory(score_bw=100.0, score_md=100.0, phases=False)
    return best, runner_up


def test_an_anomaly_raised_to_an_error_in_the_admin_takes_the_run_off_the_list(admin_client, two_runs):
    best, runner_up = two_runs
    anomaly = best.anomalies.create(rule="phase_too_short", severity="warn", phase="find", message="ran 95 s")
    runs.set_verdicts(best)
    url = f"/admin/results/anomaly/{anomaly.pk}/change/"

    response = admin_client.post(url, submitted(admin_client, url, severity="error"))

    assert response.status_code == 302
    best.refresh_from_db()
    assert (best.exclusion_reason, best.flagged) == ("phase_too_short: ran 95 s", False)
    assert listed_on_the_page(admin_client) == [(runner_up.pk, 1)]
    assert set(ListEntry.objects.filter(kind="io500").values_list("run_id", "ranked")) == {(runner_up.pk, True)}


def test_an_error_deleted_in_the_admin_puts_the_run_back_at_its_rank(admin_client, two_runs):
    best, runner_up = two_runs
    anomaly = best.anomalies.create(rule="phase_too_short", severity="error", message="ran 95 s")
    runs.set_verdicts(best)
    assert listed_on_the_page(admin_client) == [(runner_up.pk, 1)]

    response = admin_client.post(f"/admin/results/anomaly/{anomaly.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    best.refresh_from_db()
    assert best.exclusion_reason == ""
    assert listed_on_the_page(admin_client) == [(best.pk, 1), (runner_up.pk, 2)]


def test_an_anomaly_added_in_the_run_s_inline_takes_the_run_off_the_list(admin_client, two_runs):
    best, runner_up = two_runs
    url = f"/admin/results/run/{best.pk}/change/"
    data = submitted(admin_client, url)
    data.update(
        {
            "anomalies-TOTAL_FORMS": "1",
            "anomalies-0-rule": "bandwidth_unbelievable",
            "anomalies-0-severity": "error",
            "anomalies-0-message": "faster than the network",
        }
    )

    response = admin_client.post(url, data)

    assert response.status_code == 302
    best.refresh_from_db()
    assert best.exclusion_reason == "bandwidth_unbelievable: faster than the network"
    assert listed_on_the_page(admin_client) == [(runner_up.pk, 1)]


def test_a_run_s_phases_are_shown_in_the_admin_and_not_edited(admin_client):
    run = RunFactory()
    page = admin_client.get(f"/admin/results/run/{run.pk}/change/").content.decode()
    assert "ior_easy_write" in page
    assert 'name="phases-0-value"' not in page
    assert admin_client.get(f"/admin/results/phaseresult/{run.phases.first().pk}/change/").status_code == 200
    assert admin_client.post(f"/admin/results/phaseresult/{run.phases.first().pk}/change/", {}).status_code == 403
