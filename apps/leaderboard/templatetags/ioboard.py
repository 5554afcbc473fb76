"""Display filters and the tags that render the pages' rows and cells. The filters return plain text, which the
template engine escapes; a tag's markup is its template's (an inclusion tag), or one tag built by format_html."""

from dataclasses import dataclass

from django import template
from django.utils.safestring import SafeString

from apps.leaderboard.common.filters import layer_label, num, percent, words
from apps.leaderboard.common.row_templates import macro, render_rows
from apps.leaderboard.lists import tables
from apps.results.models import PublishedChange

register = template.Library()
for display_filter in (num, percent, words, layer_label):
    register.filter(display_filter)


@register.inclusion_tag("includes/_plotly_style_placeholders.html")
def plotly_style_placeholders() -> dict:
    """Empty elements under the ids of the styles plotly.js would inject at load (see `plotly_injected_style_ids`)."""
    from apps.leaderboard.common.finders import plotly_injected_style_ids

    return {"style_ids": plotly_injected_style_ids()}


@register.inclusion_tag("includes/_chart.html")
def chart(figure: dict, figure_id: str, label: str, click_url: str = "") -> dict:
    """A plotly figure (as json_script) and the element the page's script draws it in, with what a screen reader
    says of it and, if a point opens a page, that page's URL ("/runs/{id}/")."""
    return {"figure": figure, "figure_id": figure_id, "label": label, "click_url": click_url}


@register.simple_tag
def table_rows(rows) -> SafeString:
    """A list table's <tr> rows (`tables.Row`), with the paths they link to reversed once per table: one Jinja2
    template (`row_templates` says why)."""
    return render_rows(
        "lists/_list_rows.html",
        rows=tables.linked_rows(rows),
        score_digits=tables.SCORE.digits,
        wide=tables.WIDE_CELL_CLASSES,
    )


@register.simple_tag
def published_rows(rows) -> SafeString:
    """A published list's <tr> rows (`services.published.published_rows`), the run links reversed once per table:
    one Jinja2 template (`row_templates` says why; a historical list runs to 300 rows)."""
    return render_rows("published/_rows.html", rows=rows, links=tables.RowLinks.current())


@register.simple_tag
def published_change_rows(changes) -> SafeString:
    """A published release's change log (`services.published.change_log_rows`) as <tr> rows: one Jinja2 template
    (a release's log runs to 350 rows)."""
    return render_rows("published/_change_rows.html", changes=changes, actions=dict(PublishedChange.Action.choices))


@register.simple_tag
def badges(anomalies) -> str:
    """A run's anomalies as badges (the list rows' macro, for the pages that show them elsewhere)."""
    return macro("includes/_badges.html", "badges")(anomalies)


@register.inclusion_tag("compare/_picker_rows.html")
def picker_rows(runs) -> dict:
    """The compare page's picker: a row per run (`systems.search.newest_shown_runs`) with its box, system, date and
    score."""
    return {"runs": runs}


@register.filter
def trend(value) -> str:
    """A CSS class for a relative change: up, down or flat (within 0.5 %)."""
    if value is None or abs(value) < 0.5:
        return "flat"
    return "up" if value > 0 else "down"


@register.filter
def diff_line(line: str) -> str:
    """A CSS class for a unified-diff line."""
    if line.startswith(("+++", "---")):
        return "diff-file"
    if line.startswith("@@"):
        return "diff-hunk"
    return {"+": "diff-added", "-": "diff-removed"}.get(line[:1], "")


@register.simple_tag
def stack_figure(measurement) -> str:
    """A stack layer's figure in its table cell: measured (efficiency), an outlier badge naming the peers' median."""
    return macro(STACK_ROWS, "figure_cells")((measurement,))


#: The stack page's rows and figure cells, Jinja2 macros (`row_templates` says why).
STACK_ROWS = "stacks/_rows.html"


@register.simple_tag
def stack_server_rows(entry) -> str:
    """A server's rows in the stack page's component tree (StackView.tree): each group of drives with its drives
    beneath, then what is built on them, the network, the drives in no group."""
    return macro(STACK_ROWS, "server_rows")(entry)


@register.simple_tag
def stack_same_drive_rows(nodes) -> str:
    """The rows of a table of arrays and local file systems built from the same drives: read and write."""
    return macro(STACK_ROWS, "same_drive_rows")(nodes)


