"""Playwright on Debian's Chromium (never `playwright install`: browsers are not downloaded).

The sync Playwright API keeps an event loop running in the test thread from the moment it starts
until the end of the session, so Django's async-safety check must be told that ORM calls made in
that thread are fine (DJANGO_ALLOW_ASYNC_UNSAFE). The variable is set only once Playwright starts,
and browser tests run last, so no other test runs beside the loop or inherits the variable (a
subprocess running `manage.py check --deploy` would refuse it).
"""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

# Charts render in the browser after Plotly's bundle loads; on a loaded 2-CPU CI machine that can take
# longer than Playwright's 5 s default, which is about speed, not about whether the chart renders.
expect.set_options(timeout=20_000)

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Browser tests after every other test (a stable sort: the others keep pytest-django's order)."""
    items.sort(key=lambda item: item.get_closest_marker("e2e") is not None)


@pytest.fixture(scope="session")
def playwright(playwright):
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield playwright
    if previous is None:
        del os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"]
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is absent (apt-get install chromium)")
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture
def console_errors(page):
    """Every console error and uncaught exception of the page; a test ends by asserting it is empty."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("dialog", lambda dialog: errors.append(f"unexpected dialog: {dialog.message}") or dialog.dismiss())
    return errors
