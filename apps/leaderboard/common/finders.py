"""Serve plotly.js from the installed plotly wheel, so charts never need a CDN or a vendored copy.

The file appears as static `vendor/plotly/plotly.min.js`; collectstatic copies it and WhiteNoise
serves it with a hashed name. Its version always matches the Python package.
"""

import functools
import re
from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_STATIC_PATH = "vendor/plotly/plotly.min.js"
PLOTLY_WHEEL_FILE = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
#: plotly.js's own styles, taken out of its bundle into a file (the Content-Security-Policy allows no inline style).
PLOTLY_CSS_STATIC_PATH = "vendor/plotly/plotly.css"
#: The bundle injects its map library's CSS in a <style> element at load unless an element with this id exists.
_INJECTED_STYLE_ID = re.compile(r'if\(!document\.getElementById\("([0-9a-f]{64})"\)\)')


@functools.cache
def plotly_injected_style_ids() -> tuple[str, ...]:
    """The ids under which the installed plotly.js injects inline <style> elements when loaded.

    ioboard draws no maps, so their CSS is not needed; a page that holds an element with each id keeps the
    bundle from injecting it (and the policy from reporting it). Read from the bundle, since the ids change
    with every plotly.js release.
    """
    if not PLOTLY_WHEEL_FILE.exists():
        return ()
    return tuple(dict.fromkeys(_INJECTED_STYLE_ID.findall(PLOTLY_WHEEL_FILE.read_text(encoding="utf-8"))))


class PlotlyWheelFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storage = FileSystemStorage(location=str(PLOTLY_WHEEL_FILE.parent))
        self.storage.prefix = str(Path(PLOTLY_STATIC_PATH).parent)

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path != PLOTLY_STATIC_PATH or not PLOTLY_WHEEL_FILE.exists():
            return [] if find_all else None
        found = str(PLOTLY_WHEEL_FILE)
        return [found] if find_all else found

    def list(self, ignore_patterns):
        if PLOTLY_WHEEL_FILE.exists():
            yield PLOTLY_WHEEL_FILE.name, self.storage
