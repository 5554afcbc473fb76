"""List tables: the columns, their sort links, and one row shape for live lists and frozen editions."""

from dataclasses import dataclass, field

from django.core.paginator import Paginator

from apps.results.querysets import sort_field


class KeyPaginator(Paginator):
    """Counts and slices a narrow (pk, rank) list (RunQuerySet.ranked_keys), then loads only the page's rows."""

    def __init__(self, keys, load, per_page):
        super().__init__(keys, per_page)
        self.load = load

    def _get_page(self, keys, number, paginator):
        return super()._get_page(self.load(keys), number, paginator)


@dataclass(frozen=True)
class Column:
    key: str  # the public sort key (apps.results.querysets.SORTS)
    label: str
    title: str = ""
    numeric: bool = False
    descending_first: bool = False  # the first click sorts big-to-small (scores, counts)


COLUMNS = [
    Column("rank", "#", "place on the whole list; filters and sorting never change it", numeric=True),
    Column("institution", "Institution"),
    Column("system", "System"),
    Column("vendor", "Storage vendor"),
    Column("filesystem", "File system"),
    Column("nodes", "Client nodes", numeric=True, descending_first=True),
    Column("procs", "Total procs", "total client processes", numeric=True, descending_first=True),
    Column("score", "Score", "IO500 score, recomputed from the phases", numeric=True, descending_first=True),
    Column("bw", "BW", "bandwidth score, GiB/s", numeric=True, descending_first=True),
    Column("md", "MD", "metadata score, kIOPS", numeric=True, descending_first=True),
    Column("score_per_node", "Score/node", "score per client node", numeric=True, descending_first=True),
    Column("bw_per_node", "BW/node", "GiB/s per client node", numeric=True, descending_first=True),
    Column("md_per_node", "MD/node", "kIOPS per client node", numeric=True, descending_first=True),
    Column("score_per_server", "Score/server", "score per storage server, where the server count is known",
           numeric=True, descending_first=True),
    Column("bw_per_server", "BW/server", "GiB/s per storage server", numeric=True, descending_first=True),
    Column("md_per_server", "MD/server", "kIOPS per storage server", numeric=True, descending_first=True),
    Column("flagged", "Anomalies", "warning-level anomalies first", descending_first=True),
]


@dataclass(frozen=True)
class Header:
    column: Column
    sort: str  # the sort value this header's link sets
    state: str  # "asc", "desc" or ""

    @property
    def aria_sort(self) -> str:
        return {"asc": "ascending", "desc": "descending"}.get(self.state, "none")


def headers(current: str | None, default: str) -> list[Header]:
    """Sort links: a click on the sorted column reverses it; on another column, sorts it its natural way."""
    field_name, descending = sort_field(current or default)
    result = []
    for column in COLUMNS:
        if column.key == field_name:
            state = "desc" if descending else "asc"
            sort = column.key if descending else f"-{column.key}"
        else:
            state = ""
            sort = f"-{column.key}" if column.descending_first else column.key
        result.append(Header(column=column, sort=sort, state=state))
    return result


@dataclass
class Row:
    """One line of a list, live or frozen."""

    rank: int | None
    run_id: int | None
    system_id: int | None
    institution: str
    system: str
    vendor: str
    filesystem: str
    nodes: int | None
    procs: int | None
    score: float | None
    bw: float | None
    md: float | None
    score_per_node: float | None
    bw_per_node: float | None
    md_per_node: float | None
    score_per_server: float | None
    bw_per_server: float | None
    md_per_server: float | None
    exclusion_reason: str = ""
    year: int | None = None
    badges: list = field(default_factory=list)

    @classmethod
    def from_run(cls, run) -> "Row":
        system = run.system
        return cls(
            rank=run.rank, run_id=run.pk, system_id=system.pk, institution=system.institution.name,
            system=system.name, vendor=system.storage_vendor, filesystem=system.filesystem,
            nodes=run.client_nodes, procs=run.client_procs, score=run.score_total, bw=run.score_bw, md=run.score_md,
            score_per_node=run.score_per_node, bw_per_node=run.bw_per_node, md_per_node=run.md_per_node,
            score_per_server=run.score_per_server, bw_per_server=run.bw_per_server, md_per_server=run.md_per_server,
            exclusion_reason=run.exclusion_reason, year=run.year, badges=run.badges,
        )

    @classmethod
    def from_entry(cls, entry) -> "Row":
        run = entry.run
        return cls(
            rank=entry.rank, run_id=entry.run_id, system_id=entry.system_id, institution=entry.institution_name,
            system=entry.system_name, vendor=entry.storage_vendor, filesystem=entry.filesystem,
            nodes=entry.client_nodes, procs=entry.client_procs, score=entry.score, bw=entry.score_bw,
            md=entry.score_md, score_per_node=entry.score_per_node, bw_per_node=entry.bw_per_node,
            md_per_node=entry.md_per_node, score_per_server=entry.score_per_server,
            bw_per_server=entry.bw_per_server, md_per_server=entry.md_per_server,
            exclusion_reason=entry.exclusion_reason, year=run.year if run else None,
            badges=run.badges if run else [],
        )

    @property
    def excluded(self) -> bool:
        return bool(self.exclusion_reason)
