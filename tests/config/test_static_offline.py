from django.contrib.staticfiles import finders

from apps.leaderboard.finders import PLOTLY_STATIC_PATH


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
