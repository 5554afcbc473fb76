"""Just enough shell to read the commands submitters leave in io500.sh and job scripts.

Backslash continuations, ``#`` comments, shell words up to the end of one command, one level of
brace expansion, ``$((...))`` arithmetic on literals and lfs size suffixes. Never a full shell:
anything with a variable stays unknown instead of being guessed.
"""

from __future__ import annotations

import ast
import operator
import re

from apps.ingest.parsers.command_line import shell_split
from apps.ingest.parsers.lines import numbered_lines

_COMMAND_END = {";", "&&", "||", "|", "&"}
# The longest command read: the longest script line in the corpus has 4.8 KB. shlex grows a word one
# character at a time (quadratic in its length), so a longer command is cut here.
MAX_COMMAND_CHARS = 16 * 1024
_BRACES = re.compile(r"\{([^{},]*,[^{}]*)\}")
_ARITHMETIC = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.floordiv,
}


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Join backslash-continued lines (each cut to the line cap); each logical line keeps the number of its
    first line."""
    result: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, line in numbered_lines(text.splitlines(), strict=False):
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        result.append((start, pending + line))
        pending = ""
    if pending:
        result.append((start, pending))
    return result


def without_shell_comment(line: str) -> str:
    """Drop a ``# ...`` comment: a ``#`` at a word start and outside quotes, as the shell reads it.

    Comment text is full of command-like prose (``#e.g., -E to keep precreated files using
    lfs setstripe``) and commented-out examples that were never run.
    """
    if "#" not in line:
        return line
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index]
    return line


def command_tail(line: str, start: int) -> str:
    """The text of a command starting at ``start``, cut at the closing quote when it sits inside one."""
    before = line[:start]
    for quote in ('"', "'"):
        if before.count(quote) % 2 == 1:
            end = line.find(quote, start)
            return line[start:end] if end != -1 else line[start:]
    return line[start:]


def squeezed_between(text: str, opener: str, closer: str, squeeze) -> str:
    """``text`` with the inside of each ``opener ... closer`` (the nearest closer) passed through ``squeeze``.

    What ``re.sub(opener + "(.*?)" + closer)`` does, in one pass: that regular expression rescans the
    rest of the line from every opener that has no closer, quadratic on a line of openers.
    """
    pieces, position = [], 0
    while (start := text.find(opener, position)) != -1:
        end = text.find(closer, start + len(opener))
        if end == -1:
            break
        pieces += [text[position:start], opener, squeeze(text[start + len(opener) : end]), closer]
        position = end + len(closer)
    pieces.append(text[position:])
    return "".join(pieces)


def shell_words(command: str) -> list[str]:
    """Shell words of one command (its first ``MAX_COMMAND_CHARS``), stopping at ``;``, ``&&``, ``||``, pipes
    and redirections."""
    command = command[:MAX_COMMAND_CHARS]
    command = squeezed_between(command, "{{", "}}", lambda inside: inside.strip().replace(" ", ""))
    command = squeezed_between(command, "$((", "))", lambda inside: re.sub(r"\s+", "", inside))
    try:
        words = shell_split(command)
    except ValueError:
        words = [word.strip("'\"") for word in command.split()]
    tokens = []
    for word in words:
        if word in _COMMAND_END:
            break
        if re.match(r"^\d*[<>]", word):
            break
        tokens.append(word)
    return tokens


def is_integer_literal(token: str) -> bool:
    return bool(re.fullmatch(r"-?\d+", token))


def expand_braces(path: str) -> list[str]:
    """Shell brace expansion of one level, as in ``$workdir/mdtest-{easy,hard}``."""
    match = _BRACES.search(path)
    if not match or "{{" in path:
        return [path]
    expanded = []
    for choice in match.group(1).split(","):
        expanded.extend(expand_braces(path[: match.start()] + choice + path[match.end() :]))
    return expanded


def shell_integer(text: str) -> int | None:
    """An integer option value, including shell arithmetic on literals such as ``$((288*5))``."""
    text = text.strip()
    arithmetic = re.fullmatch(r"\$\(\((.*)\)\)", text)
    if arithmetic:
        return _evaluate_integer_expression(arithmetic.group(1))
    return int(text) if is_integer_literal(text) else None


def _evaluate_integer_expression(expression: str) -> int | None:
    """+ - * / on integer literals only; anything with a variable (or absurdly long) stays unknown."""
    if not re.fullmatch(r"[\d\s+\-*/()]{1,64}", expression):
        return None
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        return None

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
            return _ARITHMETIC[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        raise ValueError("not an integer literal expression")

    try:
        return value(tree.body)
    except (ValueError, ZeroDivisionError):
        return None


def size_in_bytes(text: str) -> int | None:
    """lfs sizes: ``16M``, ``47104k``, ``1G``, ``65536`` (binary multiples, as lfs reads them)."""
    match = re.fullmatch(r"(\d+)\s*([kKmMgGtT]?)(?:i?[bB])?", text.strip())
    if not match:
        return None
    power = " kmgt".index(match.group(2).lower() or " ")
    return int(match.group(1)) * 1024**power
