"""Rows the pages write in Python rather than through a template per row (the compare page's phase and input rows,
a DNE series' points): they are the markup the templates they replaced wrote, escaping included."""

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.template import Context, Template

from apps.leaderboard.stacks.views import Node
from apps.leaderboard.templatetags.ioboard import (
    chart,
    delta_rows,
    difference_rows,
    picker_rows,
    pivot_rows,
    point_rows,
    stack_figure,
    stack_same_drive_rows,
    stack_server_rows,
    study_point_rows,
    verdict_rows,
)
from apps.results.judgements.diff import Delta, Difference
from apps.results.judgements.studies.analysis import PivotCell
from apps.results.models import (
    Institution,
    Run,
    ScalingPoint,
    StackComponent,
    StackMeasurement,
    StorageSystem,
    StudyPoint,
)
from tests.pages import elements

# The templates the tags replaced, kept here as the specification of their markup.
DELTA_ROW = Template("""{% load ioboard %}{% for delta in deltas %}<tr class="{% if strong %}score-row{% endif %}">
  <th scope="row">{{ delta.name }}</th><td>{{ delta.unit }}</td>
  {% for value, percent in delta.cells %}
    <td class="num">{{ value|num:3 }}</td>
    {% if not forloop.first %}<td class="num change {{ percent|trend }}">{{ percent|percent }}</td>{% endif %}
  {% endfor %}
</tr>{% endfor %}""")

DIFFERENCE_ROW = Template("""{% for difference in differences %}
      <tr><th scope="row"><code>{{ difference.key }}</code></th>
        {% for value, change in difference.cells %}
          <td class="{% if change %}change-{{ change }}{% endif %}">
            {% if value is None %}<span class="muted">absent</span>{% else %}<code>{{ value }}</code>{% endif %}</td>
        {% endfor %}
      </tr>
    {% endfor %}""")

DELTAS = [
    Delta(
        name="score",
        unit="",
        values=[10.0, 12.5, None],
        seconds=[None] * 3,
        deltas=[0.0, 2.5, None],
        percents=[None, 25.0, None],
        ratios=[1.0, 1.25, None],
    ),
    Delta(
        name="ior_easy_write",
        unit="GiB/s",
        values=[100.0, 99.8, 60.123456],
        seconds=[300.0, 301.0, 302.0],
        deltas=[0.0, -0.2, -39.9],
        percents=[None, -0.2, -39.876544],
        ratios=[1.0, 0.998, 0.601],
    ),
    Delta(
        name='<script>"x"</script>',
        unit="k&IOPS",
        values=[0.0, 0.0],
        seconds=[None, None],
        deltas=[0.0, 0.0],
        percents=[None, 0.0],
        ratios=[None, None],
    ),
]

DIFFERENCES = [
    Difference(key="ior-easy.transferSize", values=["1m", "4m", None], changes=[None, "changed", "removed"]),
    Difference(key="<b>key</b>", values=[None, 'a "b" & <c>'], changes=[None, "added"]),
]


@pytest.mark.parametrize("strong", [False, True])
def test_delta_rows_are_the_row_templates_markup(strong):
    expected = DELTA_ROW.render(Context({"deltas": DELTAS, "strong": strong}))
    assert elements(delta_rows(DELTAS, strong=strong)) == elements(expected)


def test_difference_rows_are_the_row_templates_markup():
    expected = DIFFERENCE_ROW.render(Context({"differences": DIFFERENCES}))
    assert elements(difference_rows(DIFFERENCES)) == elements(expected)


def test_row_markup_escapes_what_uploads_supply():
    written = delta_rows(DELTAS) + difference_rows(DIFFERENCES)
    for raw in ("<script>", "<b>", "<c>"):
        assert raw not in written
    assert "&lt;script&gt;" in written
    assert "a &quot;b&quot; &amp; &lt;c&gt;" in written


