"""The WSGI application gunicorn serves (`config.wsgi:application`).

A worker loads everything its pages need before its first request, then freezes it (`gc.freeze`): the URLconf with
every view, serializer and form it imports, and the compiled templates: a large number of objects that live as long
as the process. CPython's full garbage collections walked all of them, once in every hundred or so requests, and
that one pause set a page's p95 (`python -m bench cold_path`; docs/performance.md). Frozen objects are never walked
again; everything created after still is, so real garbage is still collected.
"""

import gc
import os
from pathlib import Path

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def load_everything_a_request_would() -> None:
    """Import what the first request would import and compile every template the pages extend or include."""
    from django.conf import settings
    from django.template import engines
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports the URLconf and every view module it names
    django_templates = engines["django"]
    for folder in settings.TEMPLATES[0]["DIRS"]:
        for template in Path(folder).rglob("*.html"):
            django_templates.get_template(template.relative_to(folder).as_posix())


load_everything_a_request_would()
gc.collect()
gc.freeze()
