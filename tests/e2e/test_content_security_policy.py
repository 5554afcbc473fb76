"""Every kind of page runs under the Content-Security-Policy in Chromium without one violation.

The policy (config/settings.py `CONTENT_SECURITY_POLICY`) allows scripts, styles, fonts and images from this
site only, with no inline script and no eval; Plotly is served from the installed wheel. A page that inlines a
script, loads a remote asset or has its charts build styles the policy refuses fails here: the browser reports
each refusal as a `securitypolicyviolation` event, collected before any page script runs.
"""

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.leaderboard.common.finders import PLOTLY_CSS_STATIC_PATH
from apps.results.models import ScalingSeries, Study
from apps.results.services.editions import freeze_edition
from tests.conftest import REPO_ROOT
from tests.e2e.plotly_css import injected_rules, stylesheet
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory, UserFactory

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DATA = Path(__file__).resolve().parents[1] / "data"

COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__cspViolations.push(event.violatedDirective + " blocked " + (event.blockedURI || "inline")
                              + " at " + event.sourceFile + ":" + event.lineNumber);
});
"""


@pytest.fixture
def every_kind_of_page(tmp_path):
    """One page of each kind, with data that makes it draw its charts."""
    system = StorageSystemFactory(name="Data Accelerator")
    first = RunFactory(system=system, score_bw=120.5, score_md=1103.7)
    second = RunFactory(system=system, score_bw=162.1, score_md=2377.4)
    AnomalyFactory(run=second, rule="cache_effect_stat")
    RunFactory(system=StorageSystemFactory(name="Summit"), score_bw=88.2, score_md=1238.9)
    freeze_edition("ISC19", "io500", title="ISC High Performance 2019")
    shutil.copytree(DATA / "mdtest" / "dne-campaign-slice", tmp_path / "dne")
    assert not ingest_mdtest_paths([tmp_path / "dne"], series_name="dne").failed
    ingest_ior_paths([DATA / "ior" / "study-slice"], study_name="hints")
    series, study = ScalingSeries.objects.get(), Study.objects.get(name="hints")
    call_command("ingest", "--kind", "stack", str(DATA / "stack" / "beacon-io2"), "--name", "beacon-io2")
    return [
        "/",
        "/lists/io500/",
        "/lists/ten-node/",
        "/lists/historic/?sort=-bw",
        "/editions/",
        "/editions/ISC19/",
        "/editions/ISC19/awards/",
        f"/runs/{second.pk}/",
        f"/systems/{system.pk}/",
        f"/systems/{system.pk}/history/",
        f"/compare/?runs={second.pk}&runs={first.pk}",
        "/scaling/",
        f"/scaling/{series.pk}/",
        "/studies/",
        f"/studies/{study.pk}/",
        "/stacks/",
        "/stacks/beacon-io2/",
        "/stacks/compare/?a=beacon-io2&b=beacon-io2",
        "/systems/",
        "/compare/",
        "/api/v1/docs/",
        "/api/v1/runs/",
        "/admin/login/",
    ]


def violations_on(page, url: str) -> list[str]:
    response = page.goto(url)
    assert response.status == 200, url
    assert "default-src 'self'" in response.headers["content-security-policy"], url
    page.wait_for_load_state("networkidle")
    for chart in page.locator(".plotly-chart[data-figure]").all():
        expect(chart).to_have_attribute("data-rendered", "true")
    return page.evaluate("window.__cspViolations")


def test_every_kind_of_page_runs_under_the_policy_without_a_violation(live_server, page, every_kind_of_page):
    page.add_init_script(COLLECT_VIOLATIONS)
    found = {url: violations_on(page, f"{live_server.url}{url}") for url in every_kind_of_page}
    refused = {url: seen for url, seen in found.items() if seen}
    assert not refused, "\n".join(f"{url}: {seen}" for url, seen in refused.items())


def test_redoc_runs_under_the_policy_and_is_refused_only_its_remote_logo(live_server, page):
    """Redoc's bundle shows a logo from cdn.redoc.ly in its sidebar: the policy keeps the page off the network."""
    page.add_init_script(COLLECT_VIOLATIONS)
    seen = violations_on(page, f"{live_server.url}/api/v1/redoc/")
    expect(page.locator("#redoc-container, redoc").first).to_contain_text("ioboard API")
    assert [violation.split(" at ")[0] for violation in seen] == [
        "img-src blocked https://cdn.redoc.ly/redoc/logo-mini.svg"
    ]


def test_the_signed_in_admin_runs_under_the_policy_without_a_violation(live_server, page):
    staff = UserFactory(is_staff=True, is_superuser=True)
    page.context.add_cookies([{"name": "sessionid", "value": _session_for(staff), "url": live_server.url}])
    page.add_init_script(COLLECT_VIOLATIONS)
    for url in ("/admin/", "/admin/results/run/"):
        assert violations_on(page, f"{live_server.url}{url}") == [], url


def test_an_inline_script_is_refused(live_server, page, console_errors):
    """The check above can fail: a script written into a page by hand is refused and reported."""
    page.add_init_script(COLLECT_VIOLATIONS)
    page.goto(f"{live_server.url}/lists/io500/")
    page.evaluate("""() => { const s = document.createElement("script"); s.textContent = "window.ran = 1";
                             document.body.appendChild(s); }""")
    assert page.evaluate("window.ran") is None
    assert any(seen.startswith("script-src") for seen in page.evaluate("window.__cspViolations"))


def _session_for(user) -> str:
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.save()
    return session.session_key


def test_the_linked_plotly_stylesheet_holds_what_the_installed_plotly_would_inject(page):
    """static/vendor/plotly/plotly.css stands in for the styles plotly.js builds at run time; after an upgrade
    of plotly, regenerate it (tests/e2e/plotly_css.py) or charts lose their modebar and hover styles."""
    committed = (REPO_ROOT / "static" / PLOTLY_CSS_STATIC_PATH).read_text()
    assert committed == stylesheet(injected_rules(page))
