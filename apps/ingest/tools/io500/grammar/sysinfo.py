"""System descriptions: ``io500_info_*`` variables and ``system-information.txt``/``.json``.

The same shell-assignment syntax appears in three places: the ``system-information.txt`` written by
the VI4IO info creator (``io500_info_x="value"``), the ``extra_description`` function of the bash
``io500.sh`` (``io500_info_x='value'  # comment``) and the variable dump at the top of an
``io-500-summary`` file (``io500_info_x=value``). ``set -x`` trace lines (starting with ``+``) and
commented-out lines are not assignments.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from apps.ingest.tools.io500.grammar.files import storable

ASSIGNMENT = re.compile(r"^\s*(?:export\s+|local\s+)?(io500_[A-Za-z0-9_.-]*)=(.*)$")
INFO_PREFIX = "io500_info_"
# Values the templates ship with; they mean "not filled in".
PLACEHOLDERS = {"", "xxx", "xx", "x"}
DECLARED_NODE_KEYS = ("num_client_nodes", "client_nodes")


def shell_value(raw: str) -> str:
    """The value of a shell assignment: quotes removed, a trailing ``# comment`` dropped."""
    text = raw.strip()
    if text[:1] in ("'", '"'):
        quote = text[0]
        end = text.find(quote, 1)
        return text[1:end] if end > 0 else text[1:]
    return re.split(r"\s+#", text, maxsplit=1)[0].strip()


def iter_assignments(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str, str]]:
    """(line, name, value) for every ``io500_*=`` assignment that is not a trace or a comment."""
    for number, line in lines:
        if "io500_" not in line:  # every assignment names its io500_ variable (ASSIGNMENT): the line is no assignment
            continue
        stripped = line.lstrip()
        if stripped.startswith(("#", "+")):
            continue
        match = ASSIGNMENT.match(line)
        if match:
            yield number, match.group(1), shell_value(match.group(2))


def split_info(assignments: Iterable[tuple[int, str, str]]) -> tuple[dict[str, str], dict[str, str]]:
    """(info, variables): ``io500_info_*`` without their prefix, and the other ``io500_*`` settings.

    Later assignments win, like in the shell. Placeholder info values (``xxx``) are dropped.
    """
    info: dict[str, str] = {}
    variables: dict[str, str] = {}
    for _, name, value in assignments:
        if name.startswith(INFO_PREFIX):
            key = name[len(INFO_PREFIX) :]
            if value.strip().lower() in PLACEHOLDERS:
                info.pop(key, None)
            elif key:
                info[key] = value
        else:
            variables[name] = value
    return info, variables


def parse_system_information_json(text: str) -> dict | None:
    """The info-creator JSON export (strings made storable), or None when it is not a JSON object."""
    try:
        loaded = json.loads(text, object_hook=_storable_object)
    except (ValueError, RecursionError):
        return None
    return loaded if isinstance(loaded, dict) else None


def _storable_object(pairs: dict) -> dict:
    return {storable(key): _storable_value(value) for key, value in pairs.items()}


def _storable_value(value):
    if isinstance(value, str):
        return storable(value)
    if isinstance(value, list):
        return [_storable_value(item) for item in value]
    return value


def declared_client_nodes(info: dict) -> tuple[int, str] | None:
    """(node count, info key) the submitter declared, if it is a plain number."""
    for key in DECLARED_NODE_KEYS:
        number = _leading_int(info.get(key))
        if number is not None:
            return number, key
    found = _find_json_key(info.get("system_information_json"), "number_clientNodes")
    number = _leading_int(found)
    return (number, "system-information.json number_clientNodes") if number is not None else None


def _leading_int(value) -> int | None:
    if value is None:
        return None
    match = re.match(r"\s*(\d{1,9})\s*$", str(value))
    return int(match.group(1)) if match else None


def _find_json_key(node, key: str, depth: int = 0):
    if depth > 50:
        return None
    if isinstance(node, dict):
        if key in node:
            return node[key]
        children: Iterable[object] = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find_json_key(child, key, depth + 1)
        if found is not None:
            return found
    return None
