"""``lustre_*`` variables of an Ansible inventory (YAML or INI), as tunables with the hosts they apply to."""

from __future__ import annotations

import re

import yaml

from apps.ingest.core.metadata import yaml_alias_line
from apps.ingest.parsers.lines import numbered_lines
from apps.ingest.parsers.lustre.shell import shell_words
from apps.ingest.parsers.lustre.tunables import TunableInfo, tunable_scope


def parse_ansible_inventory(text: str, source_file: str = "") -> list[TunableInfo]:
    """``lustre_*`` variables of an Ansible inventory, at any level (all, group, host vars).

    YAML inventories are walked node by node to keep line numbers; INI inventories
    (``[group:vars]`` sections, ``host key=value`` lines) are read when the text is not YAML.
    """
    if yaml_alias_line(text) is not None:  # nested aliases walk to gigabytes: such an inventory is not read
        return []
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        root = None
    if isinstance(root, yaml.MappingNode):
        tunables: list[TunableInfo] = []
        _walk_inventory(root, "all", None, tunables, source_file)
        return tunables
    return _parse_ini_inventory(text, source_file)


def _walk_inventory(
    node: yaml.MappingNode, applies_to: str, parent_key: str | None, found: list[TunableInfo], source_file: str
) -> None:
    for key_node, value_node in node.value:
        key = str(key_node.value)
        if key.startswith("lustre_") and isinstance(value_node, yaml.ScalarNode):
            found.append(
                TunableInfo(
                    parameter=key,
                    value=str(value_node.value),
                    scope=tunable_scope(key),
                    source_file=source_file,
                    source_line=key_node.start_mark.line + 1,
                    command=f"{key}: {value_node.value}",
                    applies_to=applies_to,
                )
            )
        elif isinstance(value_node, yaml.MappingNode):
            if parent_key == "hosts":
                target = f"host:{key}"
            elif parent_key in (None, "children") and key not in ("vars", "hosts", "children"):
                target = "all" if key == "all" else f"group:{key}"
            else:
                target = applies_to
            _walk_inventory(value_node, target, key, found, source_file)


def _parse_ini_inventory(text: str, source_file: str) -> list[TunableInfo]:
    found: list[TunableInfo] = []
    section = ""
    for number, raw in numbered_lines(text.splitlines(), strict=False):
        line = raw.split("#", 1)[0].split(";", 1)[0].strip()
        header = re.fullmatch(r"\[([^\]]+)\]", line)
        if header:
            section = header.group(1)
            continue
        if not line:
            continue
        group = section.removesuffix(":vars")
        if section.endswith(":vars"):
            applies_to = "all" if group == "all" else f"group:{group}"
            assignments = [line]
        else:
            host, _, rest = line.partition(" ")
            applies_to = f"host:{host}"
            assignments = shell_words(rest)
        for assignment in assignments:
            key, sep, value = assignment.partition("=")
            key = key.strip()
            if sep and key.startswith("lustre_"):
                found.append(
                    TunableInfo(
                        parameter=key,
                        value=value.strip().strip("'\""),
                        scope=tunable_scope(key),
                        source_file=source_file,
                        source_line=number,
                        command=assignment.strip(),
                        applies_to=applies_to,
                    )
                )
    return found
