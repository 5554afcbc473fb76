"""Reading a benchmark's printed command line (mdtest, IOR): its argv and its options by letter.

Both tools print the command they ran and take getopt-style options, so one reader serves both;
each parser keeps its own ``parse_options`` naming which of its letters take a value. Plain Python.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Collection

#: What makes shlex read a text otherwise than ``str.split``: quotes, backslashes, and white space other than shlex's
#: own (space, tab, CR, LF), on which ``str.split`` would split too.
SHELL_SYNTAX = re.compile(r"['\"\\]|[^\S \t\r\n]")


def shell_split(text: str) -> list[str]:
    """``shlex.split(text)`` (its ValueError included); a text with no shell syntax (``SHELL_SYNTAX``) is split on
    white space directly: the same words, without shlex's reading one character at a time."""
    if SHELL_SYNTAX.search(text):
        return shlex.split(text)
    return text.split()


def split_command_line(command_line: str) -> list[str]:
    """argv from a printed command line; falls back to white space when quotes do not balance
    (mdtest cuts the printed command at 4096 characters)."""
    try:
        return shell_split(command_line)
    except ValueError:
        return command_line.split()


def parse_letter_options(
    argv: list[str], options_with_value: Collection[str], *, equals_before_value: bool = False
) -> dict[str, str | bool]:
    """Options by letter (or long name), getopt style: ``-uL`` is two flags, ``-n100`` and ``-n 100``
    a value, ``--name=value`` a long option. With ``equals_before_value``, ``-Q=1`` is ``Q`` = ``1``
    (IOR's own reader accepts it); otherwise the ``=`` stays part of the value."""
    options: dict[str, str | bool] = {}
    arguments = iter(argv[1:])
    for token in arguments:
        if token.startswith("--") and len(token) > 2:
            name, equals, value = token[2:].partition("=")
            options[name] = value if equals else True
        elif token.startswith("-") and len(token) > 1:
            letters = token[1:]
            for position, letter in enumerate(letters):
                if letter in options_with_value:
                    rest = letters[position + 1 :]
                    if equals_before_value:
                        rest = rest.removeprefix("=")
                    options[letter] = rest if rest else next(arguments, "")
                    break
                options[letter] = True
    return options
