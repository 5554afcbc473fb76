"""Ranking equations of custom lists: a small arithmetic grammar, parsed by recursive descent.

Why not Python's `eval` or `ast`: an equation comes from any reader of the site. A grammar that only
knows numbers, the names it is given, + - * / ^, parentheses and a handful of functions cannot reach
an attribute, an import or a builtin, however the text is crafted; and every refusal can say where
in the text it happened. No safe evaluator is installed in the environment (asteval and simpleeval are
not), and this grammar is small enough to read in full.

    expression := term (("+" | "-") term)*
    term       := unary (("*" | "/") unary)*
    unary      := ("-" | "+") unary | power
    power      := atom (("^" | "**") unary)?          right-associative
    atom       := number | name | name "(" expression ("," expression)* ")" | "(" expression ")"

Limits: MAX_LENGTH characters, MAX_DEPTH of nesting, exponents of at most MAX_EXPONENT in size. An exponent
is a constant expression (`bw ^ (1/3)`, `2 ^ 3 ^ 2`), computed and checked when the equation is parsed: an
exponent computed from a run's values (`2 ^ mdtest_easy_write`) could only be checked run by run, so an equation
saved without complaint would leave every run unranked.

Plain Python (no Django).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

MAX_LENGTH = 500
MAX_DEPTH = 40
MAX_EXPONENT = 64

FUNCTIONS: dict[str, tuple[Callable[..., float], int, int]] = {
    # name: (function, fewest arguments, most arguments)
    "sqrt": (math.sqrt, 1, 1),
    "log": (math.log, 1, 1),
    "log10": (math.log10, 1, 1),
    "exp": (math.exp, 1, 1),
    "abs": (abs, 1, 1),
    "min": (min, 2, 16),
    "max": (max, 2, 16),
}

TOKEN = re.compile(
    r"\s*(?:(?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<operator>\*\*|[-+*/^(),]))"
)


class EquationError(ValueError):
    """An equation that cannot be used; `position` is the 0-based character offset of the fault."""

    def __init__(self, message: str, position: int):
        super().__init__(f"{message} (at character {position + 1})")
        self.message = message
        self.position = position


@dataclass(frozen=True)
class Token:
    kind: str  # "number", "name", "operator", "end"
    text: str
    position: int


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_LENGTH:
        raise EquationError(f"the equation is longer than {MAX_LENGTH} characters", MAX_LENGTH)
    tokens, position = [], 0
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = TOKEN.match(text, position)
        if not match:
            start = position + len(text[position:]) - len(text[position:].lstrip())
            character = text[start]
            if character == ".":
                raise EquationError("attribute access is not allowed", start)
            raise EquationError(f"unexpected character {character!r}", start)
        kind = match.lastgroup
        assert kind is not None  # every alternative of TOKEN is a named group
        tokens.append(Token(kind, match.group(kind), match.start(kind)))
        position = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


# A parsed equation is a tree of closures: each node takes the variables and returns a float.
Node = Callable[[Mapping[str, float]], float]


class _Parser:
    def __init__(self, text: str, names: frozenset[str]):
        self.tokens = tokenize(text)
        self.index = 0
        self.names = names
        self.used: set[str] = set()
        self.name_references = 0
        self.depth = 0

    @property
    def token(self) -> Token:
        return self.tokens[self.index]

    def take(self, text: str | None = None) -> Token | None:
        if self.token.kind == "operator" and (text is None or self.token.text == text):
            token = self.token
            self.index += 1
            return token
        return None

    def expect(self, text: str) -> None:
        if not self.take(text):
            raise EquationError(f"expected {text!r}", self.token.position)

    def parse(self) -> Node:
        if self.token.kind == "end":
            raise EquationError("the equation is empty", 0)
        node = self.expression()
        if self.token.kind != "end":
            raise EquationError(f"unexpected {self.token.text!r}", self.token.position)
        return node

    def nested(self, parse: Callable[[], Node]) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise EquationError(f"nested more than {MAX_DEPTH} deep", self.token.position)
        try:
            return parse()
        finally:
            self.depth -= 1

    def expression(self) -> Node:
        node = self.term()
        while operator := self.take("+") or self.take("-"):
            right = self.term()
            node = _binary(operator.text, node, right)
        return node

    def term(self) -> Node:
        node = self.unary()
        while operator := self.take("*") or self.take("/"):
            right = self.unary()
            node = _binary(operator.text, node, right)
        return node

    def unary(self) -> Node:
        if self.take("-"):
            operand = self.nested(self.unary)
            return lambda values: -operand(values)
        if self.take("+"):
            return self.nested(self.unary)
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        operator = self.take("^") or self.take("**")
        if not operator:
            return base
        position = self.token.position
        references_before = self.name_references
        exponent = self.nested(self.unary)
        if self.name_references != references_before:
            raise EquationError("an exponent must be a constant, not computed from a run's values", position)
        try:
            power = exponent({})
        except (ArithmeticError, ValueError) as error:
            raise EquationError(f"the exponent cannot be computed ({error})", position) from None
        if not math.isfinite(power) or abs(power) > MAX_EXPONENT:
            raise EquationError(f"exponent {power:g} is larger than {MAX_EXPONENT}", position)
        return lambda values: math.pow(base(values), power)

    def atom(self) -> Node:
        token = self.token
        if token.kind == "number":
            self.index += 1
            value = float(token.text)
            if not math.isfinite(value):
                raise EquationError("number out of range", token.position)
            return lambda values: value
        if token.kind == "name":
            self.index += 1
            if self.take("("):
                return self.call(token)
            if token.text not in self.names:
                raise EquationError(f"unknown name {token.text!r}; use a phase name, score, bw or md", token.position)
            self.used.add(token.text)
            self.name_references += 1
            name = token.text
            return lambda values: values[name]
        if self.take("("):
            node = self.nested(self.expression)
            self.expect(")")
            return node
        if token.kind == "end":
            raise EquationError("the equation ends too early", token.position)
        raise EquationError(f"unexpected {token.text!r}", token.position)

    def call(self, name: Token) -> Node:
        if name.text not in FUNCTIONS:
            raise EquationError(f"unknown function {name.text!r}; use one of {', '.join(FUNCTIONS)}", name.position)
        function, fewest, most = FUNCTIONS[name.text]
        arguments = [self.nested(self.expression)]
        while self.take(","):
            arguments.append(self.nested(self.expression))
        self.expect(")")
        if not fewest <= len(arguments) <= most:
            raise EquationError(f"{name.text}() takes {fewest}-{most} arguments, not {len(arguments)}", name.position)
        return lambda values: function(*(argument(values) for argument in arguments))


def _binary(operator: str, left: Node, right: Node) -> Node:
    if operator == "+":
        return lambda values: left(values) + right(values)
    if operator == "-":
        return lambda values: left(values) - right(values)
    if operator == "*":
        return lambda values: left(values) * right(values)
    return lambda values: left(values) / right(values)


@dataclass(frozen=True)
class Equation:
    """A parsed ranking equation over the given names."""

    text: str
    names: frozenset[str]
    root: Node

    def evaluate(self, values: Mapping[str, float | None]) -> float | None:
        """The equation's value, or None when a name it uses has no value or the arithmetic fails
        (division by zero, log of a negative number, overflow): such a run is listed unranked."""
        known = {name: value for name in self.names if (value := values.get(name)) is not None}
        if len(known) < len(self.names):
            return None
        try:
            result = self.root(known)
        except (ArithmeticError, ValueError, OverflowError):
            return None
        return result if isinstance(result, float | int) and math.isfinite(result) else None


def parse_equation(text: str, allowed_names: Iterable[str]) -> Equation:
    """Parse `text`; raise EquationError (with the position) for anything outside the grammar."""
    parser = _Parser(text if isinstance(text, str) else "", frozenset(allowed_names))
    root = parser.parse()
    return Equation(text=text, names=frozenset(parser.used), root=root)
