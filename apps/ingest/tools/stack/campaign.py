"""A bottom-up benchmarking campaign folder: ``stack.yaml``, ``manifest.csv`` and the tools' logs.

Plain Python: the folder becomes a ``Campaign`` (the inventory as ``apps.results.judgements.stacks.semantics``
reads it, one ``Measurement`` per manifest row, and what each log printed), or a ``ParseError``
naming the file and line: a YAML key of the wrong shape, a component referring to a name that does
not exist or is not below it, a manifest row naming an unknown component, tool or operation, a log
that does not exist, that its tool cannot read, or that has no figure for the operation it is listed
for. The layout and the schema are the stack-sample README's (``docs/stacks.md``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from apps.ingest.parsers.errors import ParseError
from apps.ingest.parsers.values import csv_rows, manifest_text
from apps.ingest.tools import stack_readers
from apps.ingest.tools.base import Figure
from apps.results.judgements.stacks.semantics import (
    COMPONENT_LAYERS,
    LAYERS,
    OPERATIONS,
    Component,
    Inventory,
    Measurement,
    Server,
    Spec,
)

STACK_FILE = "stack.yaml"
MANIFEST_FILE = "manifest.csv"
MANIFEST_COLUMNS = ("log", "component", "layer", "operation", "tool")
MAX_COMPONENTS = 100_000
MAX_MANIFEST_ROWS = 100_000
# stack.yaml's list key of each layer, and the keys naming what lies directly below a component.
LAYER_KEYS = {
    "device": "devices",
    "device_group": "device_groups",
    "block": "block",
    "local_fs": "local_fs",
    "ost": "osts",
    "network": "network",
    "lnet": "lnet",
}
BELOW_KEYS = ("members", "groups", "built_on")
SPEC_KINDS = {"device": "drive", "network": "link"}
_LINE = "__line__"


@dataclass(frozen=True)
class LogFigure:
    """What one manifest row's log printed: the tool's version, the figure as printed and its line."""

    tool_version: str
    printed: str
    line: int | None
    manifest_line: int


@dataclass
class Campaign:
    name: str
    file_system: dict[str, Any]
    storage_system: dict[str, str]
    inventory: Inventory
    server_attributes: dict[str, dict[str, Any]]
    component_attributes: dict[str, dict[str, Any]]
    measurements: list[Measurement] = field(default_factory=list)
    figures: list[LogFigure] = field(default_factory=list)  # one per measurement, same order

    @property
    def file_system_name(self) -> str:
        return str(self.file_system.get("name") or self.name)


class _LineLoader(yaml.SafeLoader):
    """A safe loader that remembers the line of every mapping (for errors naming the line) and refuses
    aliases: an inventory needs none, and nested aliases (a "billion laughs") would make copying the
    descriptive keys exponential."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in stack.yaml", self.peek_event().start_mark
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node, deep=False):
        mapping = super().construct_mapping(node, deep=deep)
        mapping[_LINE] = node.start_mark.line + 1
        return mapping


def find_campaign_root(root: Path) -> Path:
    """The folder holding ``stack.yaml``: ``root`` or the shallowest folder below it that has one."""
    if (root / STACK_FILE).is_file():
        return root
    found = sorted(root.rglob(STACK_FILE), key=lambda path: (len(path.parts), str(path)))
    if not found:
        raise ParseError(str(root), None, f"no {STACK_FILE} in this campaign")
    return found[0].parent


def read_campaign(root: Path) -> Campaign:
    campaign = read_stack_yaml((root / STACK_FILE).read_bytes() if (root / STACK_FILE).is_file() else None)
    manifest = root / MANIFEST_FILE
    if not manifest.is_file():
        raise ParseError(MANIFEST_FILE, None, "the campaign has no manifest.csv")
    read_manifest(campaign, manifest.read_bytes(), root)
    return campaign