# The compare picker's row template; its score is written as every list writes one (`num`), not `floatformat`.
PICKER_ROW = Template(
    """{% load ioboard %}{% for run in picker %}
      <tr><td><input type="checkbox" name="runs" value="{{ run.pk }}" aria-label="compare run {{ run.pk }}"></td>
        <td>{{ run.system.name }} <span class="muted">{{ run.system.institution.name }}</span></td>
        <td><a href="{% url 'run-detail' run.pk %}">"""
    """{% if run.run_timestamp %}{{ run.run_timestamp|date:"Y-m-d" }}{% elif run.year %}{{ run.year }}"""
    """{% else %}run {{ run.pk }}{% endif %}</a></td>
        <td class="num">{{ run.client_nodes|default:"—" }}</td><td class="num">{{ run.score_total|num:2 }}</td></tr>
    {% endfor %}"""
)


def picked(pk, *, system="Wolf", institution="Intel", **fields) -> Run:
    return Run(pk=pk, system=StorageSystem(name=system, institution=Institution(name=institution)), **fields)


PICKED = [
    picked(7, run_timestamp=datetime(2024, 5, 1, 23, 59, tzinfo=UTC), client_nodes=10, score_total=1234.5678),
    picked(8, year=2019, client_nodes=None, score_total=None, system='<script>"x"</script>', institution="A & B"),
    picked(9, client_nodes=0, score_total=0.0),
]


def test_picker_rows_are_the_row_templates_markup():
    expected = PICKER_ROW.render(Context({"picker": PICKED}))
    written = picker_rows(PICKED)
    assert elements(written) == elements(expected)
    for shown in ("2024-05-01", ">2019<", ">run 9<", "&lt;script&gt;&quot;x&quot;", "A &amp; B"):
        assert shown in written
    assert "<script>" not in written


POINT_ROW = Template("""{% for point in points %}
      <tr><td>{{ point.operation }}</td><td class="num">{{ point.mdt_count }}</td>
        <td class="num">{{ point.client_nodes|default_if_none:"?" }}</td>
        <td class="num">{{ point.tasks|default_if_none:"?" }}</td>
        <td class="num">{{ point.files_per_dir|default_if_none:"?" }}</td><td>{{ point.striping }}</td>
        <td>{{ point.unique_dir|yesno:"yes,no" }}</td>
        <td class="num">{{ point.max|default_if_none:"NA" }}</td>
        <td class="num">{{ point.min|default_if_none:"NA" }}</td>
        <td class="num">{{ point.mean|default_if_none:"NA" }}</td>
        <td class="num">{{ point.stddev|default_if_none:"NA" }}</td>
        <td class="num">{{ point.iterations|default_if_none:"" }}</td>
        <td><code>{{ point.source_file }}</code>{% if point.launch_index or point.block_index %}
          ({{ point.launch_index }}.{{ point.block_index }}){% endif %}</td></tr>
    {% endfor %}""")

POINTS = [
    ScalingPoint(
        operation="File creation",
        mdt_count=4,
        client_nodes=16,
        tasks=256,
        files_per_dir=1000000,
        striping="inherited",
        unique_dir=True,
        max=Decimal("123456.789"),
        min=Decimal("0.000"),
        mean=Decimal("100000.500"),
        stddev=Decimal("12.3"),
        iterations=3,
        source_file="dne/mdt4.log",
    ),
    ScalingPoint(
        operation="Tree <removal>",
        mdt_count=1,
        striping="unknown",
        source_file='logs/"a" & b.log',
        launch_index=2,
        block_index=0,
    ),
    ScalingPoint(
        operation="File stat",
        mdt_count=8,
        client_nodes=1,
        tasks=1,
        files_per_dir=0,
        iterations=0,
        max=Decimal("1E+3"),
        source_file="x.log",
        launch_index=0,
        block_index=3,
    ),
]


@pytest.mark.parametrize("thousands", [False, True])
def test_point_rows_are_the_row_templates_markup(settings, thousands):
    settings.USE_THOUSAND_SEPARATOR = thousands
    expected = POINT_ROW.render(Context({"points": POINTS}))
    assert elements(point_rows(POINTS)) == elements(expected)


