"""Serve plotly.js from the installed plotly wheel, so charts never need a CDN or a vendored copy.

The file appears as static `vendor/plotly/plotly.min.js`; collectstatic copies it and WhiteNoise
serves it with a hashed name. Its version always matches the Python package.
"""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_STATIC_PATH = "vendor/plotly/plotly.min.js"
PLOTLY_WHEEL_FILE = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


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