def read_stack_yaml(data: bytes | None) -> Campaign:
    if data is None:
        raise ParseError(STACK_FILE, None, "the campaign has no stack.yaml")
    try:
        document = yaml.load(data.decode("utf-8", errors="replace"), Loader=_LineLoader)  # noqa: S506 (safe loader)
    except yaml.MarkedYAMLError as error:
        line = error.problem_mark.line + 1 if error.problem_mark else None
        raise ParseError(STACK_FILE, line, f"not valid YAML: {error.problem}") from None
    except yaml.YAMLError as error:
        raise ParseError(STACK_FILE, None, f"not valid YAML: {error}") from None
    if not isinstance(document, dict):
        raise ParseError(STACK_FILE, None, "stack.yaml is not a mapping")
    name = _text(document, "name", document)
    file_system = document.get("file_system") or {}
    if not isinstance(file_system, dict):
        raise ParseError(STACK_FILE, document.get(_LINE), "file_system is not a mapping")
    storage_system = document.get("storage_system") or {}
    if not isinstance(storage_system, dict):
        raise ParseError(STACK_FILE, document.get(_LINE), "storage_system is not a mapping")
    specs = _read_specs(document.get("specs") or {})
    servers, server_attributes = _read_servers(_list(document, "servers"))
    components: dict[str, Component] = {}
    attributes: dict[str, dict[str, Any]] = {}
    entries: dict[str, dict] = {}
    for layer in COMPONENT_LAYERS:
        for entry in _list(document, LAYER_KEYS[layer]):
            component_name = _text(entry, "name", entry)
            if component_name in components:
                raise ParseError(STACK_FILE, entry.get(_LINE), f"component name {component_name!r} is used twice")
            server = _text(entry, "server", entry)
            if server not in servers:
                raise ParseError(STACK_FILE, entry.get(_LINE), f"{component_name}: unknown server {server!r}")
            spec = _text(entry, "spec", entry)
            if layer in SPEC_KINDS and (spec not in specs or specs[spec].kind != SPEC_KINDS[layer]):
                raise ParseError(
                    STACK_FILE,
                    entry.get(_LINE),
                    f"{component_name}: spec {spec!r} is not a {SPEC_KINDS[layer]} in specs",
                )
            below_names = tuple(_below_names(entry))
            components[component_name] = Component(component_name, layer, server, spec, below_names)
            attributes[component_name] = {
                key: value for key, value in entry.items() if key not in ("name", "server", "spec", _LINE, *BELOW_KEYS)
            }
            entries[component_name] = entry
            if len(components) > MAX_COMPONENTS:
                raise ParseError(STACK_FILE, entry.get(_LINE), f"more than {MAX_COMPONENTS} components")
    for component in components.values():
        for below in component.below:
            line = entries[component.name].get(_LINE)
            if below not in components:
                raise ParseError(STACK_FILE, line, f"{component.name}: unknown component {below!r} below it")
            if LAYERS.index(components[below].layer) >= LAYERS.index(component.layer):
                raise ParseError(
                    STACK_FILE,
                    line,
                    f"{component.name} ({component.layer}) cannot stand on {below} ({components[below].layer})",
                )
    inventory = Inventory(servers=servers, specs=specs, components=components)
    return Campaign(
        name=name,
        file_system=_plain(file_system),
        storage_system=_plain(storage_system),
        inventory=inventory,
        server_attributes=server_attributes,
        component_attributes=attributes,
    )


def read_manifest(campaign: Campaign, data: bytes, root: Path) -> None:
    """Read every manifest row's log with its tool and add its measurement to ``campaign``."""
    rows = csv_rows(manifest_text(data), MANIFEST_FILE)
    header = [cell.strip() for cell in next(rows, (1, []))[1]]
    missing = [name for name in MANIFEST_COLUMNS if name not in header]
    if missing:
        raise ParseError(
            MANIFEST_FILE,
            1,
            f"the header lacks {', '.join(missing)} (it needs {','.join(MANIFEST_COLUMNS)}, in any order)",
        )
    positions = [header.index(name) for name in MANIFEST_COLUMNS]
    readings: dict[tuple[str, str], Any] = {}
    seen: dict[tuple[str, str], int] = {}
    fs_seen: set[tuple[str, str]] = set()
    components = campaign.inventory.components
    readers = stack_readers()
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if line > MAX_MANIFEST_ROWS:
            raise ParseError(MANIFEST_FILE, line, f"more than {MAX_MANIFEST_ROWS} rows")
        if len(row) < len(header):
            raise ParseError(MANIFEST_FILE, line, f"a row needs {len(header)} columns, not {len(row)}")
        log, component, layer, operation, tool = (row[position].strip() for position in positions)
        if layer not in LAYERS:
            raise ParseError(MANIFEST_FILE, line, f"unknown layer {layer!r}; known: {', '.join(LAYERS)}")
        if layer == "file_system":
            if component != campaign.file_system_name:
                raise ParseError(
                    MANIFEST_FILE,
                    line,
                    f"unknown file system {component!r} (stack.yaml names {campaign.file_system_name!r})",
                )
        elif component not in components:
            raise ParseError(MANIFEST_FILE, line, f"unknown component {component!r}")
        elif components[component].layer != layer:
            raise ParseError(MANIFEST_FILE, line, f"{component} is at layer {components[component].layer}, not {layer}")
        if operation not in OPERATIONS:
            raise ParseError(MANIFEST_FILE, line, f"unknown operation {operation!r}; known: {', '.join(OPERATIONS)}")
        if tool not in readers:
            raise ParseError(MANIFEST_FILE, line, f"unknown tool {tool!r}; known: {', '.join(sorted(readers))}")
        if layer == "file_system":
            if (log, operation) in fs_seen:
                raise ParseError(MANIFEST_FILE, line, f"{log} is listed twice for {operation}")
            fs_seen.add((log, operation))
        elif (component, operation) in seen:
            raise ParseError(
                MANIFEST_FILE,
                line,
                f"{component} is measured twice for {operation} (first on line {seen[(component, operation)]})",
            )
        else:
            seen[(component, operation)] = line
        path = _log_path(root, log, line)
        if (log, tool) not in readings:
            readings[(log, tool)] = readers[tool].read_one(path.read_bytes(), log)
        reading = readings[(log, tool)]
        figure: Figure = reading.figure(operation)
        if not math.isfinite(figure.value):
            raise ParseError(log, figure.line, f"the {operation} figure is not finite")
        campaign.measurements.append(
            Measurement(
                component=component, layer=layer, operation=operation, measured=figure.value, tool=tool, source=log
            )
        )
        campaign.figures.append(LogFigure(reading.version, figure.printed, figure.line, line))


