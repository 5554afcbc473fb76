"""A new submitter in Chromium, at a desktop and a phone width: sign up, confirm from the mail, sign in, make an
API token, upload the sample IO500 submission with its questionnaire, watch it finish, read its run and where it
would place, withdraw it. No page scrolls sideways and none logs an error (the CSP refuses inline script)."""

import re

import pytest
from django.core import mail
from django.core.cache import cache
from playwright.sync_api import expect

from tests.api.uploading import DEMO_SUBMISSION, tar_gz_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
PASSWORD = "a sturdy pass phrase 42"


def fits(page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"


@pytest.mark.parametrize("width", [1400, 420])
@pytest.mark.usefixtures("celery_eager")
def test_a_new_submitter_signs_up_uploads_and_withdraws(live_server, page, console_errors, width, tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    cache.clear()  # allauth counts mails per address there: the other width's sign-up is not this one's
    archive = tmp_path / "submission-8.tgz"
    archive.write_bytes(tar_gz_of(DEMO_SUBMISSION))
    page.set_viewport_size({"width": width, "height": 900})

    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="Sign up").click()
    page.get_by_label("Email").fill("ada@example.org")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again)").fill(PASSWORD)
    fits(page)
    page.get_by_role("button", name="Sign up").click()
    expect(page.get_by_role("heading", name="Check your mail")).to_be_visible()

    link = re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", mail.outbox[-1].body).group(1)
    page.goto(f"{live_server.url}{link}")
    page.get_by_role("button", name="Confirm").click()
    page.goto(f"{live_server.url}/accounts/login/")
    page.get_by_label("User name or email").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    page.get_by_role("link", name="Account").click()
    page.get_by_role("link", name="API tokens").click()
    page.get_by_label("Name").fill("laptop")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token")).to_have_text(re.compile(r"^[0-9a-f]{40}$"))
    fits(page)

    page.get_by_role("link", name="Upload", exact=True).click()
    page.get_by_label("Result archive").set_input_files(str(archive))
    page.get_by_label("System purpose").fill("a research file system for checkpoints of simulations at scale")
    page.get_by_label("Target list").select_option("research")
    fits(page)
    page.get_by_role("button", name="Upload").click()

    expect(page.get_by_text("Status: Done")).to_be_visible()
    expect(page.get_by_role("link", name=re.compile(r"^\/runs\/\d+\/$"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"would place #1 on the Research list as of today, unverified"))).to_be_visible()
    fits(page)
    page.get_by_role("button", name="Withdraw").click()
    expect(page.get_by_role("heading", name="My submissions")).to_be_visible()
    expect(page.get_by_text("review: Withdrawn")).to_be_visible()
    fits(page)
    assert console_errors == []
