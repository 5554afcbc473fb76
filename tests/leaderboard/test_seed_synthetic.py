"""manage.py seed_synthetic: realistic synthetic runs for benchmarks and demos, and their removal."""

from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from apps.results.models import Anomaly, ListEntry, LustrePatch, PhaseResult, Run, StorageSystem, Tunable

pytestmark = pytest.mark.django_db


def test_it_makes_realistic_runs_with_bulk_inserts(django_assert_max_num_queries):
    with django_assert_max_num_queries(400):  # batched inserts: fewer queries than runs (a run has 12 phases)
        call_command("seed_synthetic", "--runs", "400", "--batch", "200")
    runs = Run.objects.filter(submission_id="synthetic")
    assert runs.count() == 400
    assert PhaseResult.objects.count() == 400 * 12
    assert 0.25 < runs.filter(client_nodes=10).count() / 400 < 0.45
    assert runs.filter(flagged=True).exists()
    assert runs.exclude(exclusion_reason="").exists()
    assert Anomaly.objects.filter(severity="error").exists()
    assert Tunable.objects.exists()
    assert LustrePatch.objects.exists()
    assert runs.filter(system__filesystem="Lustre", lustre_build__isnull=True).count() == 0
    assert StorageSystem.objects.filter(server_count__isnull=False).exists()
    research = Run.objects.eligible().filter(review_status="accepted", production_accepted=False)
    assert (
        ListEntry.objects.filter(kind="io500").count()
        == StorageSystem.objects.filter(runs__in=research).distinct().count()
    )


def test_some_systems_submit_to_the_production_lists():
    call_command("seed_synthetic", "--runs", "400")
    production = Run.objects.filter(production_accepted=True)
    assert 0.02 < production.count() / 400 < 0.3
    assert not production.exclude(reproducibility_level="fully_reproducible").exists()
    assert not production.filter(run_timestamp__lt=datetime(2021, 11, 1, tzinfo=UTC)).exists()  # split at SC21
    assert production.first().reproducibility["production"]["no_single_point_of_failure"] is True
    listed = ListEntry.objects.filter(kind="production")
    assert listed.exists()
    assert not listed.exclude(run__production_accepted=True).exists()


def test_the_same_seed_gives_the_same_data_and_replace_starts_over():
    call_command("seed_synthetic", "--runs", "50", "--seed", "7")
    first = sorted(Run.objects.values_list("score_total", flat=True))
    call_command("seed_synthetic", "--runs", "30", "--seed", "7", "--replace")
    assert Run.objects.count() == 30
    call_command("seed_synthetic", "--runs", "50", "--seed", "7", "--replace")
    assert sorted(Run.objects.values_list("score_total", flat=True)) == first


def test_seeding_again_adds_runs_without_clashing():
    call_command("seed_synthetic", "--runs", "20")
    call_command("seed_synthetic", "--runs", "20")
    assert Run.objects.count() == 40
