"""IO500 result directories (bash io500.sh era, SC17 job output, C application) into run records.

Public API:

* :func:`find_result_sets` — every result directory (one folder = one run) below a root;
* :func:`parse_result_set` — one result directory into an ``IO500RunRecord`` or a ``ParseError``;
* :func:`survey_tree` — the result directories and the submissions with nothing scoreable, in one walk;
* :func:`parse_tree` — both, plus a ``ParseError`` for each submission with nothing scoreable.

No Django here: the package is plain Python over ``apps.ingest.tools.io500.records``.
"""

from apps.ingest.tools.io500.grammar.discovery import find_result_sets, survey_tree
from apps.ingest.tools.io500.grammar.result_set import parse_result_set, parse_tree

__all__ = ["find_result_sets", "parse_result_set", "parse_tree", "survey_tree"]