def _log_path(root: Path, log: str, line: int) -> Path:
    relative = PurePosixPath(log)
    if not log or relative.is_absolute() or ".." in relative.parts:
        raise ParseError(MANIFEST_FILE, line, f"log {log!r} must be a path inside the campaign")
    path = root.joinpath(*relative.parts)
    if not path.is_file() or path.is_symlink():
        raise ParseError(MANIFEST_FILE, line, f"log {log!r} is not in the campaign")
    return path


def _read_specs(specs) -> dict[str, Spec]:
    if not isinstance(specs, dict):
        raise ParseError(STACK_FILE, None, "specs is not a mapping")
    result = {}
    for key, entry in specs.items():
        if key == _LINE:
            continue
        if not isinstance(entry, dict):
            raise ParseError(STACK_FILE, specs.get(_LINE), f"spec {key!r} is not a mapping")
        kind = _text(entry, "kind", entry)
        if kind not in ("drive", "link"):
            raise ParseError(STACK_FILE, entry.get(_LINE), f"spec {key!r}: kind must be drive or link, not {kind!r}")
        figures = {}
        for operation in OPERATIONS:
            value = entry.get(operation)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise ParseError(STACK_FILE, entry.get(_LINE), f"spec {key!r}: {operation} is not a number")
            figures[operation] = float(value)
        result[str(key)] = Spec(key=str(key), kind=kind, model=str(entry.get("model", "")), figures=figures)
    return result


def _read_servers(entries: list[dict]) -> tuple[dict[str, Server], dict[str, dict[str, Any]]]:
    servers, attributes = {}, {}
    for entry in entries:
        name = _text(entry, "name", entry)
        if name in servers:
            raise ParseError(STACK_FILE, entry.get(_LINE), f"server {name!r} is listed twice")
        roles = entry.get("roles") or []
        if not isinstance(roles, list) or not all(isinstance(role, str) for role in roles):
            raise ParseError(STACK_FILE, entry.get(_LINE), f"server {name!r}: roles must be a list of names")
        servers[name] = Server(name=name, roles=tuple(roles))
        attributes[name] = _plain({key: value for key, value in entry.items() if key not in ("name", "roles")})
    return servers, attributes


def _list(document: dict, key: str) -> list[dict]:
    entries = document.get(key) or []
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise ParseError(STACK_FILE, document.get(_LINE), f"{key} must be a list of mappings")
    return entries


def _below_names(entry: dict) -> list[str]:
    names = []
    for key in BELOW_KEYS:
        value = entry.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        if not all(isinstance(name, str) and name for name in values):
            raise ParseError(STACK_FILE, entry.get(_LINE), f"{key} must name components")
        names.extend(values)
    return names


def _text(entry: dict, key: str, where: dict) -> str:
    value = entry.get(key)
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise ParseError(STACK_FILE, where.get(_LINE), f"{key!r} is missing or not a name")
    return str(value).strip()


def _plain(value):
    """A YAML value without the line markers, JSON-safe (dates and other scalars as text)."""
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items() if key != _LINE}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, bool | int | str) or (isinstance(value, float) and math.isfinite(value)):
        return value
    return str(value)
