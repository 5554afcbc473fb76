"""Small display filters. They return plain strings; Django's autoescaping applies to their output."""

from html import escape as escape_text

from django import template
from django.utils.html import conditional_escape, escape, format_html_join, json_script
from django.utils.safestring import SafeString, mark_safe

from apps.leaderboard.lists import tables
from apps.results.models.stacks import LAYER_CHOICES

register = template.Library()


@register.simple_tag
def plotly_style_placeholders() -> SafeString:
    """Empty elements under the ids of the styles plotly.js would inject at load (see `plotly_injected_style_ids`)."""
    from apps.leaderboard.common.finders import plotly_injected_style_ids

    ids = ((style_id,) for style_id in plotly_injected_style_ids())
    return format_html_join("", '<template id="{}"></template>', ids)


@register.simple_tag
def chart(figure: dict, figure_id: str, label: str, click_url: str = "") -> SafeString:
    """A plotly figure (as json_script) and the element the page's script draws it in, with what a screen reader
    says of it and, if a point opens a page, that page's URL ("/runs/{id}/"). A tag rather than an included
    template: a history page draws fifteen charts, and each include cost as much as the chart's data."""
    click = f' data-click-url="{conditional_escape(click_url)}"' if click_url else ""
    return mark_safe(  # noqa: S308 - the figure is escaped by json_script, the rest by conditional_escape
        f"{json_script(figure, figure_id)}\n"
        f'<div class="plotly-chart" data-figure="{conditional_escape(figure_id)}"{click} role="img" '
        f'aria-label="{conditional_escape(label)}"></div>'
    )


@register.simple_tag
def table_rows(rows) -> SafeString:
    """A list table's <tr> rows (apps.leaderboard.tables.table_rows)."""
    return tables.table_rows(rows)


@register.simple_tag
def picker_rows(runs) -> SafeString:
    """The compare page's picker rows (apps.leaderboard.tables.picker_rows)."""
    return tables.picker_rows(runs)


@register.filter
def percent(value) -> str:
    """+12.3 % / −4.0 %; empty for None."""
    if value is None:
        return ""
    return f"{value:+.1f} %".replace("-", "−")


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


@register.filter
def num(value, digits=2) -> str:
    """`tables.fixed_decimals` as a filter; an empty value (a missing variable) is unknown too."""
    return tables.fixed_decimals(None if value == "" else value, int(digits))


@register.filter
def rounded(value, arg=-1) -> SafeString:
    """floatformat, character for character, at about a quarter of its cost (`tables.rounded`)."""
    return tables.rounded(value, arg)


@register.filter
def stack_figure(measurement) -> SafeString:
    """A stack layer's figure in its table cell: measured (efficiency), an outlier badge naming the peers' median.
    A filter, not an included template: a stack page has a thousand of these cells."""
    return mark_safe(_stack_figure_html(measurement))  # noqa: S308 - numbers and constants only


def _stack_figure_html(measurement) -> str:
    """The cell's markup; its numbers as `num` writes them (a stored figure is a float or None, never the empty
    text `num` also takes), with `fixed_decimals` called directly: a stack page writes two thousand."""
    if not measurement:
        return '<span class="muted">—</span>'
    html = tables.fixed_decimals(measurement.measured, 0)
    if measurement.efficiency is not None:
        html += f' <span class="muted">({tables.fixed_decimals(measurement.efficiency, 2)})</span>'
    if measurement.is_outlier:
        html += (
            f""" <span class="badge warn" title="below 0.8 × the peers' median """
            f"""{tables.fixed_decimals(measurement.peer_median, 0)}">outlier</span>"""
        )
    return html


def _component_row(node, name: str, measured: int, columns: int = 4) -> str:
    """One component's row: its name (markup), layer, spec, its figures of the first `measured` operations, and
    empty cells up to the table's `columns` figure columns."""
    component = node.component
    figures = node.figures
    cells = "".join(
        f'<td class="num">{_stack_figure_html(figures.get(operation))}</td>'
        for operation in STACK_OPERATIONS[:measured]
    )
    return (
        f"<tr><td>{name}</td><td>{LAYER_LABELS[component.layer]}</td><td>{escape_text(component.spec)}</td>"
        f"{cells}{'<td></td>' * (columns - measured)}</tr>"
    )


#: The stack tables' figure columns, in order.
STACK_OPERATIONS = ("read", "write", "randread", "randwrite")
#: A component's layer as get_layer_display writes it (the labels are plain words: nothing to escape).
LAYER_LABELS = dict(LAYER_CHOICES)