def noise_trend(change, beyond) -> tuple[str, str]:
    """The colour class and hover text of a change whose noise verdict is `beyond` (None: no verdict). A change
    within run-to-run noise is never coloured as a gain or a loss, however large its sign looks."""
    if beyond is None:
        return trend(change), ""
    if not beyond:
        return "flat", "within run-to-run noise"
    return trend(change), "beyond run-to-run noise"


@dataclass(frozen=True)
class DeltaCell:
    """One run's value in a compare row and, for a later run, its change with the change's colour and hover text."""

    value: float | None
    change: float | None
    later: bool
    colour: str = ""
    why: str = ""


#: The compare table's rows, Jinja2 macros (`row_templates` says why): as inclusion tags, three runs' rows took
#: 3.2 ms of the compare page's 14.6 ms render, as macros 0.8 ms (20,000 runs).
COMPARE_ROWS = "compare/_rows.html"


@register.simple_tag
def delta_rows(deltas, strong=False, noise=None) -> str:
    """The compare table's rows: a phase (or score) per row, each run's value, and each later run's change.
    `noise`: {row name: [beyond noise? per later run]} (apps.results.services.changes.noise), which the colours
    follow."""
    rows = []
    for delta in deltas:
        verdicts = (noise or {}).get(delta.name)
        cells = []
        for index, (value, change) in enumerate(delta.cells):
            if not index:
                cells.append(DeltaCell(value, change, later=False))
                continue
            colour, why = noise_trend(change, verdicts[index - 1] if verdicts and change is not None else None)
            cells.append(DeltaCell(value, change, later=True, colour=colour, why=why))
        rows.append((delta, cells))
    return macro(COMPARE_ROWS, "delta_rows")(rows, strong)


@register.simple_tag
def difference_rows(differences) -> str:
    """An input section's rows: a key per row, its value in each run, marked where it changed."""
    return macro(COMPARE_ROWS, "difference_rows")(differences)


@register.inclusion_tag("scaling/_point_rows.html")
def point_rows(points) -> dict:
    """A DNE scaling series' SUMMARY rows, as mdtest printed them."""
    return {"points": points}


@register.inclusion_tag("studies/_verdict_rows.html")
def verdict_rows(rows) -> dict:
    """The rows of one axis in a study's verdict table (studies.views.VerdictGroup.rows): a pair of values, their
    ratio and interval, the jobs behind each, the verdict in words and, on hover, as a sentence."""
    return {"rows": rows}


@register.inclusion_tag("studies/_pivot_rows.html")
def pivot_rows(body) -> dict:
    """The rows of a study's mean ± stddev table (analysis.pivot's body): the row axes' values, then a cell per
    column, "—" where no point was measured."""
    return {"body": body}


@register.inclusion_tag("studies/_point_rows.html")
def study_point_rows(points) -> dict:
    """An IOR study's points table, one row per point: its log, operation, axes and the figures as printed."""
    return {"points": points}


#: How evidence values read: booleans as words, numbers with sensible precision.
def _evidence_value(value) -> str:
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, list) and all(not isinstance(item, dict | list) for item in value):
        return ", ".join(_evidence_value(item) for item in value)
    return str(value)


@dataclass(frozen=True)
class EvidenceCell:
    """One evidence value as the evidence table shows it: `records` (a list of records: a nested table of `keys`
    and a row of cells per record), `items` (a record: (key, cell) pairs), or else `text`."""

    text: str = ""
    keys: tuple = ()
    records: tuple = ()
    items: tuple = ()


def evidence_cell(value) -> EvidenceCell:
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        keys = tuple(dict.fromkeys(key for item in value for key in item))
        records = tuple(tuple(evidence_cell(item.get(key)) for key in keys) for item in value)
        return EvidenceCell(keys=keys, records=records)
    if isinstance(value, dict):
        if not value:
            return EvidenceCell(text="—")
        return EvidenceCell(items=tuple((key, evidence_cell(item)) for key, item in value.items()))
    return EvidenceCell(text=_evidence_value(value))


@register.inclusion_tag("runs/_evidence_rows.html")
def evidence_rows(evidence) -> dict:
    """An anomaly's evidence as table rows: names in words, numbers formatted, records as nested tables (never a
    Python or JSON dump)."""
    return {"rows": [(key, evidence_cell(value)) for key, value in (evidence or {}).items()]}
