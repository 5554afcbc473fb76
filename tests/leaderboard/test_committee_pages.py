"""The pages of the research/production lists: the rename said on the list, awards, citations, compare warnings."""

from datetime import UTC, datetime

import pytest

from apps.results.judgements.anomalies import RunFacts
from apps.results.models import RulesEdition
from apps.results.services.editions import freeze_lists
from tests.factories import RunFactory

pytestmark = pytest.mark.django_db

AFTER_SPLIT = datetime(2025, 6, 1, tzinfo=UTC)


def production_run(**fields):
    return RunFactory(
        run_timestamp=AFTER_SPLIT, reproducibility_level="fully_reproducible", production_accepted=True, **fields
    )


def test_the_research_list_says_it_was_the_io500_list_before_the_split(client):
    html = client.get("/lists/io500/").content.decode()
    assert "<h1>Research list</h1>" in html
    assert "Before SC21" in html
    assert "IO500 list" in html
    assert client.get("/lists/research/?page=2").url == "/lists/io500/?page=2"
    assert client.get("/lists/production/").status_code == 200


def test_the_awards_page_lists_twelve_awards(client):
    research = RunFactory(score_bw=50, score_md=50)
    production = production_run(score_bw=10, score_md=10)
    freeze_lists("SC25")
    html = client.get("/editions/SC25/awards/").content.decode()
    assert html.count("<tr><td>") == 12
    assert f"/runs/{research.pk}/" in html
    assert f"/runs/{production.pk}/" in html
    assert client.get("/editions/NOPE/awards/").status_code == 404


def test_the_run_page_offers_its_citation_with_the_verification_label(client):
    run = production_run(verification="hash_mismatch")
    freeze_lists("SC25")
    html = client.get(f"/runs/{run.pk}/").content.decode()
    assert '<q>#1 on the Production list at SC25</q> <span class="badge warn">unverified</span>' in html


def test_the_compare_page_warns_when_lists_are_mixed(client):
    research, production = RunFactory(), production_run()
    html = client.get(f"/compare/?runs={research.pk},{production.pk}").content.decode()
    assert 'id="list-warning"' in html
    same = client.get(f"/compare/?runs={research.pk},{RunFactory().pk}").content.decode()
    assert 'id="list-warning"' not in same


def test_the_admin_shows_the_questionnaire_and_the_completeness(admin_client):
    run = RunFactory(reproducibility={"questionnaire": {"trust": "we trust these numbers"}, "target_level": "limited"})
    html = admin_client.get(f"/admin/results/run/{run.pk}/change/").content.decode()
    assert "Fault tolerance" in html
    assert "we trust these numbers" in html
    assert "proposed undefined (target limited, assigned undefined)" in html


def test_the_admin_shows_the_rule_clauses_of_a_run_and_of_a_rules_edition(admin_client):
    run = RunFactory(facts=RunFacts(era="capp", benchmark_version="io500-sc23_v1", run_date="2023-10-25").to_dict())
    html = admin_client.get(f"/admin/results/run/{run.pk}/change/").content.decode()
    assert "edition sc23" in html
    assert "<b>IO500-NO-SPOF</b> not_checkable" in html
    rules = RulesEdition.objects.create(name="sc23", since=datetime(2023, 6, 1).date())
    html = admin_client.get(f"/admin/results/rulesedition/{rules.pk}/change/").content.decode()
    assert "<b>IO500-NO-SPOF</b> (not checkable)" in html
