"""Filter fields the features' FilterSets share: whole numbers that fit any integer column, score bounds."""

import django_filters as filters
from django import forms
from drf_spectacular.utils import extend_schema_field

SQL_INTEGER_MAX = 2**31 - 1
SCORE_MAX = 1e12


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": SQL_INTEGER_MAX})
class IntegerFilter(filters.NumberFilter):
    """A whole number that fits every database's integer column (a bad value is a 400, not a 500)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 0)
        kwargs.setdefault("max_value", SQL_INTEGER_MAX)
        super().__init__(*args, **kwargs)


def bounded_integer_filter(min_value: int, max_value: int, **kwargs) -> IntegerFilter:
    """An IntegerFilter between other bounds, said in the schema too (a schema-valid value is never a 400)."""
    schema = extend_schema_field({"type": "integer", "minimum": min_value, "maximum": max_value})
    bounded = schema(type(f"IntegerFilter{min_value}To{max_value}", (IntegerFilter,), {"__module__": __name__}))
    return bounded(min_value=min_value, max_value=max_value, **kwargs)


@extend_schema_field({"type": "number", "minimum": 0, "maximum": SCORE_MAX})
class ScoreFilter(filters.NumberFilter):
    """A score bound: any non-negative number up to an absurdly high score."""

    field_class = forms.FloatField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, min_value=0, max_value=SCORE_MAX, **kwargs)
