"""`tables.rounded` writes what Django's floatformat writes, and `tables.localized` what {{ value }} writes
(localize, then escape), character for character: they replace Django's own on pages that write hundreds of
numbers, so no figure may change."""

import random
from datetime import date
from decimal import Decimal

import pytest
from django.template.defaultfilters import floatformat
from django.utils.formats import localize
from django.utils.html import escape
from django.utils.safestring import mark_safe

from apps.leaderboard.lists.tables import localized, rounded

ARGUMENTS = ["0", "1", "2", "3", "0g", "1g", "3g", 0, 1, 2]

#: Ties of every kind (x.5, x.25, x.125 at each number of decimals), values whose binary form sits either side
#: of a decimal tie (2.675, 1.005), zeros and negative values that round to zero, and values far from 1.
EDGES = [
    0,
    0.0,
    -0.0,
    0.5,
    1.5,
    2.5,
    -0.5,
    -2.5,
    0.25,
    0.125,
    2.675,
    1.005,
    1234.5,
    -1234.5,
    999.9995,
    999999.5,
    -0.004,
    -0.0004,
    1e-7,
    1e16,
    1.5e16,
    123456789012.345,
    7,
    -7,
    1234567,
    10**20,
    2**53 + 1,
]


def random_values(count: int) -> list[float]:
    draw = random.Random(706)
    values = []
    for _ in range(count):
        magnitude = 10 ** draw.uniform(-4, 12)
        value = draw.choice([magnitude, -magnitude, round(magnitude, draw.randint(0, 4))])
        values += [value, round(value, 1) + 0.05, float(int(value)) + 0.5]
    return values


@pytest.mark.parametrize("argument", ARGUMENTS)
def test_it_writes_what_floatformat_writes(argument):
    for value in EDGES + random_values(3000):
        assert rounded(value, argument) == floatformat(value, argument), (value, argument)


@pytest.mark.parametrize(
    ("value", "argument"),
    [(None, "0"), ("", "2"), ("12.345", "2"), ("text", "0"), (float("nan"), "1"), (float("inf"), "0g"), (True, "0")],
)
def test_what_is_not_a_finite_number_is_floatformats_own(value, argument):
    assert rounded(value, argument) == floatformat(value, argument)


@pytest.mark.parametrize("argument", ["-2", "2u", "7", -1])
def test_arguments_it_does_not_write_itself_are_floatformats(argument):
    for value in (1234.5, 2.0, -0.125):
        assert rounded(value, argument) == floatformat(value, argument)


def test_another_locales_separators_are_floatformats(settings):
    settings.LANGUAGE_CODE = "de"
    assert rounded(1234.5, "1g") == floatformat(1234.5, "1g") == "1.234,5"
    assert rounded(0.25, "1") == floatformat(0.25, "1") == "0,3"


def test_a_site_wide_thousands_separator_is_floatformats(settings):
    settings.USE_THOUSAND_SEPARATOR = True
    assert rounded(1234.5, "1") == floatformat(1234.5, "1") == "1,234.5"


STORED_VALUES = [
    0,
    -7,
    10**30,
    0.0,
    -0.0,
    2.675,
    -1234.5,
    1e16,
    1.5e-5,
    float("nan"),
    float("inf"),
    Decimal("123456.789"),
    Decimal("0.000"),
    Decimal("-0.000"),
    Decimal("1E+3"),
    Decimal("1E-7"),
    Decimal("1E+250"),
    True,
    "a <b> & 'c'",
    mark_safe("<em>safe</em>"),
    date(2024, 2, 29),
]


@pytest.mark.parametrize("thousands", [False, True])
def test_localized_writes_what_a_template_variable_writes(settings, thousands):
    settings.USE_THOUSAND_SEPARATOR = thousands
    for value in STORED_VALUES + random_values(300) + [Decimal(repr(value)) for value in random_values(300)]:
        assert localized(value) == escape(localize(value)), value
