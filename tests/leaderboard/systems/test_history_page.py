"""The history page of a system, its link from the system page, and the Atom feeds of changes."""

import json
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Change, StorageSystem
from apps.results.services.changes.events import Event
from apps.results.services.changes.history import detect_all_changes, history_runs
from synth import small_history
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def stepper(tmp_path):
    small_history.write_all(tmp_path)
    ingest_path(tmp_path)
    detect_all_changes()
    return StorageSystem.objects.get(name="Stepper")


def test_the_system_page_links_to_its_history(client, stepper):
    assert f'href="/systems/{stepper.pk}/history/"' in client.get(f"/systems/{stepper.pk}/").content.decode()


def test_the_history_page_reads_its_runs_without_what_only_a_run_page_shows(client, stepper, django_assert_num_queries):
    """The system, its runs, their phases, tunables, stripings and patches, its changes and annotations: no
    anomalies, upload or files (building objects the page never reads was most of its time); of the phases,
    what the charts draw."""
    with django_assert_num_queries(4 + 4):
        assert client.get(f"/systems/{stepper.pk}/history/").status_code == 200
    runs = history_runs(stepper.pk)
    assert all("anomalies" not in run._prefetched_objects_cache for run in runs)
    assert {"details", "command", "source_file"} <= runs[0].phases.all()[0].get_deferred_fields()


def test_the_history_page_draws_every_metric_with_provenance_markers_and_the_step(
    client, stepper, django_assert_max_num_queries
):
    with django_assert_max_num_queries(12):
        page = client.get(f"/systems/{stepper.pk}/history/").content.decode()
    figures = {}
    for chunk in page.split('<script id="history-')[1:]:
        name, _, rest = chunk.partition('"')
        figures[name] = json.loads(rest.partition(">")[2].partition("</script>")[0])
    assert {"score", "score_bw", "score_md", "mdtest_easy_write", "ior_hard_read"} <= set(figures)
    upgrade = figures["mdtest_easy_write"]
    assert len(upgrade["layout"]["shapes"]) == 1  # one provenance change: the upgrade at the eighth run
    assert "2.15.4" in upgrade["layout"]["annotations"][0]["hovertext"]
    assert "LU-16338" in upgrade["layout"]["annotations"][0]["hovertext"]
    steps = [trace for trace in upgrade["data"] if trace["name"] == "steps"]
    assert steps
    assert steps[0]["marker"]["symbol"] == ["triangle-up"]
    assert not [trace for trace in figures["ior_hard_read"]["data"] if trace["name"] == "steps"]
    assert "Lustre 2.15.3 → 2.15.4" in page


def feed_entries(response) -> list:
    return ET.fromstring(response.content).findall(f"{ATOM}entry")  # noqa: S314 (our own feed's output)


def test_feeds_list_changes_site_wide_and_per_system(client, stepper):
    assert len(feed_entries(client.get("/changes/feed/"))) == Change.objects.count()
    own = feed_entries(client.get(f"/systems/{stepper.pk}/changes/feed/"))
    titles = [entry.find(f"{ATOM}title").text for entry in own]
    assert any("mdtest_easy_write step up" in title for title in titles)
    flat = StorageSystem.objects.get(name="Flat")
    assert feed_entries(client.get(f"/systems/{flat.pk}/changes/feed/")) == []


def test_export_changes_prints_the_documented_shape(stepper, capsys):
    call_command("export_changes", "--format", "json")
    records = json.loads(capsys.readouterr().out)
    step = next(r for r in records if r["metric"] == "mdtest_easy_write")
    assert set(step) == {
        "system",
        "metric",
        "kind",
        "direction",
        "magnitude_pct",
        "z",
        "p_value",
        "before_run",
        "after_run",
        "before_source",
        "after_source",
        "attribution",
        "status",
    }
    assert step["z"] > 4
    assert 0 < step["p_value"] < 1e-4
    assert step["system"] == {"institution": "Hand Lab", "system": "Stepper", "filesystem": "Lustre"}
    assert (step["kind"], step["direction"], step["status"]) == ("step", "up", "new")
    assert f"submission-{small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT}/" in step["after_source"]
    assert f"submission-{small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT - 1}/" in step["before_source"]
    assert all(set(entry) == {"field", "before", "after"} for entry in step["attribution"])


def test_one_event_is_one_row_with_its_metrics_beneath_and_a_meaningful_confidence(client, stepper):
    upgrade = Change.objects.filter(system=stepper, kind="step")
    assert upgrade.exists()
    assert len({(c.run_before_id, c.run_after_id) for c in upgrade}) == 1
    page = client.get(f"/systems/{stepper.pk}/history/").content.decode()
    events = page.split('<tbody id="event-')[1:]
    assert len(events) == 1
    event = events[0]
    assert "LU-16338" in event
    assert "2.15.4" in event
    assert all(f'id="change-{change.pk}"' in event for change in upgrade)
    step = upgrade.get(metric="mdtest_easy_write")
    assert f"{step.z:.1f}" in event
    assert "1.0000" not in page


def test_staff_triage_an_event_from_the_page_and_nobody_else_can(client, stepper):
    changes = list(Change.objects.filter(system=stepper, kind="step"))
    ids = ",".join(str(c.pk) for c in changes)
    url = f"/systems/{stepper.pk}/history/triage/"
    client.force_login(UserFactory())
    assert 'name="status"' not in client.get(f"/systems/{stepper.pk}/history/").content.decode()
    client.post(url, {"changes": ids, "status": "invalid"})
    assert set(Change.objects.filter(pk__in=[c.pk for c in changes]).values_list("status", flat=True)) == {"new"}
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    assert 'value="acknowledged"' in client.get(f"/systems/{stepper.pk}/history/").content.decode()
    response = client.post(url, {"changes": ids, "status": "acknowledged", "note": "Lustre 2.15.4 rollout"})
    assert response.status_code == 302
    triaged = Change.objects.filter(pk__in=[c.pk for c in changes])
    assert {(c.status, c.note, c.triaged_by_id) for c in triaged} == {
        ("acknowledged", "Lustre 2.15.4 rollout", staff.pk)
    }
    other = StorageSystem.objects.get(name="Flat")
    assert client.post(f"/systems/{other.pk}/history/triage/", {"changes": ids, "status": "invalid"}).status_code == 400
    assert client.post(url, {"changes": ids, "status": "gone"}).status_code == 400


def test_a_system_with_fewer_than_three_runs_has_an_empty_state_not_charts(client, tmp_path):
    small_history.write_all(tmp_path, runs=2)
    ingest_path(tmp_path)
    detect_all_changes()
    system = StorageSystem.objects.get(name="Stepper")
    page = client.get(f"/systems/{system.pk}/history/").content.decode()
    assert "has 2 IO500 runs" in page
    assert '<script id="history-' not in page


def test_a_change_of_client_nodes_is_labelled_as_another_configuration():
    nodes = {"field": "client_nodes", "before": "10", "after": "20"}
    tunable = {"field": "tunable:client: osc.*.max_pages_per_rpc", "before": "16M", "after": "4M"}
    assert Event("step", None, None, [tunable, nodes]).configuration == [nodes]
    assert Event("step", None, None, [tunable]).configuration == []
