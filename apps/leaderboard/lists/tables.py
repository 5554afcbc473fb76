"""List tables: the columns, their sort links, and one row shape for live lists and frozen editions; and the
numbers tables write (`fixed_decimals`, `rounded`, `localized`)."""

import math
from dataclasses import dataclass, field
from datetime import date
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from html import escape

from django.conf import settings
from django.core.paginator import Paginator
from django.http import QueryDict
from django.template.defaultfilters import floatformat, linebreaksbr
from django.urls import reverse
from django.utils.formats import get_format, localize
from django.utils.safestring import SafeString, mark_safe
from django.utils.timezone import localtime
from django.utils.translation import get_language

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

    def html(self) -> SafeString:
        """The column's <th>, built here as the rows are (a template renders seventeen of them per page)."""
        column = self.column
        return mark_safe(  # noqa: S308 - every value is escaped
            f'<th scope="col" class="{"num" if column.numeric else ""} {self.state} {CELL_CLASSES[column.key]}" '
            f'aria-sort="{self.aria_sort}" '
            f'title="{escape(column.title)}" data-column="{column.key}"><a href="{escape(self.href)}">'
            f"{escape(column.header)}</a></th>"
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

    def html(self, links: "RowLinks") -> str:
        """The row's <tr>, built here with its cells (`table_rows` writes a table's rows)."""
        return (
            f'<tr class="{"excluded" if self.excluded else ""}" data-run="{self.run_id or ""}">{self.cells(links)}</tr>'
        )

    def run_label(self) -> str:
        """How a row names its run: its date and the list it was made for ("2020-06-01 · ISC20"), else its year,
        else "run 35". Never "#35": "#" is a rank."""
        if self.run_date:
            edition = rules_edition_of_date(self.run_date.isoformat())
            return f"{self.run_date:%Y-%m-%d}" + (f" · {edition.upper()}" if edition else "")
        if self.year:
            return str(self.year)
        return f"run {self.run_id}" if self.run_id else "—"

    def cells(self, links: "RowLinks") -> str:
        """The row's <td> cells, in TABLE_COLUMNS order after the compare box.

        Built here rather than in the template: a list page has 50 to 500 rows of 18 cells, and the
        template engine's per-variable lookups made up most of a list page's render. Plain f-strings over
        the standard library's html.escape (the function django.utils.html.escape wraps) rather than
        format_html, whose lazy-string checks on every argument were a large share of a list page's Python
        time (cProfile; docs/performance.md).
        """
        classes = CELL_CLASSES
        rank = "—" if self.rank is None else f"#{self.rank}"
        compare = (
            f'<input type="checkbox" name="runs" value="{self.run_id}" form="compare-form" '
            f'aria-label="compare run {self.run_id}">'
            if self.run_id
            else ""
        )
        system = (
            f'<a href="{links.system(self.system_id)}">{escape(self.system)}</a>'
            if self.system_id
            else escape(self.system)
        )
        label = escape(self.run_label())
        run = f'<a href="{links.run(self.run_id)}" title="run {self.run_id}">{label}</a>' if self.run_id else label
        badges = "".join(
            f'<span class="badge {escape(a.severity)}" title="{escape(a.message)}">{escape(a.rule)}</span>'
            for a in self.badges
        )
        if self.excluded:
            badges += (
                '<span class="badge error">excluded</span><div class="reason">'
                f"{linebreaksbr(self.exclusion_reason, autoescape=True)}</div>"
            )
        numbers = "".join(
            f'<td class="num {classes[column.key]}">{fixed_decimals(getattr(self, column.key), column.digits)}</td>'
            for column in MEASURES
        )
        wide = classes["nodes"]  # institution, run, vendor, file system and the counts: the same classes
        return (
            f'<td>{compare}</td><td class="num rank">{rank}</td>'
            f'<td class="institution {wide}">{escape(self.institution)}</td><td class="system">{system}</td>'
            f'<td class="run">{run}</td>'
            f'<td class="{wide}">{escape(self.vendor)}</td><td class="{wide}">{escape(self.filesystem)}</td>'
            f'<td class="num {wide}">{self.nodes or "—"}</td><td class="num {wide}">{self.procs or "—"}</td>'
            f'<td class="num score">{fixed_decimals(self.score, SCORE.digits)}</td>{numbers}'
            f'<td class="badges">{badges}</td>'
        )


def table_rows(rows: list[Row]) -> SafeString:
    """The <tr> of each row of a list table, every value escaped.

    Built here rather than in a template loop, and with the paths the rows link to reversed once per table
    (`RowLinks`): finding the script prefix and URLconf again for each of a row's two links was 40% of the
    rows' HTML on a page of 50."""
    links = RowLinks.current()
    return mark_safe("".join(row.html(links) for row in rows))  # noqa: S308 - Row.cells escapes every value


def picker_rows(runs) -> SafeString:
    """The compare page's picker: a row per run (`front.newest_shown_runs`) with its box, system, date and figures.

    Built here for the reason `table_rows` is: through the template engine, the picker's 50 rows (a reversed link,
    a localized date and a formatted score each) were most of the picker page's time."""
    links = RowLinks.current()
    rows = []
    for run in runs:
        if run.run_timestamp:
            when = f"{localtime(run.run_timestamp):%Y-%m-%d}"
        else:
            when = str(run.year) if run.year else f"run {run.pk}"
        rows.append(
            f'<tr><td><input type="checkbox" name="runs" value="{run.pk}" aria-label="compare run {run.pk}"></td>'
            f'<td>{escape(run.system.name)} <span class="muted">{escape(run.system.institution.name)}</span></td>'
            f'<td><a href="{links.run(run.pk)}">{when}</a></td>'
            f'<td class="num">{run.client_nodes or "—"}</td>'
            f'<td class="num">{fixed_decimals(run.score_total, 2)}</td></tr>'
        )
    return mark_safe("".join(rows))  # noqa: S308 - names are escaped; the rest are numbers and dates


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


def fixed_decimals(value, digits: int) -> str:
    """A number with fixed decimals, "—" when unknown: the rows built here and the templates' `num` filter.
    floatformat without its Decimal round trip: lists write hundreds of them."""
    return "—" if value is None else f"{value:.{digits}f}"


#: floatformat's quantum for each number of decimals `rounded` writes itself.
_QUANTUM = {digits: Decimal(1).scaleb(-digits) for digits in range(7)}
_DIGITS_TEXT = {str(digits) for digits in _QUANTUM}


def rounded(value, arg) -> SafeString:
    """floatformat's text, character for character, at about a quarter of its cost (2.4 against 8 to 9.5 us): a
    page of DNE groups or stack figures writes hundreds, and on the scaling page floatformat and localize together
    were a fifth of its time (cProfile).

    As floatformat: the number's shortest decimal form (repr) rounded half up to `arg` decimals ("0g": with
    thousands separators), no minus sign on a zero. Written here only for a finite int or float, 0 to 6 decimals
    and the site's English number format; anything else (text, NaN, "-2", "u", another locale) is floatformat's.
    """
    grouped = isinstance(arg, str) and arg.endswith("g")
    digits = arg[:-1] if grouped else arg
    if (
        type(value) not in (int, float)
        or not math.isfinite(value)
        or str(digits) not in _DIGITS_TEXT
        or not writes_plain_numbers()
    ):
        return floatformat(value, arg)
    try:
        number = Decimal(repr(value)).quantize(_QUANTUM[int(digits)], ROUND_HALF_UP)
    except InvalidOperation:  # more digits than the default context holds: floatformat widens its precision
        return floatformat(value, arg)
    # SafeString itself, not mark_safe (a third of this function's cost): digits, a sign and separators only.
    return SafeString(format(number.copy_abs() if number.is_zero() else number, ",f" if grouped else "f"))


def localized(value) -> str:
    """What localize() writes of a value, escaped ({{ value }} in a template). A number is written here when the
    site writes plain numbers (`writes_plain_numbers`): localize() writes an int or a float as its repr, and a
    Decimal in fixed-point notation, and its format lookups were most of a table of measured points' time."""
    kind = type(value)
    if kind in (int, float, Decimal) and writes_plain_numbers():
        if kind is not Decimal:
            if "e" not in (text := repr(value)):
                return text  # localize() writes a float's exponent out in full
        elif value.is_finite():
            _, digits, exponent = value.as_tuple()
            if len(digits) + abs(exponent) <= 200:
                return format(value, "f")  # localize() writes a longer Decimal in scientific notation
    return escape(str(localize(value)))


def writes_plain_numbers() -> bool:
    """Whether the site writes numbers as Python does: a point before the decimals, no thousands separators unless
    a template asks for them (floatformat's "g": commas between groups of three). Then `rounded` writes
    floatformat's text itself, and a float's or an int's repr is what localize() writes of it."""
    return _english_numbers(get_language(), settings.USE_THOUSAND_SEPARATOR)


@lru_cache(maxsize=16)
def _english_numbers(language: str, thousands_everywhere: bool) -> bool:
    """Whether numbers are written as `rounded` writes them in `language`: a point before the decimals, commas
    between groups of three digits when asked for ("g"), and no separators otherwise."""
    return (
        not thousands_everywhere
        and get_format("DECIMAL_SEPARATOR", language) == "."
        and get_format("THOUSAND_SEPARATOR", language) == ","
        and get_format("NUMBER_GROUPING", language) == 3
    )
