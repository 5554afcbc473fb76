"""`make run`'s demo data: real IO500 runs for the lists, a DNE scaling series, a generated system's history with
production runs, an edition and a custom list, so no page starts empty."""

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.results.models import Change, CustomList, Edition, EditionEntry, ListEntry, Run, ScalingSeries, Stack
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.review import clause_outcomes

pytestmark = pytest.mark.django_db

# The demo series is the repository's DNE test slice; its truth.json was produced with the campaign.
TRUTH = json.loads(
    (Path(__file__).resolve().parents[1] / "data" / "mdtest" / "dne-campaign-slice" / "truth.json").read_text()
)
DEMO_LOGS = 20  # the rows of fixtures/dne-scaling-demo/manifest.csv: 5 MDT counts x 4 client counts
# What the history generator injected into the demo system (fixtures/demo-history/README.md).
HISTORY_TRUTH = json.loads(
    (Path(__file__).resolve().parents[2] / "fixtures" / "demo-history" / "truth.json").read_text()
)


@pytest.fixture
def demo(settings, tmp_path, celery_eager, django_capture_on_commit_callbacks) -> io.StringIO:
    """The demo loaded once, with the tasks its commits enqueue run (as `make run` runs them); returns what the
    command wrote to stderr."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    errors = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=io.StringIO(), stderr=errors)
    return errors


def test_the_demo_has_a_dne_scaling_series_with_its_points(demo):
    (series,) = ScalingSeries.objects.all()
    logs = {point.log_hash for point in series.points.all()}
    assert len(logs) == DEMO_LOGS
    assert sorted({point.mdt_count for point in series.points.all()}) == TRUTH["mdt_counts"]
    assert demo.getvalue() == ""


def test_the_scaling_page_lists_the_demo_series_and_its_saturation(demo, client):
    series = ScalingSeries.objects.get()

    listing = client.get("/scaling/").content.decode()
    detail = client.get(f"/scaling/{series.pk}/").content.decode()

    assert f'href="/scaling/{series.pk}/"' in listing
    assert "1–16" in listing
    knees = [count or reached for count, reached in re.findall(r"<strong>(\d+) MDTs?</strong>|(not reached)", detail)]
    assert knees == [str(knee["saturation_mdt_count"]) for knee in TRUTH["knees"]]


def test_loading_the_demo_twice_adds_nothing(demo):
    runs, points = Run.objects.count(), ScalingSeries.objects.get().points.count()

    call_command("load_demo", stdout=io.StringIO())

    assert runs > 0
    assert Run.objects.count() == runs
    assert ScalingSeries.objects.get().points.count() == points


def test_the_demo_history_shows_every_injected_step_and_the_outlier(demo, client):
    detected = {
        (change.kind, change.metric, change.run_after.submission_id, change.direction)
        for change in Change.objects.filter(system__name=HISTORY_TRUTH["system"]).select_related("run_after")
    }
    for step in HISTORY_TRUTH["steps"]:
        assert ("step", step["metric"], str(step["after_submission"]), step["direction"]) in detected, step
    for outlier in HISTORY_TRUTH["outliers"]:
        assert any(
            kind == "outlier" and metric == outlier["metric"] and submission == str(outlier["submission"])
            for kind, metric, submission, _ in detected
        ), outlier
    system = Change.objects.filter(system__name=HISTORY_TRUTH["system"]).first().system
    assert client.get(f"/systems/{system.pk}/history/").status_code == 200


def test_only_the_generated_system_is_on_the_production_lists(demo, client):
    accepted = Run.objects.filter(production_accepted=True).values_list("system__institution__name", flat=True)
    assert set(accepted) == {HISTORY_TRUTH["institution"]}
    assert HISTORY_TRUTH["institution"] in client.get("/lists/production/").content.decode()
    assert HISTORY_TRUTH["institution"] not in client.get("/lists/io500/").content.decode()


def test_the_demo_has_a_frozen_edition_with_awards_and_a_filled_custom_list(demo, client):
    assert Edition.objects.filter(name="demo").count() >= 4
    assert client.get("/editions/demo/awards/").status_code == 200
    custom = CustomList.objects.get()
    page = client.get(custom.get_absolute_url()).content.decode()
    assert "Being ranked" not in page
    assert custom.entry_count == Run.objects.filter(review_status="accepted").exclude(score_total=None).count()


def test_the_demo_has_a_stack_with_its_ceiling(demo, client):
    stack = Stack.objects.get(name="beacon")
    # the stack-sample README: ceiling read 13,295 MB/s and write 11,487 MB/s, both limited by storage
    assert stack.ceiling_read == pytest.approx(13295, rel=0.001)
    assert stack.ceiling_write == pytest.approx(11487, rel=0.001)
    assert stack.limited_by == {"read": "storage", "write": "storage"}
    assert client.get("/stacks/beacon/").status_code == 200


@pytest.mark.parametrize("kind", [slug for slug, kind in LIST_KINDS.items() if kind.track == "production"])
def test_the_demos_production_number_one_fails_no_submission_rule(demo, client, kind):
    top = ListEntry.objects.filter(kind=kind, ranked=True).order_by("-score").select_related("run").first()
    assert top is not None, f"the demo's {kind} list is empty"

    _, outcomes = clause_outcomes(top.run)
    failing = {outcome.clause.id: outcome.detail for outcome in outcomes if outcome.outcome == "fail"}

    assert outcomes
    assert failing == {}
    assert "IO500-APP-VERSION" in {outcome.clause.id for outcome in outcomes if outcome.outcome == "pass"}


def test_the_demo_holds_the_published_record_linked_to_its_public_submissions(demo, client):
    published = Edition.objects.filter(source=Edition.Source.PUBLISHED)
    assert published.count() == 26  # every list io500.org published, SC17 to ISC21
    wolf = EditionEntry.objects.get(edition__in=published, edition__name="SC19", edition__list_kind="io500", rank=2)
    assert (wolf.submission_number, wolf.system_name) == (4, "Wolf")  # io500.org's SC19 list: Intel's Wolf second
    assert wolf.run.source_path.startswith("Intel/Wolf/DAOS/2019/submission-4/")
    run_page = client.get(f"/runs/{wolf.run_id}/").content.decode()
    assert "#2 on the SC19 IO500 list" in run_page
    assert 'href="/published/SC19/"' in client.get("/editions/").content.decode()
    assert demo.getvalue() == ""
