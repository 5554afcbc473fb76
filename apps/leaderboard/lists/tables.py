"""List tables: the columns, their sort links, and one row shape for live lists and frozen editions. Their markup
is the templates' (templates/lists/_list_table.html, and jinja2/lists/_list_rows.html for the rows)."""

from dataclasses import dataclass, field
from datetime import date

from django.core.paginator import Paginator
from django.http import QueryDict
from django.urls import reverse

from apps.leaderboard.lists.columns import COLUMNS_BY_KEY, TABLE_COLUMNS, TableColumn, sort_column
from apps.results.judgements.submission_rules import rules_edition_of_date
from apps.results.models.list_columns import column_value


class KeyPaginator(Paginator):
    """Counts and slices a list's keys or entries (CountedKeys: the count is known), then loads only the page's
    rows (their runs, or their entries' badges)."""

    def __init__(self, keys, load, per_page):
        super().__init__(keys, per_page)
        self.load = load

    def _get_page(self, keys, number, paginator):
        return super()._get_page(self.load(keys), number, paginator)


#: Groups of columns a reader shows or hides with the list's column chooser: (group, label, shown by default).
#: The per-node and per-server ratios are hidden by default so that the list's main columns fit a 1,400 px
#: window; the table scrolls inside its own container, never the page.
COLUMN_GROUPS = [
    ("per-node", "Per client node", False),
    ("per-server", "Per storage server", False),
]


def column_class(column: TableColumn) -> str:
    """The CSS classes of a column's header and cells: its chooser group and whether narrow screens hide it."""
    return " ".join(
        name
        for name in (f"col-{column.group}" if column.group else "", "wide-only" if column.wide_only else "")
        if name
    )


def column_choices(sort: str | None) -> list[tuple[str, str, bool]]:
    """The chooser's (group, label, shown) triples; the group of the column the list is sorted by is shown."""
    column, _ = sort_column(sort)
    sorted_group = column.group if column else ""
    return [(group, label, shown or group == sorted_group) for group, label, shown in COLUMN_GROUPS]


#: Each column's classes, computed once (a page writes them on every cell of every row).
CELL_CLASSES = {column.key: column_class(column) for column in TABLE_COLUMNS}


@dataclass(frozen=True)
class Header:
    column: TableColumn
    sort: str  # the sort value this header's link sets
    state: str  # "asc", "desc" or ""
    href: str = ""  # the page's query with this sort, from the first page

    @property
    def aria_sort(self) -> str:
        return {"asc": "ascending", "desc": "descending"}.get(self.state, "none")

    @property
    def classes(self) -> str:
        """The header's CSS classes: numeric, its sort state, the column's chooser group and narrow-screen class."""
        return " ".join(
            name for name in ("num" if self.column.numeric else "", self.state, CELL_CLASSES[self.column.key]) if name
        )


def headers(current: str | None, default: str, query: QueryDict | None = None) -> list[Header]:
    """Sort links: a click on the sorted column reverses it; on another column, sorts it its natural way.
    Each link keeps the page's other parameters (`query`) and goes back to the first page."""
    sorted_by, descending = sort_column(current or default)
    params = (query or QueryDict()).copy()  # once: a QueryDict copy is a deep copy, and a page has 17 headers
    params.pop("page", None)
    result = []
    for column in TABLE_COLUMNS:
        if column == sorted_by:
            state = "desc" if descending else "asc"
            sort = column.key if descending else f"-{column.key}"
        else:
            state = ""
            sort = f"-{column.key}" if column.descending_first else column.key
        params["sort"] = sort
        result.append(Header(column=column, sort=sort, state=state, href=f"?{params.urlencode()}"))
    return result


SCORE = COLUMNS_BY_KEY["score"]
#: The columns after the score, each a measured number in a cell of its own.
MEASURES = [column for column in TABLE_COLUMNS[TABLE_COLUMNS.index(SCORE) + 1 :] if column.digits is not None]