def test_change_colours_follow_the_noise_verdict():
    """-1.1 % within noise is grey, not red; the same change beyond noise is red; without a verdict, the sign."""
    delta = Delta(
        name="ior_easy_write",
        unit="GiB/s",
        values=[100.0, 98.9, 98.9],
        seconds=[None] * 3,
        deltas=[0.0, -1.1, -1.1],
        percents=[None, -1.1, -1.1],
        ratios=[1.0, 0.989, 0.989],
    )
    judged = delta_rows([delta], noise={"ior_easy_write": [False, True]})
    assert '<td class="num change flat" title="within run-to-run noise">−1.1 %</td>' in judged
    assert '<td class="num change down" title="beyond run-to-run noise">−1.1 %</td>' in judged
    assert '<td class="num change down">−1.1 %</td>' in delta_rows([delta])


# The included template the stack page's figure cells used (a thousand per page), with floatformat.
STACK_FIGURE = Template("""{% if m %}{{ m.measured|floatformat:0 }}{% if m.efficiency is not None %} \
<span class="muted">({{ m.efficiency|floatformat:2 }})</span>{% endif %}{% if m.is_outlier %} \
<span class="badge warn" title="below 0.8 × the peers' median {{ m.peer_median|floatformat:0 }}">outlier</span>\
{% endif %}{% else %}<span class="muted">—</span>{% endif %}""")


@pytest.mark.parametrize(
    "measurement",
    [
        None,
        StackMeasurement(measured=1567.8, efficiency=0.7012),
        StackMeasurement(measured=866.2, efficiency=0.49, is_outlier=True, peer_median=1301.4),
        StackMeasurement(measured=45000.0),
    ],
    ids=["none", "with efficiency", "outlier", "bare"],
)
def test_a_stack_figure_is_the_included_templates_markup(measurement):
    assert stack_figure(measurement) == STACK_FIGURE.render(Context({"m": measurement}))


# The stack page's component tree and same-drives rows as its template wrote them, one lookup per cell.
STACK_SERVER_ROWS = Template("""{% load ioboard %}{% for group in entry.groups %}
    <tr><td><strong>{{ group.component.name }}</strong>{% if group.outlier %}
      <span class="badge warn">outlier</span>{% endif %}</td>
      <td>{{ group.component.get_layer_display }}</td><td>{{ group.component.spec }}</td>
      <td class="num">{{ group.read|stack_figure }}</td>
      <td class="num">{{ group.write|stack_figure }}</td><td></td><td></td></tr>
    {% for drive in group.children %}
    <tr><td>&nbsp;&nbsp;└ {{ drive.component.name }}</td>
      <td>{{ drive.component.get_layer_display }}</td><td>{{ drive.component.spec }}</td>
      <td class="num">{{ drive.read|stack_figure }}</td>
      <td class="num">{{ drive.write|stack_figure }}</td>
      <td class="num">{{ drive.figures.randread|stack_figure }}</td>
      <td class="num">{{ drive.figures.randwrite|stack_figure }}</td></tr>
    {% endfor %}
  {% endfor %}
  {% for node in entry.built %}
    <tr><td>{{ node.component.name }}</td>
      <td>{{ node.component.get_layer_display }}</td><td>{{ node.component.spec }}</td>
      <td class="num">{{ node.read|stack_figure }}</td>
      <td class="num">{{ node.write|stack_figure }}</td><td></td><td></td></tr>
  {% endfor %}
  {% for node in entry.network %}
    <tr><td>{{ node.component.name }}</td>
      <td>{{ node.component.get_layer_display }}</td><td>{{ node.component.spec }}</td>
      <td class="num">{{ node.read|stack_figure }}</td>
      <td class="num">{{ node.write|stack_figure }}</td><td></td><td></td></tr>
  {% endfor %}
  {% for node in entry.drives %}
    <tr><td>{{ node.component.name }}</td>
      <td>{{ node.component.get_layer_display }}</td><td>{{ node.component.spec }}</td>
      <td class="num">{{ node.read|stack_figure }}</td>
      <td class="num">{{ node.write|stack_figure }}</td>
      <td class="num">{{ node.figures.randread|stack_figure }}</td>
      <td class="num">{{ node.figures.randwrite|stack_figure }}</td></tr>
  {% endfor %}""")

