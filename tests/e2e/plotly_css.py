"""The global styles the installed plotly.js injects, read from Chromium: the source of static/vendor/plotly/plotly.css.

    .venv/bin/python -m tests.e2e.plotly_css > static/vendor/plotly/plotly.css

plotly.js builds these rules in a <style> element when it draws its first chart, which a Content-Security-Policy
without inline styles refuses; the page links them as a file instead. Run after upgrading plotly.
"""

from apps.leaderboard.common.finders import PLOTLY_WHEEL_FILE

HEADER = """/* The global styles plotly.js {version} injects into a <style> element, kept as a file so the
   Content-Security-Policy needs no inline styles (templates/includes/_chart_scripts.html). Regenerate after a
   plotly upgrade: .venv/bin/python -m tests.e2e.plotly_css > static/vendor/plotly/plotly.css */
"""


def plotly_version() -> str:
    """The bundle's version, from its licence header (`* plotly.js v4.1.1`)."""
    for line in PLOTLY_WHEEL_FILE.read_text(encoding="utf-8").splitlines()[:5]:
        if "plotly.js v" in line:
            return line.split("plotly.js ", 1)[1].strip()
    raise ValueError(f"{PLOTLY_WHEEL_FILE} names no plotly.js version")


def injected_rules(page) -> list[str]:
    """Draw a chart on a blank page with the installed bundle; the rules plotly.js inserted, in its order."""
    page.goto("about:blank")
    page.set_content('<div id="chart" style="width:400px;height:300px"></div>')
    page.add_script_tag(path=str(PLOTLY_WHEEL_FILE))
    page.evaluate("Plotly.newPlot('chart', [{type: 'bar', x: [1, 2], y: [3, 4]}], {})")
    # insertRule(rule, 0) puts each rule first: read them back to front for the order plotly.js added them.
    return page.evaluate("""Array.from(document.getElementById('plotly.js-style-global').sheet.cssRules)
                            .map(rule => rule.cssText).reverse()""")


def stylesheet(rules: list[str]) -> str:
    return HEADER.format(version=plotly_version()) + "\n".join(rules) + "\n"


if __name__ == "__main__":
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        print(stylesheet(injected_rules(browser.new_page())), end="")
        browser.close()
