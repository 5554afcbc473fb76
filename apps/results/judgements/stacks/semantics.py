"""What a bottom-up campaign's measurements mean (the stack-sample README's semantics, exactly).

* ``expected`` of a device or network link is its spec figure for the operation; of any other
  component, the sum over the components directly below it of their ``measured``, or, where one
  was not measured, of that one's own ``expected``; unknown (None) where a needed figure is.
* ``efficiency`` = measured / expected.
* Outliers: among peers (same layer, operation and spec), a measured rate below
  ``OUTLIER_FRACTION`` x the median of all the peers' rates (its own included).
* The ceiling, per operation: min(storage, network) where storage = the sum over storage servers
  (role ``oss``) of the highest storage layer measured on the server's data path (``ost``, else
  ``local_fs``, else ``block``, else ``device_group``; when none is, the OSTs' expected) and network =
  the sum over storage servers of their measured ``lnet``, else ``network``, else the link figure.
  ``limited_by`` names the smaller sum, ``storage`` on a tie.
* A file-system measurement above ``OVER_CEILING_FACTOR`` x the ceiling is over the ceiling.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass, field

LAYERS = ("device", "device_group", "block", "local_fs", "network", "lnet", "ost", "file_system")
COMPONENT_LAYERS = LAYERS[:-1]
SPEC_LAYERS = ("device", "network")  # whose expected is their spec figure
STORAGE_LAYERS_TOP_DOWN = ("ost", "local_fs", "block", "device_group")
NETWORK_LAYERS_TOP_DOWN = ("lnet", "network")
OPERATIONS = ("read", "write", "randread", "randwrite")
BANDWIDTH_OPERATIONS = ("read", "write")
STORAGE_ROLE = "oss"
IOPS_OPERATIONS = ("randread", "randwrite")
OUTLIER_FRACTION = 0.8
OVER_CEILING_FACTOR = 1.10
GIB_PER_S_IN_MB_PER_S = 2**30 / 10**6  # IO500 prints bandwidth in GiB/s; the stack's unit is 10^6 bytes/s


def unit_of(operation: str) -> str:
    """``MB/s`` (10^6 bytes/s) for sequential bandwidth, ``IOPS`` for random operations."""
    return "IOPS" if operation in IOPS_OPERATIONS else "MB/s"


@dataclass(frozen=True)
class Spec:
    key: str
    kind: str  # "drive" or "link"
    model: str = ""
    figures: dict[str, float] = field(default_factory=dict)  # operation -> MB/s or IOPS; absent = unknown


@dataclass(frozen=True)
class Server:
    name: str
    roles: tuple[str, ...] = ()

    @property
    def is_storage(self) -> bool:
        return STORAGE_ROLE in self.roles


@dataclass(frozen=True)
class Component:
    name: str
    layer: str
    server: str
    spec: str
    below: tuple[str, ...] = ()  # names of the components directly below (members, groups, built_on)


@dataclass
class Inventory:
    servers: dict[str, Server]
    specs: dict[str, Spec]
    components: dict[str, Component]

    def below(self, component: Component) -> list[Component]:
        """The components directly below; an LNet interface without ``built_on`` stands on its server's links."""
        if component.below:
            return [self.components[name] for name in component.below]
        if component.layer == "lnet":
            return [
                other
                for other in self.components.values()
                if other.layer == "network" and other.server == component.server
            ]
        return []

    def data_path(self, server: str) -> list[Component]:
        """A storage server's OSTs and everything below them."""
        seen: dict[str, Component] = {}
        stack = [c for c in self.components.values() if c.layer == "ost" and c.server == server]
        while stack:
            component = stack.pop()
            if component.name not in seen:
                seen[component.name] = component
                stack.extend(self.below(component))
        return list(seen.values())


@dataclass(frozen=True)
class Measurement:
    """One log's figure for one component (or, at ``file_system``, for the file system) and operation."""

    component: str
    layer: str
    operation: str
    measured: float
    tool: str
    source: str


@dataclass
class LayerRow:
    measurement: Measurement
    spec: str
    expected: float | None
    efficiency: float | None
    peer_median: float | None = None
    outlier: bool = False


@dataclass
class Ceiling:
    """Per operation: the ceiling, the two sums it is the smaller of, and which one limits."""

    value: dict[str, float | None]
    storage: dict[str, float | None]
    network: dict[str, float | None]
    limited_by: dict[str, str]
    storage_sources: dict[str, dict[str, str]]  # operation -> server -> the layer counted


@dataclass
class FileSystemRow:
    measurement: Measurement
    ceiling: float | None
    efficiency: float | None
    over_ceiling: bool


@dataclass
class Evaluation:
    layers: list[LayerRow]
    ceiling: Ceiling
    file_system: list[FileSystemRow]

    @property
    def outliers(self) -> list[LayerRow]:
        return [row for row in self.layers if row.outlier]