STACK_SAME_DRIVE_ROWS = Template("""{% load ioboard %}{% for node in rows %}
    <tr><td>{{ node.component.name }}</td>
      <td>{{ node.component.get_layer_display }}</td><td>{{ node.component.spec }}</td>
      <td class="num">{{ node.read|stack_figure }}</td>
      <td class="num">{{ node.write|stack_figure }}</td></tr>
  {% endfor %}""")


def stack_node(name: str, layer: str, spec: str = "", children=(), **figures) -> Node:
    return Node(StackComponent(name=name, layer=layer, spec=spec), figures=figures, children=list(children))


SLOW = StackMeasurement(measured=866.2, efficiency=0.49, is_outlier=True, peer_median=1301.4)
STACK_SERVER = {
    "groups": [
        stack_node(
            "card <0>",
            "device_group",
            read=StackMeasurement(measured=6200.0, efficiency=0.97),
            write=SLOW,
            children=[
                stack_node(
                    "nvme0",
                    "device",
                    'io2 "fast" & <cheap>',
                    read=StackMeasurement(measured=1567.8, efficiency=0.7012),
                    randread=StackMeasurement(measured=45000.0),
                ),
                stack_node("nvme1", "device", "io2", randwrite=SLOW),
            ],
        ),
        stack_node("card1", "device_group"),
    ],
    "built": [
        stack_node("md0", "block", "raid0", write=StackMeasurement(measured=3000.0)),
        stack_node("ost0", "ost"),
    ],
    "network": [stack_node("ib0", "network", "hdr", read=StackMeasurement(measured=24000.0, efficiency=1.0))],
    "drives": [stack_node("sda", "device", "<ssd>", write=StackMeasurement(measured=500.0))],
}


def test_a_stack_servers_rows_are_the_templates_markup():
    expected = STACK_SERVER_ROWS.render(Context({"entry": STACK_SERVER}))
    assert elements(stack_server_rows(STACK_SERVER)) == elements(expected)


def test_a_stack_same_drives_rows_are_the_templates_markup():
    rows = STACK_SERVER["built"] + STACK_SERVER["drives"] + [stack_node("xfs <0>", "local_fs", "xfs & co")]
    expected = STACK_SAME_DRIVE_ROWS.render(Context({"rows": rows}))
    assert elements(stack_same_drive_rows(rows)) == elements(expected)
    assert "&lt;ssd&gt;" in stack_same_drive_rows(rows)


# The included template every chart was drawn with (fifteen on a history page).
CHART = Template("""{{ figure|json_script:figure_id }}
<div class="plotly-chart" data-figure="{{ figure_id }}"{% if click_url %} data-click-url="{{ click_url }}"{% endif %} \
role="img" aria-label="{{ label }}"></div>""")


@pytest.mark.parametrize("click_url", ["", "/runs/{id}/"])
def test_a_chart_is_the_included_templates_markup(click_url):
    figure = {"data": [{"y": [1, 2], "name": "</script><b>"}], "layout": {"title": {"text": "a & b"}}}
    label = 'score of "Wolf" <over time> & more'
    expected = CHART.render(
        Context({"figure": figure, "figure_id": "history-score", "label": label, "click_url": click_url})
    )
    assert chart(figure, "history-score", label, click_url=click_url) == expected
    assert "</script><b>" not in expected