@dataclass
class Row:
    """One line of a list, live or frozen: the value of each table column (`columns.TABLE_COLUMNS`, under
    its key) and what the row links to and shows beside them."""

    rank: int | None
    institution: str
    system: str
    year: int | None
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
    flagged: bool | None
    run_id: int | None
    system_id: int | None
    exclusion_reason: str = ""
    badges: list = field(default_factory=list)
    run_date: date | None = None

    @classmethod
    def from_listed(cls, entry) -> "Row":
        """From a live list's entry (ListEntryQuerySet.page_entries, with badges from load_listed)."""
        when = entry.run_timestamp
        return cls(**cls._columns(entry, frozen=False), badges=entry.badges, run_date=when.date() if when else None)

    @classmethod
    def from_entry(cls, entry) -> "Row":
        """From a frozen edition's entry; year, anomalies and badges are its run's."""
        run = entry.run
        return cls(
            **cls._columns(entry, frozen=True),
            badges=run.badges if run else [],
            run_date=run.run_timestamp.date() if run and run.run_timestamp else None,
        )

    @staticmethod
    def _columns(entry, *, frozen: bool) -> dict:
        """The table columns' values of a live or frozen entry, and the ids and reason both keep."""
        return {
            **{column.key: column_value(column.data, entry, frozen=frozen) for column in TABLE_COLUMNS},
            "run_id": entry.run_id,
            "system_id": entry.system_id,
            "exclusion_reason": entry.exclusion_reason,
        }

    @property
    def excluded(self) -> bool:
        return bool(self.exclusion_reason)

    def run_label(self) -> str:
        """How a row names its run: its date and the list it was made for ("2020-06-01 · ISC20"), else its year,
        else "run 35". Never "#35": "#" is a rank."""
        if self.run_date:
            edition = rules_edition_of_date(self.run_date.isoformat())
            return f"{self.run_date:%Y-%m-%d}" + (f" · {edition.upper()}" if edition else "")
        if self.year:
            return str(self.year)
        return f"run {self.run_id}" if self.run_id else "—"

    @property
    def measures(self) -> list[tuple[float | None, int, str]]:
        """(value, decimals, CSS classes) of each measured column after the score, in table order."""
        return [(getattr(self, column.key), column.digits, CELL_CLASSES[column.key]) for column in MEASURES]


#: The classes of the institution, run, vendor, file system and count cells (all those of the nodes column).
WIDE_CELL_CLASSES = CELL_CLASSES["nodes"]


@dataclass(frozen=True)
class LinkedRow:
    """A row with the paths of the run and system pages it links to (`table_rows`)."""

    row: Row
    run_href: str
    system_href: str


def linked_rows(rows: list[Row]) -> list[LinkedRow]:
    """Each row with the paths it links to, reversed once per table (`RowLinks`): finding the script prefix and
    URLconf again for each of a row's two links was 40% of the rows' time on a page of 50."""
    links = RowLinks.current()
    return [
        LinkedRow(
            row,
            run_href=links.run(row.run_id) if row.run_id else "",
            system_href=links.system(row.system_id) if row.system_id else "",
        )
        for row in rows
    ]


#: An id no object has, reversed in place of the real ones (`RowLinks`).
_MARKER = 2_147_483_647


@dataclass(frozen=True)
class RowLinks:
    """The paths around the id of the run and system pages a table's rows link to, reversed once per table."""

    run_path: tuple[str, str]
    system_path: tuple[str, str]

    @classmethod
    def current(cls) -> "RowLinks":
        return cls(run_path=_around_id("run-detail"), system_path=_around_id("system-detail"))

    def run(self, pk: int) -> str:
        return f"{self.run_path[0]}{pk}{self.run_path[1]}"

    def system(self, pk: int) -> str:
        return f"{self.system_path[0]}{pk}{self.system_path[1]}"


def _around_id(name: str) -> tuple[str, str]:
    """reverse(name, args=[pk]) split around the pk, for a URL whose one argument is an id."""
    head, tail = reverse(name, args=[_MARKER]).rsplit(str(_MARKER), 1)
    return head, tail