def evaluate(inventory: Inventory, measurements: list[Measurement]) -> Evaluation:
    measured = {(m.component, m.operation): m.measured for m in measurements if m.layer != "file_system"}
    expected = _Expected(inventory, measured)
    rows = []
    for m in sorted((m for m in measurements if m.layer != "file_system"), key=_layer_order):
        component = inventory.components[m.component]
        value = expected(component, m.operation)
        rows.append(LayerRow(m, component.spec, value, _ratio(m.measured, value)))
    _mark_outliers(rows)
    ceiling = _ceiling(inventory, measured, expected)
    file_system = []
    for m in sorted((m for m in measurements if m.layer == "file_system"), key=_file_system_order):
        limit = ceiling.value.get(m.operation)
        file_system.append(
            FileSystemRow(
                m, limit, _ratio(m.measured, limit), limit is not None and m.measured > OVER_CEILING_FACTOR * limit
            )
        )
    return Evaluation(rows, ceiling, file_system)


class _Expected:
    """``expected`` of each component and operation, memoised (the inventory is a DAG: checked at reading)."""

    def __init__(self, inventory: Inventory, measured: dict[tuple[str, str], float]):
        self.inventory, self.measured = inventory, measured
        self.memo: dict[tuple[str, str], float | None] = {}

    def __call__(self, component: Component, operation: str) -> float | None:
        key = (component.name, operation)
        if key not in self.memo:
            self.memo[key] = self._compute(component, operation)
        return self.memo[key]

    def _compute(self, component: Component, operation: str) -> float | None:
        if component.layer in SPEC_LAYERS:
            spec = self.inventory.specs.get(component.spec)
            return spec.figures.get(operation) if spec else None
        below = self.inventory.below(component)
        if not below:
            return None
        total = 0.0
        for part in below:
            value = self.measured.get((part.name, operation))
            if value is None:
                value = self(part, operation)
            if value is None:
                return None
            total += value
        return total


def _mark_outliers(rows: list[LayerRow]) -> None:
    peers: dict[tuple[str, str, str], list[LayerRow]] = defaultdict(list)
    for row in rows:
        peers[(row.measurement.layer, row.measurement.operation, row.spec)].append(row)
    for group in peers.values():
        median = statistics.median(row.measurement.measured for row in group)
        for row in group:
            row.peer_median = median
            row.outlier = row.measurement.measured < OUTLIER_FRACTION * median


def _ceiling(inventory: Inventory, measured: dict[tuple[str, str], float], expected: _Expected) -> Ceiling:
    storage_servers = [server for server in inventory.servers.values() if server.is_storage]
    ceiling = Ceiling({}, {}, {}, {}, {})
    for operation in BANDWIDTH_OPERATIONS:
        sources: dict[str, str] = {}
        storage = _sum_over(
            [_storage_of(inventory, server.name, operation, measured, expected, sources) for server in storage_servers]
        )
        network = _sum_over([_network_of(inventory, server.name, operation, measured) for server in storage_servers])
        ceiling.storage[operation], ceiling.network[operation] = storage, network
        ceiling.storage_sources[operation] = sources
        known = [value for value in (storage, network) if value is not None]
        ceiling.value[operation] = min(known) if known else None
        if known:
            ceiling.limited_by[operation] = (
                "storage" if network is None or (storage is not None and storage <= network) else "network"
            )
    return ceiling


def _sum_over(values: list[float | None]) -> float | None:
    """The sum of the storage servers' figures; unknown when there is none or one is unknown."""
    known = [value for value in values if value is not None]
    if not values or len(known) < len(values):
        return None
    return sum(known)


def _storage_of(
    inventory: Inventory, server: str, operation: str, measured, expected: _Expected, sources: dict[str, str]
) -> float | None:
    path = inventory.data_path(server)
    for layer in STORAGE_LAYERS_TOP_DOWN:
        values = [measured[(c.name, operation)] for c in path if c.layer == layer and (c.name, operation) in measured]
        if values:
            sources[server] = layer
            return sum(values)
    osts = [c for c in path if c.layer == "ost"]
    values = [expected(c, operation) for c in osts]
    if not osts or any(value is None for value in values):
        return None
    sources[server] = "expected"
    return sum(values)


def _network_of(inventory: Inventory, server: str, operation: str, measured) -> float | None:
    own = [c for c in inventory.components.values() if c.server == server]
    for layer in NETWORK_LAYERS_TOP_DOWN:
        values = [measured[(c.name, operation)] for c in own if c.layer == layer and (c.name, operation) in measured]
        if values:
            return sum(values)
    links = [c for c in own if c.layer == "network"]
    figures = [inventory.specs[c.spec].figures.get(operation) if c.spec in inventory.specs else None for c in links]
    known = [figure for figure in figures if figure is not None]
    if not links or len(known) < len(figures):
        return None
    return sum(known)


def _ratio(measured: float, reference: float | None) -> float | None:
    return measured / reference if reference else None


def _layer_order(m: Measurement) -> tuple:
    return LAYERS.index(m.layer), m.component, OPERATIONS.index(m.operation)


def _file_system_order(m: Measurement) -> tuple:
    return m.source, ("write", "read").index(m.operation) if m.operation in ("write", "read") else 2