# The IOR study page's points table as its template wrote it.
STUDY_POINT_ROW = Template("""{% for point in points %}
    <tr><td><code>{{ point.source }}</code></td><td>{{ point.operation }}</td>
      <td>{% for name, value in point.axes.items %}{{ name }}={{ value }}{% if not forloop.last %}, {% endif %}\
{% endfor %}</td>
      <td class="num">{{ point.max }}</td><td class="num">{{ point.min }}</td><td class="num">{{ point.mean }}</td>
      <td class="num">{{ point.stddev }}</td><td>{{ point.iterations|join:" " }}</td></tr>
  {% endfor %}""")

STUDY_POINTS = [
    StudyPoint(
        source="ior/<hint4>.log",
        operation="write",
        axes={"api": "MPIIO", "nodes": 16384, "ratio": 0.5, "hint": 'a "b" & c'},
        max="1234.56",
        min="1000.00",
        mean="1100.5",
        stddev="12.3",
        iterations=["1234.56", "1000.00", "<x>"],
    ),
    StudyPoint(source="ior/plain.log", operation="read", axes={}, iterations=[]),
]


@pytest.mark.parametrize("thousands", [False, True])
def test_study_point_rows_are_the_row_templates_markup(settings, thousands):
    settings.USE_THOUSAND_SEPARATOR = thousands
    expected = STUDY_POINT_ROW.render(Context({"points": STUDY_POINTS}))
    assert elements(study_point_rows(STUDY_POINTS)) == elements(expected)
    assert "&lt;hint4&gt;" in study_point_rows(STUDY_POINTS)


# The study page's verdict rows and mean ± stddev rows as its template wrote them.
VERDICT_ROW = Template("""{% for row in rows %}
    <tr class="verdict-{{ row.verdict }}" title="{{ row.sentence }}"><td></td><td>{{ row.a }}</td><td>{{ row.b }}</td>
      <td class="num">{{ row.ratio }}</td><td class="num">{{ row.interval|default:"—" }}</td>
      <td class="num">{{ row.jobs.0 }} / {{ row.jobs.1 }}</td><td>{{ row.words }}</td></tr>
    {% endfor %}""")

VERDICT_ROWS = [
    {
        "a": "MPIIO",
        "b": "POSIX <x>",
        "ratio": "1.23",
        "interval": "1.1–1.4",
        "jobs": (12345, 3),
        "verdict": "faster",
        "words": "a faster",
        "sentence": 'MPIIO is "faster" & more',
    },
    {
        "a": "8",
        "b": "16",
        "ratio": "—",
        "interval": "",
        "jobs": (1, 1),
        "verdict": "untestable",
        "words": "—",
        "sentence": "one job each",
    },
]

PIVOT_ROW = Template("""{% for row in body %}
    <tr>{% for value in row.row %}<td>{{ value }}</td>{% endfor %}
      {% for cell in row.cells %}<td class="num">{% if cell %}{{ cell.printed }}{% else %}\
<span class="muted">—</span>{% endif %}</td>{% endfor %}</tr>
  {% endfor %}""")

PIVOT_BODY = [
    {"row": ["lustre", 16384, "<api>"], "cells": [PivotCell(1.0, 0.1, 3, "1000.5 ± 2.1"), None]},
    {"row": ["gpfs", 8, "posix & co"], "cells": [None, PivotCell(None, None, 2, "NA")]},
]


@pytest.mark.parametrize("thousands", [False, True])
def test_study_verdict_and_table_rows_are_the_row_templates_markup(settings, thousands):
    settings.USE_THOUSAND_SEPARATOR = thousands
    assert elements(verdict_rows(VERDICT_ROWS)) == elements(VERDICT_ROW.render(Context({"rows": VERDICT_ROWS})))
    assert elements(pivot_rows(PIVOT_BODY)) == elements(PIVOT_ROW.render(Context({"body": PIVOT_BODY})))
    assert "POSIX &lt;x&gt;" in verdict_rows(VERDICT_ROWS)
    assert "&lt;api&gt;" in pivot_rows(PIVOT_BODY)
