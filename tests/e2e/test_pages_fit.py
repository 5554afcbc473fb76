"""Every page type in Chromium at 1,400 px and at 420 px: the page never scrolls sideways (wide tables scroll in
their own container), the console stays clean, and list headers show their units."""

import pytest
from playwright.sync_api import expect

from apps.ingest.published.corrections import EMPTY_STRING_AS_ZERO, Correction
from apps.ingest.published.importer import import_published
from apps.results.models import Study
from apps.results.services.custom_lists import save_custom_list
from apps.results.services.editions import freeze_lists
from tests.conftest import TEST_DATA
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTHS = (1400, 420)


@pytest.fixture
def site():
    """Systems with long names and institutions (what overflows first), a flagged run, an edition, a custom list,
    the miniature published record with one entry linked to its run."""
    system = StorageSystemFactory(
        name="Future Technology Platform",
        server_count=24,
        institution__name="Mississippi State University High Performance Computing Collaboratory",
    )
    first = RunFactory(system=system, score_bw=163.19, score_md=3322.4, client_nodes=10)
    second = RunFactory(system=system, score_bw=150.0, score_md=3000.0, client_nodes=20)
    AnomalyFactory(run=first, rule="cache_effect_stat")
    for index in range(8):
        RunFactory(system=StorageSystemFactory(name=f"Frontera {index}"), score_bw=10.0 + index, score_md=400.0)
    freeze_lists("fit", ["io500"])
    custom = save_custom_list("fit", "sqrt(bw * md)", "full")
    study = Study.objects.create(name="fit study")
    import_published(
        TEST_DATA / "published_sql",
        ["01-dump.sql", "02-lists.sql", "03-fixes.sql"],
        [Correction("02-lists.sql", 0, "'' in an integer column", accepts=EMPTY_STRING_AS_ZERO)],
    )
    RunFactory(source_path="WekaIO/WekaIO on AWS/WekaIO/2019/submission-3", score_bw=150.0, score_md=5045.33)
    return {"run": first, "other": second, "system": system, "custom": custom, "study": study}


def page_urls(site) -> list[str]:
    run, other, system = site["run"], site["other"], site["system"]
    return [
        "/",
        "/lists/io500/",
        "/lists/full/",
        "/lists/historic/",
        "/editions/",
        "/editions/fit/",
        "/editions/fit/awards/",
        "/published/SC19/",
        "/published/SC19/changes/",
        "/published/SC19/io500/audit/",
        "/published/audit/",
        f"/runs/{run.pk}/",
        "/systems/",
        f"/systems/{system.pk}/",
        f"/systems/{system.pk}/history/",
        "/compare/",
        f"/compare/?runs={run.pk},{other.pk}",
        "/scaling/",
        "/studies/",
        f"/lists/custom/{site['custom'].token}/",
        "/accounts/login/",
    ]


@pytest.mark.parametrize("width", WIDTHS)
def test_no_page_scrolls_sideways_and_none_logs_an_error(live_server, page, console_errors, site, width):
    page.set_viewport_size({"width": width, "height": 900})
    for url in page_urls(site):
        page.goto(f"{live_server.url}{url}")
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{url} at {width} px is {overflow} px wider than the window"
        assert console_errors == [], f"{url} at {width} px: {console_errors}"


@pytest.mark.parametrize("width", WIDTHS)
def test_list_headers_show_their_units_and_rank_system_and_score_stay_in_view(
    live_server, page, console_errors, site, width
):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/lists/io500/")
    for label in ("BW (GiB/s)", "MD (kIOPS)"):
        expect(page.locator("#list-table th", has_text=label)).to_be_visible()
    first_row = page.locator("#list-table tbody tr").first
    for cell in ("td.rank", "td.system", "td.score"):
        box = first_row.locator(cell).bounding_box()
        assert box is not None, f"{cell} is hidden at {width} px"
        assert box["x"] + box["width"] <= width, f"{cell} is out of view at {width} px"
    expect(first_row.locator("td.rank")).to_have_text("#1")
    assert console_errors == []


def test_the_column_chooser_shows_the_per_server_columns(live_server, page, console_errors, site):
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/lists/io500/")
    header = page.locator("#list-table th", has_text="BW per server (GiB/s)")
    expect(header).to_be_hidden()
    page.get_by_text("Columns").click()
    page.locator("#show-per-server").check()
    expect(header).to_be_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0  # the wider table scrolls inside its container
    assert console_errors == []
