"""Stack pages: the list of bottom-up campaigns, one stack layer by layer, and two stacks side by side.

The views read a stack's stored rows in three queries (the stack, its components with what lies below
them, its measurements) and arrange them; what the figures mean (expected, efficiency, outliers, the
ceiling) was computed when the campaign was stored (``apps.results.judgements.stacks.semantics``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any

from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.leaderboard.common.plotly_json import Chart
from apps.leaderboard.stacks.charts import layers_figure
from apps.results.judgements.stacks.semantics import BANDWIDTH_OPERATIONS, COMPONENT_LAYERS
from apps.results.models import Stack, StackComponent, StackServer
from apps.results.models.visibility import owned_visible_condition

#: Outliers listed on a stack's page; the rest are counted, and listed by the API (/api/v1/stack-measurements/).
STACK_OUTLIERS_SHOWN = 200


@dataclass
class Node:
    """A component in the tree, with its figures by operation and its children."""

    component: Part
    figures: dict[str, Figure] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)

    @property
    def outlier(self) -> bool:
        return any(m.is_outlier for m in self.figures.values())

    def figure(self, operation: str) -> Figure | None:
        return self.figures.get(operation)

    @property
    def read(self) -> Figure | None:
        return self.figures.get("read")

    @property
    def write(self) -> Figure | None:
        return self.figures.get("write")


@dataclass(slots=True)
class Part:
    """A StackComponent as the stack pages read it (its server built once, not once per component), read as plain
    values for the same reason as Figure."""

    pk: int
    name: str
    layer: str
    spec: str
    server: StackServer

    @classmethod
    def of_stack(cls, stack: Stack) -> list[Part]:
        servers: dict[int, StackServer] = {}
        parts = []
        for pk, name, layer, spec, server_id, server_name, roles in stack.components.order_by("name").values_list(
            "pk", "name", "layer", "spec", "server_id", "server__name", "server__roles"
        ):
            if server_id not in servers:
                servers[server_id] = StackServer(pk=server_id, stack=stack, name=server_name, roles=roles)
            parts.append(cls(pk, name, layer, spec, servers[server_id]))
        return parts


@dataclass(slots=True)
class Figure:
    """A StackMeasurement as the stack pages read it: its figures and what they mean, as plain values. A
    stack has hundreds of measurements, and building a model instance for each was a third of a page's time."""

    component_id: int | None
    layer: str
    operation: str
    measured: float
    expected: float | None
    efficiency: float | None
    peer_median: float | None
    is_outlier: bool
    over_ceiling: bool
    source: str
    component: Part | None = None

    @classmethod
    def of_stack(cls, stack: Stack) -> list[Figure]:
        names = [f.name for f in fields(cls) if f.name != "component"]
        return [cls(*row) for row in stack.measurements.order_by("position").values_list(*names)]


