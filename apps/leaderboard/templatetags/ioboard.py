"""Small display filters. They return plain strings; Django's autoescaping applies to their output."""

import json

from django import template

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