@register.simple_tag
def stack_server_rows(entry) -> SafeString:
    """A server's rows in the stack page's component tree (StackView.tree): each group of drives with its drives
    beneath, then what is built on them, the network, the drives in no group. Written here, not by the template:
    a stack has hundreds of components and the template's lookups were most of the page's render."""
    rows = []
    for group in entry["groups"]:
        badge = ' <span class="badge warn">outlier</span>' if group.outlier else ""
        rows.append(_component_row(group, f"<strong>{escape_text(group.component.name)}</strong>{badge}", 2))
        rows += [
            _component_row(drive, f"&nbsp;&nbsp;└ {escape_text(drive.component.name)}", 4) for drive in group.children
        ]
    rows += [_component_row(node, escape_text(node.component.name), 2) for node in entry["built"] + entry["network"]]
    rows += [_component_row(node, escape_text(node.component.name), 4) for node in entry["drives"]]
    return mark_safe("".join(rows))  # noqa: S308 - names and specs escaped, figures are numbers


@register.simple_tag
def stack_same_drive_rows(nodes) -> SafeString:
    """The rows of a table of arrays and local file systems built from the same drives: read and write."""
    return mark_safe(  # noqa: S308 - names and specs escaped, figures are numbers
        "".join(_component_row(node, escape_text(node.component.name), 2, columns=2) for node in nodes)
    )


def noise_trend(change, beyond) -> tuple[str, str]:
    """The colour class and hover text of a change whose noise verdict is `beyond` (None: no verdict). A change
    within run-to-run noise is never coloured as a gain or a loss, however large its sign looks."""
    if beyond is None:
        return trend(change), ""
    if not beyond:
        return "flat", "within run-to-run noise"
    return trend(change), "beyond run-to-run noise"


@register.simple_tag
def delta_rows(deltas, strong=False, noise=None) -> SafeString:
    """The compare table's rows: a phase (or score) per row, each run's value, and each later run's change.
    `noise`: {row name: [beyond noise? per later run]} (apps.results.services.changes.noise), which the colours follow.

    Built here rather than by an included template per row: a compare of six runs has some 40 rows of up to
    eleven cells, and a template include per row was a quarter of the page's render time."""
    row_class = "score-row" if strong else ""
    rows = []
    for delta in deltas:
        cells = []
        verdicts = (noise or {}).get(delta.name)
        for index, (value, change) in enumerate(delta.cells):
            cells.append(f'<td class="num">{num(value, 3)}</td>')
            if index:
                colour, why = noise_trend(change, verdicts[index - 1] if verdicts and change is not None else None)
                title = f' title="{why}"' if why else ""
                cells.append(f'<td class="num change {colour}"{title}>{percent(change)}</td>')
        rows.append(
            f'<tr class="{row_class}"><th scope="row">{escape(delta.name)}</th><td>{escape(delta.unit)}</td>'
            f"{''.join(cells)}</tr>"
        )
    return mark_safe("".join(rows))  # noqa: S308 - names and units are escaped; numbers are formatted here


@register.simple_tag
def difference_rows(differences) -> SafeString:
    """An input section's rows (a key per row, its value in each run, marked where it changed), built here for
    the reason `delta_rows` is: the command-line section alone can hold dozens of keys."""
    rows = []
    for difference in differences:
        cells = []
        for value, change in difference.cells:
            shown = '<span class="muted">absent</span>' if value is None else f"<code>{escape(value)}</code>"
            cells.append(f'<td class="{f"change-{escape(change)}" if change else ""}">{shown}</td>')
        rows.append(f'<tr><th scope="row"><code>{escape(difference.key)}</code></th>{"".join(cells)}</tr>')
    return mark_safe("".join(rows))  # noqa: S308 - every value is escaped


@register.simple_tag
def point_rows(points) -> SafeString:
    """A DNE scaling series' SUMMARY rows, as mdtest printed them. A campaign holds hundreds to thousands of points, so
    the rows are built here: through the template engine, sixty points took half of the series page's render."""

    def known(value, missing="?") -> str:
        return missing if value is None else tables.localized(value)

    rows = []
    for point in points:
        launch = f" ({point.launch_index}.{point.block_index})" if point.launch_index or point.block_index else ""
        rows.append(
            f'<tr><td>{escape(point.operation)}</td><td class="num">{point.mdt_count}</td>'
            f'<td class="num">{known(point.client_nodes)}</td><td class="num">{known(point.tasks)}</td>'
            f'<td class="num">{known(point.files_per_dir)}</td><td>{escape(point.striping)}</td>'
            f"<td>{'yes' if point.unique_dir else 'no'}</td>"
            f'<td class="num">{known(point.max, "NA")}</td><td class="num">{known(point.min, "NA")}</td>'
            f'<td class="num">{known(point.mean, "NA")}</td><td class="num">{known(point.stddev, "NA")}</td>'
            f'<td class="num">{known(point.iterations, "")}</td>'
            f"<td><code>{escape(point.source_file)}</code>{launch}</td></tr>"
        )
    return mark_safe("".join(rows))  # noqa: S308 - text is escaped; numbers are formatted as the template would


