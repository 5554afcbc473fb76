from django.contrib.staticfiles import finders

from apps.leaderboard.common.finders import PLOTLY_STATIC_PATH
from tests.pages import cdn_hosts


def test_plotly_js_is_served_from_the_installed_wheel():
    found = finders.find(PLOTLY_STATIC_PATH)
    assert found
    assert found.endswith("plotly/package_data/plotly.min.js")


def test_templates_reference_no_cdn():
    from tests.conftest import REPO_ROOT

    for template in (REPO_ROOT / "templates").rglob("*.html"):
        text = template.read_text()
        for cdn in ("cdn.", "unpkg.com", "jsdelivr", "cdnjs", "googleapis"):
            assert cdn not in text, f"{template} loads from a CDN ({cdn})"


def test_a_random_token_that_spells_cdn_is_not_a_cdn():
    page = '<script>const token = "ve63wfrlhgcdnkgkew81ahjbl";</script><script src="/static/app.js"></script>'
    assert cdn_hosts(page) == set()


def test_a_script_from_a_package_cdn_is_found():
    page = '<script src="https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"></script>'
    assert cdn_hosts(page) == {"cdn.jsdelivr.net"}
