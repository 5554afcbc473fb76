"""A system's runs are paged, on its page and in the API: their cost does not grow with what was uploaded."""

import pytest

from apps.api.systems import views as api_views
from apps.leaderboard.systems import views
from apps.results.models import Run
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def system_of_five_runs(monkeypatch):
    system = StorageSystemFactory()
    runs = [RunFactory(system=system, phases=False, year=2020 + n, score_bw=10 + n) for n in range(5)]
    return system, runs


def shown_runs(response) -> list[int]:
    return [run.pk for run in response.context["runs"]]


def test_the_system_page_shows_one_page_of_runs_newest_first(client, system_of_five_runs, monkeypatch):
    monkeypatch.setattr(views, "SYSTEM_RUNS_PER_PAGE", 2)
    system, runs = system_of_five_runs
    newest_first = [run.pk for run in reversed(runs)]

    pages = [client.get(f"/systems/{system.pk}/?page={n}") for n in (1, 2, 3)]

    assert [shown_runs(page) for page in pages] == [newest_first[:2], newest_first[2:4], newest_first[4:]]
    html = pages[0].content.decode()
    assert "Runs (5)" in html
    assert 'href="?page=2" rel="next"' in html


def test_the_timeline_charts_at_most_the_newest_runs(client, system_of_five_runs, monkeypatch):
    monkeypatch.setattr(views, "SYSTEM_TIMELINE_RUNS", 3)
    system, runs = system_of_five_runs

    chart = client.get(f"/systems/{system.pk}/").context["chart"]

    charted = sorted(pk for trace in chart["data"] for pk in trace["customdata"])
    assert charted == sorted(run.pk for run in runs[2:])


def test_the_api_system_detail_holds_its_best_runs_and_counts_them_all(client, system_of_five_runs, monkeypatch):
    monkeypatch.setattr(api_views, "SYSTEM_DETAIL_RUNS", 2)
    system, runs = system_of_five_runs
    assert Run.objects.filter(system=system).count() == 5

    detail = client.get(f"/api/v1/systems/{system.pk}/").json()

    assert [run["id"] for run in detail["runs"]] == [runs[4].pk, runs[3].pk]
    assert detail["run_count"] == 5
