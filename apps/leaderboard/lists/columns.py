"""How the list table shows each column of the list vocabulary: its header, decimals, alignment and where narrow
screens hide it.

The data half of a column (where its value is stored, its sort key, export name and description) is
apps.results.models.list_columns'; this module adds what only a page needs, keyed by the column's key, in table
order. A column of the vocabulary without an entry here is not a column of the table (the run id is a link there).
"""

from dataclasses import dataclass

from apps.results.models import list_columns
from apps.results.models.list_columns import ListColumn


@dataclass(frozen=True)
class TableColumn:
    """A column of the HTML table.

    data: the column of the list vocabulary it shows.
    label, unit: said in the column's header ("BW (GiB/s)").
    numeric: a number (right-aligned).
    digits: decimals a page shows of a measured number; None for text and counts.
    descending_first: the header's first click sorts big-to-small (scores, counts).
    group: the column chooser's group ("per-node", "per-server"); "" for columns always shown.
    wide_only: hidden on narrow screens (static/css/ioboard.css): at 420 px rank, system and score stay in view.
    tooltip: the header's tooltip when it says more than the column's description.
    """

    data: ListColumn
    label: str
    unit: str = ""
    numeric: bool = False
    digits: int | None = None
    descending_first: bool = False
    group: str = ""
    wide_only: bool = False
    tooltip: str = ""

    @property
    def key(self) -> str:
        return self.data.key

    @property
    def title(self) -> str:
        """The header's tooltip."""
        return self.tooltip or self.data.description

    @property
    def header(self) -> str:
        """The column's header: its label and unit."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


def _column(key: str, label: str, **display) -> TableColumn:
    return TableColumn(list_columns.COLUMNS_BY_KEY[key], label, **display)


def _ratio(key: str, label: str, unit: str, per: str) -> TableColumn:
    """A normalised score: the table hides its group until the reader shows it."""
    return _column(key, label, unit=unit, numeric=True, digits=3, descending_first=True, group=f"per-{per}")


#: The columns of the HTML table, in order.
TABLE_COLUMNS: tuple[TableColumn, ...] = (
    _column("rank", "Rank", numeric=True),
    _column("institution", "Institution", wide_only=True),
    _column("system", "System"),
    _column("year", "Run", tooltip="the run's date and the list (BoF) it was made for; opens the run"),
    _column("vendor", "Vendor", wide_only=True),
    _column("filesystem", "File system", wide_only=True),
    _column("nodes", "Nodes", numeric=True, descending_first=True, wide_only=True),
    _column("procs", "Procs", numeric=True, descending_first=True, wide_only=True),
    _column("score", "Score", numeric=True, digits=2, descending_first=True),
    _column("bw", "BW", unit="GiB/s", numeric=True, digits=2, descending_first=True),
    _column("md", "MD", unit="kIOPS", numeric=True, digits=2, descending_first=True),
    _ratio("score_per_node", "Score per node", "", "node"),
    _ratio("bw_per_node", "BW per node", "GiB/s", "node"),
    _ratio("md_per_node", "MD per node", "kIOPS", "node"),
    _ratio("score_per_server", "Score per server", "", "server"),
    _ratio("bw_per_server", "BW per server", "GiB/s", "server"),
    _ratio("md_per_server", "MD per server", "kIOPS", "server"),
    _column("flagged", "Anomalies", descending_first=True),
)
COLUMNS_BY_KEY = {column.key: column for column in TABLE_COLUMNS}


def sort_column(key: str | None) -> tuple[TableColumn | None, bool]:
    """The table column a sort key sorts by and whether it is descending (list_columns.sort_column); (None, ...)
    for a key that is no column of the table (the run id)."""
    column, descending = list_columns.sort_column(key)
    return (COLUMNS_BY_KEY.get(column.key) if column else None), descending
