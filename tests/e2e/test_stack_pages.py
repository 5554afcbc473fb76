"""Stack pages in Chromium at a desktop and a phone width: the layer charts render, nothing overflows the
window, the outliers and the over-ceiling runs are marked, and two stacks compare side by side."""

from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CAMPAIGN = Path(__file__).resolve().parents[1] / "data" / "stack" / "beacon-io2"
WIDTHS = (1400, 420)


@pytest.fixture
def stacks():
    call_command("ingest", "--kind", "stack", str(CAMPAIGN), "--name", "beacon-io2")
    call_command("ingest", "--kind", "stack", str(CAMPAIGN), "--name", "beacon-io2-again")


def overflow(page) -> int:
    """How many CSS pixels the page is wider than the window (0 when it fits)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.parametrize("width", WIDTHS)
def test_a_stack_page_draws_its_layers_and_fits_the_window(live_server, page, console_errors, stacks, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{live_server.url}/stacks/")
    page.get_by_role("link", name="beacon-io2", exact=True).click()
    expect(page.locator("h1")).to_have_text("Stack beacon-io2")
    for operation in ("read", "write"):
        chart = page.locator(f".plotly-chart[data-figure='fig-stack-{operation}']")
        expect(chart).to_have_attribute("data-rendered", "true")
        expect(chart.locator(".trace.bars")).to_have_count(2)  # expected and measured
    expect(page.locator("#ceiling")).to_contain_text("over the ceiling")
    expect(page.locator("#same-drives")).to_contain_text("io2-ost0pool")
    assert overflow(page) <= 0
    page.goto(f"{live_server.url}/stacks/compare/?a=beacon-io2&b=beacon-io2-again")
    expect(page.locator(".stack-column")).to_have_count(2)
    assert overflow(page) <= 0
    assert console_errors == []