#: What {{ value }} writes of a stored value (localized, escaped; never one marked safe).
_shown = tables.localized


@register.simple_tag
def verdict_rows(rows) -> SafeString:
    """The rows of one axis in a study's verdict table (study_views.VerdictGroup.rows): a pair of values, their
    ratio and interval, the jobs behind each, the verdict in words and, on hover, as a sentence."""
    return mark_safe(  # noqa: S308 - every value is escaped as the template escaped it
        "".join(
            f'<tr class="verdict-{_shown(row["verdict"])}" title="{_shown(row["sentence"])}"><td></td>'
            f'<td>{_shown(row["a"])}</td><td>{_shown(row["b"])}</td><td class="num">{_shown(row["ratio"])}</td>'
            f'<td class="num">{_shown(row["interval"] or "—")}</td>'
            f'<td class="num">{_shown(row["jobs"][0])} / {_shown(row["jobs"][1])}</td>'
            f"<td>{_shown(row['words'])}</td></tr>"
            for row in rows
        )
    )


@register.simple_tag
def pivot_rows(body) -> SafeString:
    """The rows of a study's mean ± stddev table (analysis.pivot's body): the row axes' values, then a cell per
    column, "—" where no point was measured."""
    return mark_safe(  # noqa: S308 - every value is escaped as the template escaped it
        "".join(
            "<tr>"
            + "".join(f"<td>{_shown(value)}</td>" for value in line["row"])
            + "".join(
                f'<td class="num">{_shown(cell.printed) if cell else MISSING_CELL}</td>' for cell in line["cells"]
            )
            + "</tr>"
            for line in body
        )
    )


MISSING_CELL = '<span class="muted">—</span>'


@register.simple_tag
def study_point_rows(points) -> SafeString:
    """An IOR study's points table, one row per point: its log, operation, axes and the figures as printed. Built
    here rather than in the template: a study holds hundreds of points, and their lookups were most of its page."""

    rows = []
    for point in points:
        axes = ", ".join(f"{_shown(name)}={_shown(value)}" for name, value in point.axes.items())
        iterations = " ".join(escape_text(str(value)) for value in point.iterations)
        rows.append(
            f"<tr><td><code>{_shown(point.source)}</code></td><td>{_shown(point.operation)}</td><td>{axes}</td>"
            f'<td class="num">{_shown(point.max)}</td><td class="num">{_shown(point.min)}</td>'
            f'<td class="num">{_shown(point.mean)}</td><td class="num">{_shown(point.stddev)}</td>'
            f"<td>{iterations}</td></tr>"
        )
    return mark_safe("".join(rows))  # noqa: S308 - every value is escaped as the template escaped it


@register.filter
def words(value) -> str:
    """A stored enum value in words: "not_applicable" -> "not applicable", "fully_reproducible" -> "fully
    reproducible". Pages show values, never identifiers."""
    return "" if value is None else str(value).replace("_", " ")


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


def _evidence_cell(value) -> str:
    """One evidence value as HTML: a nested table for a list of records, a definition list for a record."""
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        keys = list(dict.fromkeys(key for item in value for key in item))
        head = "".join(f"<th>{escape(words(key))}</th>" for key in keys)
        rows = "".join(
            "<tr>" + "".join(f"<td>{_evidence_cell(item.get(key))}</td>" for key in keys) + "</tr>" for item in value
        )
        return f'<table class="compact evidence-nested"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'
    if isinstance(value, dict):
        items = "".join(f"<li>{escape(words(key))}: {_evidence_cell(item)}</li>" for key, item in value.items())
        return f'<ul class="plain">{items}</ul>' if items else "—"
    return escape(_evidence_value(value))


@register.simple_tag
def evidence_rows(evidence) -> SafeString:
    """An anomaly's evidence as table rows: names in words, numbers formatted, records as nested tables (never a
    Python or JSON dump)."""
    rows = "".join(
        f'<tr><th scope="row">{escape(words(key))}</th><td>{_evidence_cell(value)}</td></tr>'
        for key, value in (evidence or {}).items()
    )
    return mark_safe(rows)  # noqa: S308 - every key and value is escaped
