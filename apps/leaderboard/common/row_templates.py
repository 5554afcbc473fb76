"""The hot row templates, rendered by Jinja2 through Django's template backend (the "jinja2" entry of TEMPLATES,
templates in `jinja2/`).

Why Jinja2 for these alone: a list page writes 50 to 500 rows of 18 cells and a stack page hundreds of components
with four figures each. Through Django's engine, with a row or a cell per inclusion tag, rendering them took a list
page from 2.5 to 4-5.4 times /healthz and the stack page to 8.5 times (cold path, 20,000 runs). Jinja2 compiles a
template to Python once, so a loop over rows costs what the Python it compiles to costs. The pages themselves stay
Django templates; a tag of `apps.leaderboard.templatetags.ioboard` hands its rows to one of these.

The environment writes values as Django's engine does: escaped as Django escapes them (`escaped_as_django_escapes`,
the `finalize` hook), so a quote reads `&quot;`/`&#x27;` on every page, and with the same filters (`num`, `words`,
`layer_label`, `linebreaksbr`, `floatformat`, `truncatechars`: Django's own functions). The rows hold no float
written bare: figures go through `num` or `floatformat`; ids, counts and ranks are plain digits (the site writes no
thousands separators: USE_THOUSAND_SEPARATOR is off).
"""

from html import escape

from django.template import engines
from django.template.defaultfilters import floatformat, linebreaksbr, truncatechars
from django.utils.safestring import SafeString, mark_safe
from jinja2 import Environment
from markupsafe import Markup

from apps.leaderboard.common.filters import layer_label, num, percent, words


def environment(**options) -> Environment:
    """The Jinja2 environment of the row templates (TEMPLATES' "environment" option)."""
    options.pop("autoescape", None)  # always on, whatever the backend passes (its default is on too)
    env = Environment(autoescape=True, finalize=escaped_as_django_escapes, keep_trailing_newline=True, **options)
    env.filters.update(
        num=num,
        percent=percent,
        words=words,
        layer_label=layer_label,
        linebreaksbr=linebreaksbr,
        floatformat=floatformat,
        truncatechars=truncatechars,
    )
    return env


def escaped_as_django_escapes(value):
    """A value written into a row, escaped as Django's engine escapes it: markup (anything with `__html__`, Django's
    safe strings and Jinja2's alike) as it is, anything else through the standard library's `html.escape`, the
    function `django.utils.html.escape` wraps (quotes as `&quot;` and `&#x27;`, where Jinja2's own escape writes
    `&#34;` and `&#39;`). Called directly rather than through `conditional_escape`, whose lazy-string check on every
    value was a tenth of the stack page's render."""
    if hasattr(value, "__html__"):
        return value
    return Markup(escape(str(value)))  # noqa: S704 - escaped on this line


def render_rows(template_name: str, **context) -> SafeString:
    """A row template of `jinja2/` rendered with `context`, safe to place in a Django template as it is."""
    html = engines["jinja2"].get_template(template_name).render(context)
    return mark_safe(html)  # noqa: S308 - the output of an autoescaping template engine


def macro(template_name: str, name: str):
    """Macro `name` of a row template, as a Python callable (Jinja2's `Template.module`)."""
    return getattr(engines["jinja2"].env.get_template(template_name).module, name)
