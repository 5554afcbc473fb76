"""``ParseError``, the one error a reader raises, and how a lenient reader keeps the ones it meets.

Every grammar, manifest and value reader raises ``ParseError`` for a file it cannot understand, naming
the file and, when known, the line; the pipelines turn it into the upload's message. A lenient reader
(the IO500 raw outputs) keeps its problems in a ``ProblemList`` instead of raising. Plain Python.
"""

from __future__ import annotations

# How many problems a lenient reader keeps in full; the rest are counted (``ProblemList``).
MAX_KEPT_PROBLEMS = 20


class ParseError(Exception):
    """A file could not be understood. Always names the file and, when known, the line."""

    def __init__(self, path: str, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class ProblemList(list):
    """The problems a lenient reader met: the first ``MAX_KEPT_PROBLEMS`` kept, the rest only counted.

    A file of a million bad lines would otherwise keep a million exceptions (1.7 GB).
    """

    def __init__(self):
        super().__init__()
        self.more = 0

    def add(self, problem: ParseError) -> None:
        if len(self) < MAX_KEPT_PROBLEMS:
            self.append(problem)
        else:
            self.more += 1


def joined_problems(problems: list[str]) -> str:
    """Problems joined for one message: the first ``MAX_KEPT_PROBLEMS`` of them and "and M more"."""
    shown = "; ".join(str(problem) for problem in problems[:MAX_KEPT_PROBLEMS])
    more = len(problems) - MAX_KEPT_PROBLEMS
    return shown + (f"; and {more} more" if more > 0 else "")
