"""The custom-list grammar: arithmetic as written by hand, and refusals that say where."""

import math

import pytest

from apps.results.judgements.equations import MAX_EXPONENT, MAX_LENGTH, EquationError, parse_equation

NAMES = {"ior_easy_write", "mdtest_easy_write", "score", "bw", "md"}


def value(text: str, **values) -> float | None:
    return parse_equation(text, NAMES).evaluate(values)


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("sqrt(ior_easy_write * mdtest_easy_write)", {"ior_easy_write": 4.0, "mdtest_easy_write": 9.0}, 6.0),
        ("1 + 2 * 3", {}, 7.0),
        ("(1 + 2) * 3", {}, 9.0),
        ("2 ^ 3 ^ 2", {}, 512.0),  # right-associative, as in mathematics
        ("-2 ^ 2", {}, -4.0),  # the minus applies to the power
        ("2 ** -1", {}, 0.5),
        ("bw ^ (1 / 3)", {"bw": 27.0}, 3.0),  # a constant expression as exponent
        ("max(bw, md, 3) / min(bw, md)", {"bw": 2.0, "md": 5.0}, 2.5),
        ("log10(1000) + abs(-1)", {}, 4.0),
        ("score - 1e2", {"score": 150.0}, 50.0),
    ],
)
def test_arithmetic_as_written(text, values, expected):
    assert value(text, **values) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("ior_easy_write / md", {"ior_easy_write": 1.0, "md": 0.0}),  # division by zero
        ("log(md)", {"md": -1.0}),  # outside the domain
        ("exp(md)", {"md": 1e6}),  # overflow
        ("score", {"score": None}),  # a missing value
    ],
)
def test_values_that_cannot_be_computed_are_none(text, values):
    assert value(text, **values) is None


@pytest.mark.parametrize(
    ("text", "message", "position"),
    [
        ("__import__(os)", "unknown function '__import__'", 0),
        ("__import__('os').system('id')", "unexpected character", 11),
        ("score.__class__", "attribute access is not allowed", 5),
        ("bw.real", "attribute access is not allowed", 2),
        ("2 ^ 1000", f"larger than {MAX_EXPONENT}", 4),
        ("9 ** 99999999", f"larger than {MAX_EXPONENT}", 5),
        ("bw ^ (10 * 10000)", f"larger than {MAX_EXPONENT}", 5),  # a constant expression, computed when parsed
        ("2 ^ 3 ^ 100", f"larger than {MAX_EXPONENT}", 8),
        ("2 ^ mdtest_easy_write", "must be a constant", 4),
        ("md ^ bw", "must be a constant", 5),
        ("md ^ (1 - score * 0)", "must be a constant", 5),
        ("bw ^ (1 / 0)", "cannot be computed", 5),
        ("open", "unknown name 'open'", 0),
        ("score +", "ends too early", 7),
        ("(score", "expected ')'", 6),
        ("score score", "unexpected 'score'", 6),
        ("", "empty", 0),
        ("sqrt(1, 2)", "takes 1-1 arguments", 0),
        ("1e999", "out of range", 0),
        ("score; 1", "unexpected character ';'", 5),
    ],
)
def test_refusals_name_the_position(text, message, position):
    with pytest.raises(EquationError) as refused:
        parse_equation(text, NAMES)
    assert message in refused.value.message
    assert refused.value.position == position


def test_over_long_and_over_nested_input_is_refused():
    with pytest.raises(EquationError, match="longer than"):
        parse_equation("score+" * (MAX_LENGTH // 6) + "score", NAMES)
    with pytest.raises(EquationError, match="nested"):
        parse_equation("(" * 100 + "score" + ")" * 100, NAMES)
    with pytest.raises(EquationError, match="nested"):
        parse_equation("-" * 200 + "score", NAMES)


def test_the_equation_knows_the_names_it_uses():
    equation = parse_equation("sqrt(bw * md) + 0 * score", NAMES)
    assert equation.names == {"bw", "md", "score"}
    assert equation.evaluate({"bw": 4.0, "md": 9.0, "score": 1.0}) == pytest.approx(math.sqrt(36))
