"""`make run` shows a parameter study: load_demo ingests fixtures/demo-ior-study, and again adds nothing."""

import io

import pytest
from django.core.management import call_command

from apps.ingest.management.commands.load_demo import DEMO_STUDY_NAME
from apps.results.models import Study

pytestmark = pytest.mark.django_db


def test_the_demo_includes_a_study_and_loading_it_twice_adds_nothing(client):
    call_command("load_demo", stdout=io.StringIO())
    study = Study.objects.get(name=DEMO_STUDY_NAME)
    assert study.points.count() == 36  # 18 logs (2 file systems x 6 hint sets x 2 node counts), write and read
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert "demo study: 0 IOR logs stored, 18 already present" in out.getvalue()
    assert client.get(f"/studies/{study.pk}/").status_code == 200
