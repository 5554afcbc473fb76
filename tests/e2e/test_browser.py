"""The leaderboard in a real browser: load a list, sort it, open a run, find its chart, compare two runs."""

import re

import pytest
from playwright.sync_api import expect

from apps.results.models import PhaseResult
from tests.factories import AnomalyFactory, LustrePatchFactory, RunFactory, StorageSystemFactory, TunableFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def leaderboard():
    """Three systems; the top one has two runs that differ in a patch and a tunable."""
    top = StorageSystemFactory(name="Data Accelerator", institution__name="University of Cambridge")
    may = RunFactory(
        system=top,
        score_bw=120.47,
        score_md=1103.69,
        client_nodes=502,
        lustre_build=LustrePatchFactory(ticket="LU-11518").build,
    )
    june = RunFactory(
        system=top,
        score_bw=162.05,
        score_md=2377.44,
        client_nodes=512,
        lustre_build=LustrePatchFactory(ticket="LU-12325").build,
    )
    TunableFactory(run=june, parameter="ldlm.namespaces.*.lru_size", value="4000000")
    AnomalyFactory(run=june, rule="cache_effect_stat")
    PhaseResult.objects.filter(run=june, name="mdtest_easy_stat").update(value=183233.0)
    RunFactory(system=StorageSystemFactory(name="Summit"), score_bw=88.20, score_md=1238.93)
    RunFactory(system=StorageSystemFactory(name="Oakforest-PACS"), score_bw=492.06, score_md=154.41)
    return may, june


def test_a_reader_sorts_the_list_opens_a_run_and_sees_its_chart(live_server, page, console_errors, leaderboard):
    _may, june = leaderboard
    page.goto(f"{live_server.url}/lists/io500/")
    rows = page.locator("#list-table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.first).to_contain_text("Data Accelerator")

    page.locator("#list-table th[data-column='bw'] a").click()
    expect(page).to_have_url(re.compile(r"sort=-bw"))
    expect(rows.first).to_contain_text("Oakforest-PACS")
    expect(page.locator("#list-table th[data-column='bw']")).to_have_attribute("aria-sort", "descending")
    expect(page.locator("#list-table tbody tr", has_text="Data Accelerator").locator("td.rank")).to_have_text("#1")

    page.locator("#list-table tbody tr", has_text="Data Accelerator").locator("td.run a").click()
    expect(page).to_have_url(re.compile(rf"/runs/{june.pk}/$"))
    expect(page.locator("h1")).to_contain_text(f"Data Accelerator, 2024 · run {june.pk}")
    chart = page.locator(".plotly-chart[data-figure='phase-chart']")
    expect(chart).to_have_attribute("data-rendered", "true")
    expect(chart.locator(".main-svg").first).to_be_visible()
    expect(chart.locator(".trace.bars")).to_have_count(4)  # this run and the median, in a GiB/s and a kIOPS panel
    assert console_errors == []


def test_a_reader_compares_two_runs_of_a_system(live_server, page, console_errors, leaderboard):
    may, june = leaderboard
    page.goto(f"{live_server.url}/lists/historic/")
    page.locator(f"input[name='runs'][value='{may.pk}']").check()
    page.locator(f"input[name='runs'][value='{june.pk}']").check()
    page.get_by_role("button", name="Compare selected runs").click()
    expect(page).to_have_url(re.compile(rf"/compare/\?runs={june.pk}&runs={may.pk}$"))  # list order: best first
    expect(page.locator("#why")).to_contain_text(f"run {may.pk} against the baseline run {june.pk}")
    expect(page.locator("#why")).to_contain_text("Lustre patches: 1 removed, 1 added")
    expect(page.locator("#why")).to_contain_text("Tunables: client: ldlm.namespaces.*.lru_size")
    expect(page.locator("table.diff[data-section='patches']")).to_contain_text("LU-12325")
    expect(page.locator(".plotly-chart[data-figure='compare-chart']")).to_have_attribute("data-rendered", "true")
    assert console_errors == []


def test_a_hostile_system_name_is_text_in_the_browser(live_server, page, console_errors):
    hostile = RunFactory(system=StorageSystemFactory(name="<script>alert(1)</script>"))
    for url in ("/lists/io500/", f"/runs/{hostile.pk}/", f"/systems/{hostile.system_id}/"):
        page.goto(f"{live_server.url}{url}")
        expect(page.get_by_text("<script>alert(1)</script>").first).to_be_visible()
    expect(page.locator(".plotly-chart[data-figure='timeline-chart']")).to_have_attribute("data-rendered", "true")
    assert console_errors == []
