"""The pages' rows and cells as the template engine renders them: what a reader sees in each cell, names from uploads
shown as text, and the links a row carries. Expected values are written out by hand."""

import re
from datetime import UTC, datetime

import pytest
from django.template import Context, Template

from apps.results.judgements.diff import Delta
from apps.results.models import StackMeasurement
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

HOSTILE = '<b>"Wolf" & co</b>'
SHOWN = "&lt;b&gt;&quot;Wolf&quot; &amp; co&lt;/b&gt;"


def rows_of(html: str) -> list[str]:
    return re.findall(r"<tr[ >].*?</tr>", html, re.DOTALL)


def cells(row: str) -> list[str]:
    """The text of each <td> of a row, tags and surrounding whitespace aside."""
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)]


def test_a_list_row_shows_its_rank_names_as_text_scores_and_links(client):
    system = StorageSystemFactory(name=HOSTILE, institution__name="Intel", storage_vendor="DDN", filesystem="Lustre")
    run = RunFactory(system=system, run_timestamp=datetime(2020, 3, 10, tzinfo=UTC), client_nodes=10, client_procs=80)
    AnomalyFactory(run=run, severity="warn", rule="short_phase", message="a <short> phase")

    html = client.get("/lists/full/").content.decode()

    [row] = [row for row in rows_of(html) if f'data-run="{run.pk}"' in row]
    assert cells(row)[:10] == [
        "",
        "#1",
        "Intel",
        SHOWN,
        "2020-03-10 · ISC20",
        "DDN",
        "Lustre",
        "10",
        "80",
        "200.00",
    ]
    assert cells(row)[10:12] == ["100.00", "400.00"]  # BW and MD, two decimals as the score
    assert f'<a href="/systems/{system.pk}/">{SHOWN}</a>' in row
    assert f'<a href="/runs/{run.pk}/" title="run {run.pk}">2020-03-10 · ISC20</a>' in row
    assert '<span class="badge warn" title="a &lt;short&gt; phase">short_phase</span>' in row
    assert HOSTILE not in html


def test_a_list_row_escapes_quotes_as_the_rest_of_the_page_does(client):
    """The rows are Jinja2's (apps.leaderboard.common.row_templates), the page around them Django's: an apostrophe
    reads the same in both."""
    system = StorageSystemFactory(name="O'Hare's <lab>", institution__name="O'Hare's <lab>")
    run = RunFactory(system=system)
    html = client.get(f"/lists/full/?institution={system.institution.name}").content.decode()
    [row] = [row for row in rows_of(html) if f'data-run="{run.pk}"' in row]
    assert cells(row)[2:4] == ["O&#x27;Hare&#x27;s &lt;lab&gt;", "O&#x27;Hare&#x27;s &lt;lab&gt;"]


def test_an_excluded_row_says_why_line_by_line(client):
    run = RunFactory(exclusion_reason="no <hash>\nsecond line")
    html = client.get("/lists/historic/").content.decode()
    [row] = [row for row in rows_of(html) if f'data-run="{run.pk}"' in row]
    assert row.startswith('<tr class="excluded"')
    assert '<div class="reason">no &lt;hash&gt;<br>second line</div>' in row


def test_the_compare_picker_names_each_run_by_its_date_and_shows_its_score(client):
    system = StorageSystemFactory(name=HOSTILE, institution__name="A & B")
    dated = RunFactory(system=system, run_timestamp=datetime(2024, 5, 1, 12, 0, tzinfo=UTC), client_nodes=16)
    html = client.get("/compare/").content.decode()
    [row] = [row for row in rows_of(html) if f'value="{dated.pk}"' in row]
    assert cells(row) == ["", f"{SHOWN} A &amp; B", "2024-05-01", "16", "200.00"]
    assert f'<a href="/runs/{dated.pk}/">2024-05-01</a>' in row


def render(source: str, **context) -> str:
    return Template("{% load ioboard %}" + source).render(Context(context))


def test_a_compare_row_colours_each_change_by_its_noise_verdict():
    delta = Delta(
        name="ior_easy_write",
        unit="GiB/s",
        values=[100.0, 98.9, 98.9],
        seconds=[None] * 3,
        deltas=[0.0, -1.1, -1.1],
        percents=[None, -1.1, -1.1],
        ratios=[1.0, 0.989, 0.989],
    )
    judged = render("{% delta_rows deltas noise=noise %}", deltas=[delta], noise={"ior_easy_write": [False, True]})
    assert cells(judged) == ["GiB/s", "100.000", "98.900", "−1.1 %", "98.900", "−1.1 %"]
    assert '<td class="num change flat" title="within run-to-run noise">−1.1 %</td>' in judged
    assert '<td class="num change down" title="beyond run-to-run noise">−1.1 %</td>' in judged
    assert '<td class="num change down">−1.1 %</td>' in render("{% delta_rows deltas %}", deltas=[delta])


