"""Small display filters. They return plain strings; Django's autoescaping applies to their output."""

import json

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def as_text(value) -> str:
    """Evidence and configuration values: JSON for lists and dicts, the value itself otherwise."""
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True)
    return "" if value is None else str(value)


@register.filter
def percent(value) -> str:
    """+12.3 % / −4.0 %; empty for None."""
    if value is None:
        return ""
    return f"{value:+.1f} %".replace("-", "−")


@register.filter
def trend(value) -> str:
    """A CSS class for a relative change: up, down or flat (within 0.5 %)."""
    if value is None or abs(value) < 0.5:
        return "flat"
    return "up" if value > 0 else "down"


@register.filter
def diff_line(line: str) -> str:
    """A CSS class for a unified-diff line."""
    if line.startswith(("+++", "---")):
        return "diff-file"
    if line.startswith("@@"):
        return "diff-hunk"
    return {"+": "diff-added", "-": "diff-removed"}.get(line[:1], "")


@register.filter
def num(value, digits=2) -> str:
    """A number with fixed decimals, "—" when unknown: floatformat without its Decimal round trip (lists render
    hundreds of them)."""
    if value is None or value == "":
        return "—"
    return f"{value:.{int(digits)}f}"


@register.simple_tag
def delta_rows(deltas, strong=False) -> SafeString:
    """The compare table's rows: a phase (or score) per row, each run's value, and each later run's change.

    Built here rather than by an included template per row: a compare of six runs has some 40 rows of up to
    eleven cells, and a template include per row was a quarter of the page's render time."""
    row_class = "score-row" if strong else ""
    rows = []
    for delta in deltas:
        cells = []
        for index, (value, change) in enumerate(delta.cells):
            cells.append(f'<td class="num">{num(value, 3)}</td>')
            if index:
                cells.append(f'<td class="num change {trend(change)}">{percent(change)}</td>')
        rows.append(f'<tr class="{row_class}"><th scope="row">{escape(delta.name)}</th><td>{escape(delta.unit)}</td>'
                    f'{"".join(cells)}</tr>')
    return mark_safe("".join(rows))  # noqa: S308 - names and units are escaped; numbers are formatted here


@register.simple_tag
def difference_rows(differences) -> SafeString:
    """An input section's rows (a key per row, its value in each run, marked where it changed), built here for
    the reason `delta_rows` is: the command-line section alone can hold dozens of keys."""
    rows = []
    for difference in differences:
        cells = []
        for value, change in difference.cells:
            shown = '<span class="muted">absent</span>' if value is None else f"<code>{escape(value)}</code>"
            cells.append(f'<td class="{f"change-{escape(change)}" if change else ""}">{shown}</td>')
        rows.append(f'<tr><th scope="row"><code>{escape(difference.key)}</code></th>{"".join(cells)}</tr>')
    return mark_safe("".join(rows))  # noqa: S308 - every value is escaped