@dataclass
class StackView:
    stack: Stack
    components: dict[int, Part]
    measurements: list[Figure]
    by_component: dict[int, dict[str, Figure]]
    below: dict[int, list[int]]

    @classmethod
    def load(cls, stack: Stack) -> StackView:
        components = {part.pk: part for part in Part.of_stack(stack)}
        below: dict[int, list[int]] = defaultdict(list)
        through = StackComponent.below.through
        for upper, lower in through.objects.filter(from_stackcomponent__stack=stack).values_list(
            "from_stackcomponent_id", "to_stackcomponent_id"
        ):
            below[upper].append(lower)
        measurements = Figure.of_stack(stack)
        by_component: dict[int, dict[str, Figure]] = defaultdict(dict)
        for m in measurements:
            if m.component_id is not None:
                m.component = components[m.component_id]
                by_component[m.component_id][m.operation] = m
        return cls(stack, components, measurements, by_component, below)

    @cached_property
    def layer_rows(self) -> list[Figure]:
        return [m for m in self.measurements if m.component_id is not None]

    @cached_property
    def file_system_rows(self) -> list[Figure]:
        return [m for m in self.measurements if m.component_id is None]

    @cached_property
    def _expected_rows(self) -> dict[tuple[str, str], list[Figure]]:
        """The layer rows with an expected figure by (layer, operation): the page sums them per layer and operation
        several times (steps, loss), and a stack has thousands of rows."""
        rows: dict[tuple[str, str], list[Figure]] = defaultdict(list)
        for m in self.layer_rows:
            if m.expected is not None:
                rows[m.layer, m.operation].append(m)
        return rows

    @property
    def outliers(self) -> list[Figure]:
        return [m for m in self.layer_rows if m.is_outlier]

    @property
    def shown_outliers(self) -> list[Figure]:
        """The first STACK_OUTLIERS_SHOWN outliers: an upload chooses how many there are (up to
        IOBOARD_STACK_MAX_MEASUREMENTS), and the API lists them all, a page at a time."""
        return self.outliers[:STACK_OUTLIERS_SHOWN]

    @property
    def more_outliers(self) -> int:
        return max(0, len(self.outliers) - STACK_OUTLIERS_SHOWN)

    def layer_steps(self, operation: str) -> list[dict[str, Any]]:
        """Per layer, the sums of measured and expected over the rows where both are known, and their ratio:
        where along the path from the drives to the file system the bandwidth is lost. The last step is the
        file system: its best run against the ceiling."""
        steps = []
        for layer in COMPONENT_LAYERS:
            rows = self._expected_rows.get((layer, operation))
            if rows:
                measured, expected = sum(m.measured for m in rows), sum(m.expected for m in rows)
                steps.append(
                    {
                        "layer": layer,
                        "label": f"{layer.replace('_', ' ')} ({len(rows)})",
                        "measured": measured,
                        "expected": expected,
                        "efficiency": measured / expected if expected else None,
                        "count": len(rows),
                    }
                )
        runs = [m for m in self.file_system_rows if m.operation == operation]
        ceiling = self.stack.ceiling(operation)
        if runs and ceiling:
            best = max(runs, key=lambda m: m.measured)
            steps.append(
                {
                    "layer": "file_system",
                    "label": "file system (best run)",
                    "measured": best.measured,
                    "expected": ceiling,
                    "efficiency": best.measured / ceiling,
                    "count": len(runs),
                }
            )
        return steps

    def loss(self, operation: str) -> dict[str, Any] | None:
        """The step with the lowest efficiency (where the loss happens)."""
        steps = [step for step in self.layer_steps(operation) if step["efficiency"] is not None]
        return min(steps, key=lambda step: step["efficiency"]) if steps else None

    def tree(self) -> list[dict[str, Any]]:
        """Server -> groups of drives (cards) -> drives; drives in no group under the server itself. Other
        layers are in ``built`` (arrays, file systems, OSTs) and ``network``."""
        servers: dict[str, dict[str, Any]] = {}
        grouped: set[int] = set()
        for component in self.components.values():
            entry = servers.setdefault(
                component.server.name,
                {"server": component.server, "groups": [], "drives": [], "built": [], "network": []},
            )
            node = self._node(component)
            if component.layer == "device_group":
                node.children = [
                    self._node(self.components[pk])
                    for pk in sorted(self.below[component.pk], key=lambda pk: self.components[pk].name)
                ]
                grouped.update(self.below[component.pk])
                entry["groups"].append(node)
            elif component.layer in ("block", "local_fs", "ost"):
                entry["built"].append(node)
            elif component.layer in ("network", "lnet"):
                entry["network"].append(node)
        for component in self.components.values():
            if component.layer == "device" and component.pk not in grouped:
                servers[component.server.name]["drives"].append(self._node(component))
        for entry in servers.values():
            entry["groups"].sort(key=lambda node: (len(self.below[node.component.pk]), node.component.name))
            entry["built"].sort(key=lambda node: (COMPONENT_LAYERS.index(node.component.layer), node.component.name))
        return [servers[name] for name in sorted(servers)]

    def same_drives(self) -> list[dict[str, Any]]:
        """Arrays and local file systems built from the same drives (the same device groups below them, an
        array's file system counting with its array's groups), one table per set of drives."""
        tables: dict[tuple[str, ...], list[Node]] = defaultdict(list)
        for component in self.components.values():
            if component.layer in ("block", "local_fs"):
                tables[tuple(sorted(self._groups_under(component.pk)))].append(self._node(component))
        return [
            {"groups": list(key), "rows": sorted(rows, key=lambda n: (n.component.layer, n.component.name))}
            for key, rows in sorted(tables.items())
            if key
        ]

    def _groups_under(self, pk: int) -> set[str]:
        names: set[str] = set()
        for lower in self.below[pk]:
            component = self.components[lower]
            if component.layer == "device_group":
                names.add(component.name)
            elif component.layer == "block":
                names |= self._groups_under(lower)
        return names

    def _node(self, component: Part) -> Node:
        return Node(component, self.by_component.get(component.pk, {}))


def stack_list(request: HttpRequest) -> HttpResponse:
    stacks = (
        Stack.objects.filter(owned_visible_condition(request.user))
        .select_related("system__institution")
        .annotate(
            layer_rows=Count("measurements", filter=Q(measurements__component__isnull=False)),
            outliers=Count("measurements", filter=Q(measurements__is_outlier=True)),
            over_ceiling=Count("measurements", filter=Q(measurements__over_ceiling=True)),
        )
        .order_by("name")
    )
    return render(request, "stacks/stack_list.html", {"stacks": stacks})


def stack_detail(request: HttpRequest, name: str) -> HttpResponse:
    stack = get_object_or_404(
        Stack.objects.filter(owned_visible_condition(request.user)).select_related("system__institution"), name=name
    )
    view = StackView.load(stack)
    charts = [
        Chart(f"fig-stack-{operation}", layers_figure(view.layer_steps(operation), operation))
        for operation in BANDWIDTH_OPERATIONS
        if view.layer_steps(operation)
    ]
    return render(
        request,
        "stacks/stack_detail.html",
        {
            "stack": stack,
            "view": view,
            "charts": charts,
            "losses": [(operation, view.loss(operation)) for operation in BANDWIDTH_OPERATIONS],
            "specs": stack.specs.order_by("kind", "key"),
            "servers": stack.servers.order_by("name"),
            "ior_points": stack.ior_points_against_ceiling(request.user),
            "runs": (
                stack.system.runs.visible_to(request.user)
                .filter(kind="io500")
                .prefetch_related("anomalies")
                .order_by("-score_bw", "pk")[:20]
                if stack.system
                else []
            ),
        },
    )


def stack_compare(request: HttpRequest) -> HttpResponse:
    names = [request.GET.get("a", ""), request.GET.get("b", "")]
    readable = Stack.objects.filter(owned_visible_condition(request.user))
    stacks = {stack.name: stack for stack in readable.filter(name__in=names)}
    columns = []
    for name in names:
        if name in stacks:
            view = StackView.load(stacks[name])
            columns.append(
                {
                    "stack": stacks[name],
                    "view": view,
                    "steps": {operation: view.layer_steps(operation) for operation in BANDWIDTH_OPERATIONS},
                }
            )
    return render(
        request,
        "stacks/stack_compare.html",
        {
            "columns": columns,
            "names": names,
            "all_stacks": readable.order_by("name").values_list("name", flat=True),
        },
    )
