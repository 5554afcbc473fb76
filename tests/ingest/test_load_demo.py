"""`make run`'s demo data: real IO500 runs for the lists and a DNE scaling series, so no page starts empty."""

import io
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.results.models import Run, ScalingSeries

pytestmark = pytest.mark.django_db

# The demo series is the repository's DNE test slice; its truth.json was produced with the campaign.
TRUTH = json.loads((Path(__file__).resolve().parents[1] / "data" / "mdtest" / "dne-campaign-slice" / "truth.json")
                   .read_text())
DEMO_LOGS = 20  # the rows of fixtures/dne-scaling-demo/manifest.csv: 5 MDT counts x 4 client counts


@pytest.fixture
def demo(settings, tmp_path) -> io.StringIO:
    """The demo loaded once; returns what the command wrote to stderr."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    errors = io.StringIO()
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
    knees = [count or reached for count, reached in
             re.findall(r"<strong>(\d+) MDTs?</strong>|(not reached)", detail)]
    assert knees == [str(knee["saturation_mdt_count"]) for knee in TRUTH["knees"]]


def test_loading_the_demo_twice_adds_nothing(demo):
    runs, points = Run.objects.count(), ScalingSeries.objects.get().points.count()

    call_command("load_demo", stdout=io.StringIO())

    assert runs > 0
    assert Run.objects.count() == runs
    assert ScalingSeries.objects.get().points.count() == points
