"""The run page: phases, computed vs reported score, configuration, Lustre build, anomalies, chart, upload."""

import json

import pytest

from apps.results.models import PhaseRankStats, PhaseResult
from apps.results.services.editions import freeze_edition
from tests.factories import (
    AnomalyFactory,
    LustrePatchFactory,
    RunFactory,
    RunFileFactory,
    StripingFactory,
    TunableFactory,
    UploadFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def detailed_run(django_capture_on_commit_callbacks, celery_eager):
    with django_capture_on_commit_callbacks(execute=True):  # list statistics are refreshed after the commit
        return _detailed_run()


def _detailed_run():
    patch = LustrePatchFactory(
        ticket="LU-12325",
        summary="dom: use LCK_PR with 'trylock' mode",
        review_url="https://review.whamcloud.com/#/c/35031",
        build__server_version="2.12.54",
    )
    LustrePatchFactory(
        build=patch.build, ticket="LU-10213", summary="lnd: calculate qp max send wrs properly", status="reverted"
    )
    run = RunFactory(
        lustre_build=patch.build,
        reported_total=202.0,
        config={"ior-easy": {"transferSize": "16m"}},
        info={"system": {"mds_nodes": 24}},
        flagged=True,
    )
    PhaseResult.objects.filter(run=run, name="ior_hard_write").update(
        command="ior -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008 -s 10000000 -w -D 300 -a MPIIO"
    )
    AnomalyFactory(run=run, evidence={"stat_rate": 183233.0, "create_rate": 1784.64, "lines": [412, 418]})
    TunableFactory(
        run=run, scope="server", parameter="mdt.*.dom_lock", value="trylock", source_file="tune.sh", source_line=3
    )
    StripingFactory(run=run, path_role="ior_hard", stripe_count=1440, overstriping=True)
    RunFileFactory(run=run, name="config.ini", content="[ior-easy]\ntransferSize = 16m\n")
    return run


def test_the_run_page_shows_every_part_of_a_run(client, detailed_run):
    html = client.get(f"/runs/{detailed_run.pk}/").content.decode()
    assert "ior -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008 -s 10000000 -w -D 300 -a MPIIO" in html
    assert "result.txt:3" in html  # phase source file and line
    assert "320.0" in html  # seconds
    assert "−1.0 %" in html
    assert "differs" in html
    assert "score hash: verified" in html
    assert 'href="https://jira.whamcloud.com/browse/LU-12325"' in html
    assert 'href="https://review.whamcloud.com/#/c/35031"' in html
    assert "reverted" in html
    assert "mdt.*.dom_lock" in html
    assert "trylock" in html
    assert "tune.sh:3" in html
    assert "1440" in html
    assert "overstriping" in html.lower()
    assert "ior-easy.transferSize" in html
    assert "mds_nodes" in html
    assert "[ior-easy]" in html  # the configuration file, verbatim
    assert "cache_effect_stat" in html
    assert "stat phase 20x faster" in html
    assert "183233" in html  # evidence values read as numbers and lists, never as Python or JSON
    assert "412, 418" in html
    assert "[412, 418]" not in html


def test_the_chart_compares_the_phases_with_the_list_median(
    client, detailed_run, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):  # the medians are refreshed after the commit
        RunFactory(score_bw=10, score_md=10)
        RunFactory(score_bw=20, score_md=20)
    response = client.get(f"/runs/{detailed_run.pk}/")
    figure = response.context["chart"]
    this_run, median = figure["data"][:2]  # the bandwidth panel; metadata has panel (and axis) of its own
    assert this_run["x"][0] == "ior_easy_write"
    assert {trace["yaxis"] for trace in figure["data"] if "ior_easy_write" in trace["x"]} == {"y"}
    assert {trace["yaxis"] for trace in figure["data"] if "mdtest_easy_write" in trace["x"]} == {"y2"}
    assert figure["layout"]["yaxis"]["title"]["text"] == "GiB/s"
    assert figure["layout"]["yaxis2"]["title"]["text"] == "kIOPS"
    assert "2" not in figure["layout"]["yaxis"]["ticktext"]  # full numbers, never a bare digit inside a decade
    assert this_run["y"][0] == pytest.approx(100.0)
    assert median["y"][0] == pytest.approx(20.0)
    html = response.content.decode()
    assert 'id="phase-chart" type="application/json"' in html
    assert 'data-figure="phase-chart"' in html
    assert "vendor/plotly/plotly.min.js" in html


def test_the_run_page_shows_placements_on_lists_and_editions(client):
    best = RunFactory(client_nodes=10)
    RunFactory(score_bw=1000, score_md=1000, client_nodes=100)
    freeze_edition("ISC19", "ten-node")
    html = client.get(f"/runs/{best.pk}/").content.decode()
    assert "Research list: <a" in html
    assert "#2</a>" in html
    assert "10 client-node Research list: <a" in html
    assert "#1</a>" in html
    assert "/editions/ISC19/ten-node/" in html


def test_an_excluded_run_says_why(client):
    run = RunFactory(
        exclusion_reason="phase_too_short: ior_hard_write ran 95 s",
        valid=False,
        invalid_reasons=["ior_hard_write ran 95 s"],
    )
    html = client.get(f"/runs/{run.pk}/").content.decode()
    assert "excluded from ranked lists" in html
    assert "phase_too_short: ior_hard_write ran 95 s" in html
    assert "not on the list" in html


@pytest.mark.parametrize("size", [1, 8])
def test_the_run_page_runs_a_constant_number_of_queries(client, size, django_assert_num_queries):
    patch = LustrePatchFactory()
    LustrePatchFactory.create_batch(size, build=patch.build)
    run = RunFactory(lustre_build=patch.build, upload=UploadFactory())
    AnomalyFactory.create_batch(size, run=run)
    TunableFactory.create_batch(size, run=run)
    StripingFactory.create_batch(size, run=run)
    RunFileFactory.create_batch(size, run=run)
    for _ in range(size):
        RunFactory()
    freeze_edition(f"E{size}", "io500")
    # the run (+ its 6 relations), its per-rank statistics, placements on every list, list statistics, edition
    # entries, the system's stack
    with django_assert_num_queries(6 + 6):
        assert client.get(f"/runs/{run.pk}/").status_code == 200


def test_an_unknown_run_is_not_found(client):
    assert client.get("/runs/999999/").status_code == 404


def test_the_original_upload_downloads_as_an_attachment_under_its_name(client):
    upload = UploadFactory(file__data=b"\x1f\x8bsubmission bytes", original_name="cambridge-isc19.tgz")
    run = RunFactory(upload=upload)
    assert f"/runs/{run.pk}/upload/" in client.get(f"/runs/{run.pk}/").content.decode()
    response = client.get(f"/runs/{run.pk}/upload/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="cambridge-isc19.tgz"'
    assert b"".join(response.streaming_content) == b"\x1f\x8bsubmission bytes"


def test_a_run_without_its_upload_file_has_no_download(client):
    without = RunFactory()
    assert client.get(f"/runs/{without.pk}/upload/").status_code == 404
    assert "/upload/" not in client.get(f"/runs/{without.pk}/").content.decode()
    upload = UploadFactory()
    upload.file.storage.delete(upload.file.name)
    gone = RunFactory(upload=upload)
    assert client.get(f"/runs/{gone.pk}/upload/").status_code == 404


def test_the_chart_data_is_a_json_script_not_markup(client):
    run = RunFactory()
    PhaseResult.objects.filter(run=run, name="find").update(name="find</script><script>alert(1)</script>")
    response = client.get(f"/runs/{run.pk}/")
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html
    start = html.index('id="phase-chart" type="application/json">') + len('id="phase-chart" type="application/json">')
    figure = json.loads(html[start : html.index("</script>", start)])
    assert any("find&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in trace["x"] for trace in figure["data"])


def test_each_phase_with_per_rank_data_gets_a_sorted_chart_with_its_slow_tail_in_red(client):
    run = RunFactory()
    PhaseRankStats.objects.create(
        run=run,
        phase="ior_easy_write",
        tool="ior",
        ranks=3,
        slowest_rank=2,
        fastest_rank=0,
        runtime_max=30.0,
        runtime_min=10.0,
        runtime_median=11.0,
        imbalance=3.0,
        cv=0.4,
        slow_tail=[2],
        per_rank=[[2, 30.0, 1.0], [0, 10.0, 3.0], [1, 11.0, 2.7]],
    )

    html = client.get(f"/runs/{run.pk}/").content.decode()

    assert "Ranks per phase" in html
    marker = 'id="rank-chart-ior_easy_write" type="application/json">'
    start = html.index(marker) + len(marker)
    bars = json.loads(html[start : html.index("</script>", start)])["data"][0]
    assert bars["y"] == [10.0, 11.0, 30.0]
    assert bars["marker"]["color"][2] != bars["marker"]["color"][0]
    assert bars["hovertext"][2] == "rank 2: 30 s"


def test_a_run_without_per_rank_data_has_no_rank_section(client):
    run = RunFactory()

    assert "Ranks per phase" not in client.get(f"/runs/{run.pk}/").content.decode()


def test_a_reported_score_agrees_only_within_its_printing_precision(client):
    # phases printed with 6 decimals: a TOTAL 0.3 % off is far beyond what rounding explains
    # (a fixed 0.5 % band would have called it agreeing); BW and MD are exactly the computed ones.
    run = RunFactory(reported_total=200.0 * 1.003)
    checks = {check["label"]: check["agrees"] for check in client.get(f"/runs/{run.pk}/").context["score_checks"]}
    assert checks == {"Score": False, "Bandwidth (GiB/s)": True, "Metadata (kIOPS)": True}
