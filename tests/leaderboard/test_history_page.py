"""The history page of a system, its link from the system page, and the Atom feeds of changes."""

import json
import xml.etree.ElementTree as ET

import pytest
from django.core.management import call_command

from apps.ingest.pipelines.io500 import ingest_path
from apps.results.changes.services import detect_all_changes
from apps.results.models import Change, StorageSystem
from tests.results import small_history

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


def test_the_history_page_draws_every_metric_with_provenance_markers_and_the_step(client, stepper,
                                                                                  django_assert_max_num_queries):
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
    assert set(step) == {"system", "metric", "kind", "direction", "magnitude_pct", "before_run", "after_run",
                         "before_source", "after_source", "attribution", "status"}
    assert step["system"] == {"institution": "Hand Lab", "system": "Stepper", "filesystem": "Lustre"}
    assert (step["kind"], step["direction"], step["status"]) == ("step", "up", "new")
    assert f"submission-{small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT}/" in step["after_source"]
    assert f"submission-{small_history.FIRST_SUBMISSION + small_history.UPGRADE_AT - 1}/" in step["before_source"]
    assert all(set(entry) == {"field", "before", "after"} for entry in step["attribution"])
