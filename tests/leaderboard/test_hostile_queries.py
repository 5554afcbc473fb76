"""Hostile query strings over every page type: each is answered (200, or 400 with a message on the page, or 404),
never with a 500, and input a page cannot use is never ignored silently."""

import pytest

from apps.results.models import Study
from apps.results.services.editions import freeze_lists
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

HOSTILE = [
    "page=abc",
    "page=-1",
    "page=99999999999999999999",
    "sort=zzz",
    "sort=-",
    "per_page=-5",
    "year=1e99",
    "nodes_min=99999999999999999999",
    "nodes_max=-3",
    "search=%25%27%22%3Cscript%3E",
    "q=%27%20OR%201%3D1",
    "runs=abc,def",
    "runs=99999999999999999999,1",
    "runs=1,1,1",
    "operation=rm%20-rf",
    "columns=%00",
    "search=%00",
    "q=%00",
    "filesystem=" + "x" * 5000,
    "threshold=NaN",
    "compare=abc",
    "equation=((((((",
]


@pytest.fixture
def site():
    run = RunFactory(system=StorageSystemFactory(name="Frontera"))
    other = RunFactory(system=run.system)
    freeze_lists("sweep", ["io500"])
    study = Study.objects.create(name="sweep study")
    return {"run": run, "other": other, "study": study}


def pages(site) -> list[str]:
    run, system = site["run"], site["run"].system_id
    return [
        "/",
        "/lists/io500/",
        "/lists/historic/",
        "/lists/io500/export.csv",
        "/editions/",
        "/editions/sweep/",
        "/editions/sweep/io500/",
        "/editions/sweep/awards/",
        f"/runs/{run.pk}/",
        "/systems/",
        f"/systems/{system}/",
        f"/systems/{system}/history/",
        "/compare/",
        f"/compare/?runs={run.pk},{site['other'].pk}",
        "/scaling/",
        "/studies/",
        f"/studies/{site['study'].pk}/",
        "/lists/custom/check/",
    ]


def test_no_hostile_query_string_is_a_server_error(client, site):
    for url in pages(site):
        for query in HOSTILE:
            joined = f"{url}{'&' if '?' in url else '?'}{query}"
            response = client.get(joined)
            assert response.status_code in (200, 400, 404), (joined, response.status_code)
            if response.status_code == 400 and not joined.startswith("/lists/custom/check/"):
                assert b'class="notice error"' in response.content or b"form-errors" in response.content, joined


@pytest.mark.parametrize("query", ["runs=abc,def", "runs=99999999999999999999,1", "runs=0,1", "runs=1"])
def test_compare_refuses_ids_that_are_no_run_ids_with_a_message(client, query):
    response = client.get(f"/compare/?{query}")
    assert response.status_code == 400
    assert b'class="notice error"' in response.content


@pytest.mark.parametrize(
    ("query", "at_fault"), [("search=%00", "search"), ("q=a%00b", "q"), ("x" * 10 + "=" + "y" * 5000, "query")]
)
def test_nul_characters_and_very_long_query_strings_are_refused_on_pages_and_the_api(client, query, at_fault):
    page = client.get(f"/lists/io500/?{query}")
    assert page.status_code == 400
    assert b'class="notice error"' in page.content
    api = client.get(f"/api/v1/runs/?{query}")
    assert api.status_code == 400
    assert list(api.json()) == [at_fault]  # the API's 400s name the field at fault


def test_an_unknown_page_is_the_sites_styled_404(client, settings):
    settings.DEBUG = False
    response = client.get("/runs/99999999/")
    assert response.status_code == 404
    html = response.content.decode()
    assert '<header class="site-header">' in html
    assert "Not found" in html
