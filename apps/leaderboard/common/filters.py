"""The display filters both template engines use (Django's through `templatetags.ioboard`, Jinja2's through
`row_templates`): plain text out, which the engine escapes."""

from apps.results.models.stacks import LAYER_CHOICES


def num(value, digits=2) -> str:
    """A number with `digits` fixed decimals (Python's "f" format, no thousands separators, as the lists have
    always written their figures), "—" when unknown; an empty value (a missing variable) is unknown too."""
    if value is None or value == "":
        return "—"
    return f"{value:.{int(digits)}f}"


def percent(value) -> str:
    """+12.3 % / −4.0 %; empty for None."""
    if value is None:
        return ""
    return f"{value:+.1f} %".replace("-", "−")


def words(value) -> str:
    """A stored enum value in words: "not_applicable" -> "not applicable", "fully_reproducible" -> "fully
    reproducible". Pages show values, never identifiers."""
    return "" if value is None else str(value).replace("_", " ")


def layer_label(layer: str) -> str:
    """A stack component's layer in words ("device_group" -> its label)."""
    return LAYER_LABELS.get(layer, layer)


#: A component's layer as get_layer_display writes it.
LAYER_LABELS = dict(LAYER_CHOICES)
