"""The compare page writes its phase rows and its input-difference rows in Python (delta_rows, difference_rows);
they are the markup the per-row templates they replaced wrote, escaping included."""

import pytest
from django.template import Context, Template

from apps.leaderboard.templatetags.ioboard import delta_rows, difference_rows
from apps.results.diff import Delta, Difference
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
    Delta(name="score", unit="", values=[10.0, 12.5, None], seconds=[None] * 3, deltas=[0.0, 2.5, None],
          percents=[None, 25.0, None], ratios=[1.0, 1.25, None]),
    Delta(name="ior_easy_write", unit="GiB/s", values=[100.0, 99.8, 60.123456], seconds=[300.0, 301.0, 302.0],
          deltas=[0.0, -0.2, -39.9], percents=[None, -0.2, -39.876544], ratios=[1.0, 0.998, 0.601]),
    Delta(name='<script>"x"</script>', unit="k&IOPS", values=[0.0, 0.0], seconds=[None, None],
          deltas=[0.0, 0.0], percents=[None, 0.0], ratios=[None, None]),
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
