"""Parsed values as the JSON columns (``facts``, ``config``, ``info``, ``details``) can store them."""

from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    """``value`` with everything JSON cannot hold turned into its text.

    Non-finite floats (``inf``/``nan`` printed in damaged files) become ``"inf"``/``"nan"``: JSON has
    no such numbers and PostgreSQL's jsonb rejects them. Tuples become lists; dates, Decimals and
    any other object become ``str(value)``. Dicts and lists are converted item by item.

    Strings, integers and None, most of a run's values, are let through on their exact type first, one look-up
    instead of a chain of ``isinstance`` tests; their subclasses take the general test below.
    """
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str | int):
        return value
    if isinstance(value, dict):
        return {key: json_safe(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(item) for item in value]
    return str(value)
