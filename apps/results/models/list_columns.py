"""The list vocabulary: every column a list shows, sorts and filters on, declared once.

A list is read through four front ends (the HTML pages and their filter form, the CSV and JSON
exports, the API) over two stores (the live lists' maintained ListEntry rows and the frozen
EditionEntry rows). Each used to name the same column its own way; now each reads this module:

- the sort keys of pages (`?sort=`) and of the API (`?ordering=`), and the columns they order by
  (apps.results.models.querysets for live lists, apps.results.services.editions for frozen ones);
- the filter criteria (`CRITERIA`), their lookups and where each looks in either store;
- the page's filter form (apps.leaderboard.lists.filters) and the API's FilterSet (apps.api.lists.filters);
- the table's row values (apps.leaderboard.lists.tables) and the export key of each column.

What a page makes of a column (its header's label and unit, its decimals, whether narrow screens hide it) is the
front end's: apps.leaderboard.lists.columns, keyed by the column's key.

Adding a column is one `ListColumn(...)` here, its ListEntry and EditionEntry fields, and (for a sort key)
its sort indexes: tests/results/models/test_list_sort_indexes.py fails for a sort key without one.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.db.models import Q


@dataclass(frozen=True)
class ListColumn:
    """One column of a list: where its value is stored and under which names it is sorted, filtered and exported.

    key: the public name: the sort key (`?sort=bw`, `?ordering=-bw`) and the row attribute.
    entry_field: the ListEntry field (or normalised-score annotation) holding the value.
    edition_field: the EditionEntry field, or path through its run ("run__year"), holding the frozen value.
    export_name: the key of the column in list exports (CSV header, JSON record); the run export's names.
    run_field: the Run field or path a live entry copies (apps.results.services.list_entries); "" for what a
        list computes on read (the rank, the ratios).
    entry_order: the ListEntry field a sort reads when it is not `entry_field`, "-" when a rising key is a
        falling field (the live rank is a stored base plus shifts: sorted by rank, a list is sorted by score).
    description: what the value is, in words (the API's help text, the table header's tooltip).
    normalised: a score per client node or storage server, computed on read (querysets.normalised_scores) under
        the column's key, for live and frozen entries and listed runs alike.
    sortable: offered as a sort key (each has its sort indexes on ListEntry, migrations 0007, 0017, 0019).
    unique: unique on a list and never NULL: a sort by it needs no tie-breaker (ListEntryQuerySet.sort_listed).
    """

    key: str
    entry_field: str
    edition_field: str
    export_name: str
    run_field: str = ""
    description: str = ""
    entry_order: str = ""
    normalised: bool = False
    sortable: bool = True
    unique: bool = False

    @property
    def sort_field(self) -> str:
        """The ListEntry field a live list is sorted by for this key (without the "-" of `entry_order`)."""
        return (self.entry_order or self.entry_field).removeprefix("-")

    @property
    def sort_reversed(self) -> bool:
        """Whether the key's rising order is its sort field's falling one (rank: score)."""
        return self.entry_order.startswith("-")


def _ratio(key: str, description: str) -> ListColumn:
    """A normalised score, stored by neither entry."""
    return ListColumn(key, key, key, key, description=description, normalised=True)


#: Every column, in table order. Positional: key, ListEntry field, EditionEntry field, export name, Run field.
LIST_COLUMNS: tuple[ListColumn, ...] = (
    ListColumn(
        "rank",
        "rank",
        "rank",
        "rank",
        entry_order="-score",
        description="place on the whole list; filters and sorting never change it",
    ),
    ListColumn("institution", "institution_name", "institution_name", "institution", "system__institution__name"),
    ListColumn("system", "system_name", "system_name", "system", "system__name"),
    ListColumn(
        "year", "year", "run__year", "year", "year", description="the run's date and the list (BoF) it was made for"
    ),
    ListColumn(
        "vendor",
        "storage_vendor",
        "storage_vendor",
        "storage_vendor",
        "system__storage_vendor",
        description="storage vendor",
    ),
    ListColumn("filesystem", "filesystem", "filesystem", "filesystem", "system__filesystem"),
    ListColumn("nodes", "client_nodes", "client_nodes", "client_nodes", "client_nodes", description="client nodes"),
    ListColumn(
        "procs", "client_procs", "client_procs", "client_procs", "client_procs", description="total client processes"
    ),
    # A list kind may rank by another expression (ListKind.rank_by): its entries' score is that.
    ListColumn(
        "score",
        "score",
        "score",
        "score_total",
        "score_total",
        description="IO500 score (geometric mean of BW in GiB/s and MD in kIOPS), recomputed from the phases",
    ),
    ListColumn("bw", "score_bw", "score_bw", "score_bw", "score_bw", description="bandwidth score, GiB/s"),
    ListColumn("md", "score_md", "score_md", "score_md", "score_md", description="metadata score, kIOPS"),
    _ratio("score_per_node", "score per client node"),
    _ratio("bw_per_node", "GiB/s per client node"),
    _ratio("md_per_node", "kIOPS per client node"),
    _ratio("score_per_server", "score per storage server, where the server count is known"),
    _ratio("bw_per_server", "GiB/s per storage server"),
    _ratio("md_per_server", "kIOPS per storage server"),
    ListColumn("flagged", "flagged", "run__flagged", "flagged", "flagged", description="warning-level anomalies first"),
    ListColumn("id", "run_id", "run_id", "id", "pk", unique=True),
    # Filtered on (`?system=<id>`), never sorted by: a sort by "system" is by the system's name.
    ListColumn("system_id", "system_id", "system_id", "system_id", "system_id", sortable=False),
)
COLUMNS_BY_KEY = {column.key: column for column in LIST_COLUMNS}
#: The per-node and per-server scores, computed on read under their keys: list rows, exports and the API carry them all.
NORMALISED_COLUMNS = tuple(column for column in LIST_COLUMNS if column.normalised)
#: The public sort keys, each also descending with a "-".
SORT_KEYS = tuple(column.key for column in LIST_COLUMNS if column.sortable)
SORT_CHOICES = [(key, key) for name in SORT_KEYS for key in (name, f"-{name}")]


def sort_column(key: str | None) -> tuple[ListColumn | None, bool]:
    """(the "bw" column, True) for "-bw"; (None, False) for an empty or unknown key."""
    if not key:
        return None, False
    descending = key.startswith("-")
    column = COLUMNS_BY_KEY.get(key.removeprefix("-"))
    return (column, descending) if column and column.sortable else (None, False)


@dataclass(frozen=True)
class Criterion:
    """A query parameter that narrows a list (`?nodes_min=10`): the same on pages, exports and the API.

    columns: the columns it looks in; a row matches when any of them does.
    lookup: the Django lookup of the comparison ("icontains", "gte"...).
    value: the type of the parameter's value (str, int or bool).
    on_form: offered by the page's filter form (an id is given by links, not typed).
    choice_labels: how the form names True and False of a bool criterion.
    input_attrs: HTML attributes of the form's input (a placeholder, a datalist).
    """

    parameter: str
    columns: tuple[str, ...]
    lookup: str
    value: type
    label: str
    description: str
    min_value: int | None = None
    max_value: int | None = None
    on_form: bool = True
    choice_labels: tuple[str, str] = ("yes", "no")
    input_attrs: Mapping[str, object] = field(default_factory=dict)


#: Every filter criterion, in the form's order.
CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "search",
        ("system", "institution", "vendor"),
        "icontains",
        str,
        "Search",
        "system, institution or vendor contains",
        input_attrs={"placeholder": "system, institution, vendor"},
    ),
    Criterion(
        "filesystem",
        ("filesystem",),
        "iexact",
        str,
        "File system",
        "file system, exact, any case",
        input_attrs={"list": "filesystems"},
    ),
    Criterion("institution", ("institution",), "icontains", str, "Institution", "institution contains"),
    Criterion("vendor", ("vendor",), "icontains", str, "Storage vendor", "storage vendor contains"),
    Criterion("year", ("year",), "exact", int, "Year", "the run's year", min_value=1990, max_value=2200),
    Criterion(
        "nodes_min",
        ("nodes",),
        "gte",
        int,
        "Nodes from",
        "at least this many client nodes",
        min_value=0,
        input_attrs={"size": 5},
    ),
    Criterion(
        "nodes_max",
        ("nodes",),
        "lte",
        int,
        "Nodes to",
        "at most this many client nodes",
        min_value=0,
        input_attrs={"size": 5},
    ),
    Criterion(
        "flagged",
        ("flagged",),
        "exact",
        bool,
        "Anomalies",
        "has a warning-level anomaly",
        choice_labels=("flagged", "not flagged"),
    ),
    Criterion(
        "system", ("system_id",), "exact", int, "Storage system", "storage system id", min_value=0, on_form=False
    ),
    Criterion("run", ("id",), "exact", int, "Run", "run id", min_value=0, on_form=False),
)
CRITERIA_BY_PARAMETER = {criterion.parameter: criterion for criterion in CRITERIA}


def criteria_condition(criteria: Mapping, *, frozen: bool = False) -> Q:
    """The condition of filter criteria ({parameter: value}) over list entries, or over edition entries when
    `frozen`; None and "" values are ignored."""
    unknown = set(criteria) - set(CRITERIA_BY_PARAMETER)
    if unknown:
        raise ValueError(f"unknown list filters: {', '.join(sorted(unknown))}")
    condition = Q()
    for name, value in criteria.items():
        if value is None or value == "":
            continue
        criterion = CRITERIA_BY_PARAMETER[name]
        fields = [column_field(COLUMNS_BY_KEY[key], frozen=frozen) for key in criterion.columns]
        condition &= Q(*[Q(**{f"{field_name}__{criterion.lookup}": value}) for field_name in fields], _connector=Q.OR)
    return condition


def column_field(column: ListColumn, *, frozen: bool = False) -> str:
    return column.edition_field if frozen else column.entry_field


def column_value(column: ListColumn, entry, *, frozen: bool = False):
    """The column's value in a list entry, or an edition entry when `frozen` (None past a deleted run)."""
    value = entry
    for name in column_field(column, frozen=frozen).split("__"):
        if value is None:
            return None
        value = getattr(value, name)
    return value