@pytest.mark.parametrize(
    ("measurement", "text"),
    [
        (None, "—"),
        (StackMeasurement(measured=1567.8, efficiency=0.7012), "1568 (0.70)"),
        (StackMeasurement(measured=866.2, efficiency=0.49, is_outlier=True, peer_median=1301.4), "866 (0.49) outlier"),
    ],
)
def test_a_stack_figure_reads_measured_then_efficiency_then_an_outlier_badge(measurement, text):
    html = render("{% stack_figure m %}", m=measurement)
    assert " ".join(re.sub(r"<[^>]+>", " ", html).split()) == text
    if measurement and measurement.is_outlier:
        assert 'title="below 0.8 × the peers\' median 1301"' in html


def test_evidence_reads_as_words_with_records_as_a_nested_table():
    evidence = {"phase_seconds": 12.3456789, "slow_ranks": [{"rank": 3, "seconds": 40.0}, {"rank": 7}], "flags": {}}
    html = render("{% evidence_rows evidence %}", evidence=evidence)
    assert re.findall(r"<th(?: [^>]*)?>(.*?)</th>", html) == ["phase seconds", "slow ranks", "rank", "seconds", "flags"]
    assert '<th scope="row">phase seconds</th><td>12.3457</td>' in html
    assert (
        '<td><table class="compact evidence-nested"><thead><tr><th>rank</th><th>seconds</th></tr></thead>'
        "<tbody><tr><td>3</td><td>40</td></tr><tr><td>7</td><td>—</td></tr></tbody></table></td>"
    ) in html
    assert '<th scope="row">flags</th><td>—</td>' in html


def test_a_chart_carries_its_figure_as_json_and_names_itself_as_text():
    html = render(
        '{% chart figure "history-score" label click_url="/runs/{id}/" %}',
        figure={"data": [{"name": "</script><b>"}]},
        label='score of "Wolf" <over time>',
    )
    assert '<script id="history-score" type="application/json">' in html
    assert "</script><b>" not in html
    assert 'aria-label="score of &quot;Wolf&quot; &lt;over time&gt;"' in html
    assert 'data-click-url="/runs/{id}/"' in html


def test_a_published_row_writes_names_as_text_and_scores_rounded_half_up_and_its_change_log_cut_at_160(client):
    from apps.results.models import Edition, EditionEntry, PublishedChange

    edition = Edition.objects.create(
        name="SC19", source=Edition.Source.PUBLISHED, list_kind="io500", title="SC19 IO500"
    )
    run = RunFactory(phases=False)
    EditionEntry.objects.create(
        edition=edition, rank=1, score=0.125, score_bw=2.675, score_md=1234.5, system_name=HOSTILE,
        institution_name="Intel", filesystem="DAOS", storage_vendor="Intel", client_nodes=None, run=run,
    )  # fmt: skip
    EditionEntry.objects.create(
        edition=edition, rank=2, score=None, score_bw=0.0, score_md=7.0, system_name="Wolf", institution_name="Intel",
        filesystem="DAOS", client_nodes=10,
    )  # fmt: skip
    PublishedChange.objects.create(
        edition_name="SC19", file="fix.sql", line=4, action="update", table="submissions", submission_number=None,
        field="information_system", before="x" * 200, after=HOSTILE,
    )  # fmt: skip

    html = client.get("/published/SC19/").content.decode()
    changes = client.get("/published/SC19/changes/").content.decode()

    first, second = [row for row in rows_of(html) if "<td" in row]
    (change,) = [row for row in rows_of(changes) if "<td" in row]
    assert cells(first) == ["1", "0.13", "2.68", "1234.50", SHOWN, "Intel", "Intel", "DAOS", "", f"run {run.pk}"]
    assert f'<a href="/runs/{run.pk}/">run {run.pk}</a>' in first
    assert cells(second) == ["2", "", "0.00", "7.00", "Wolf", "Intel", "", "DAOS", "10", "raw files not ingested"]
    assert cells(change)[2:] == ["", "information_system", "x" * 159 + "…", SHOWN]
