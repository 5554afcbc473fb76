"""/compare/?runs=A,B[,C]: phases side by side with deltas and what changed between the runs."""

import pytest

from apps.results.models import PhaseResult
from tests.factories import LustreBuildFactory, LustrePatchFactory, RunFactory, StorageSystemFactory, TunableFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_runs():
    system = StorageSystemFactory()
    before = RunFactory(system=system, lustre_build=LustreBuildFactory(base_commit="85db9b258c"))
    after_build = LustreBuildFactory(base_commit="85db9b258c")
    LustrePatchFactory(build=after_build, ticket="LU-12325", summary="dom: use LCK_PR with 'trylock' mode")
    after = RunFactory(system=system, lustre_build=after_build, score_bw=200)
    TunableFactory(run=before, value="10000")
    TunableFactory(run=after, value="4000000")
    PhaseResult.objects.filter(run=after, name="mdtest_easy_stat").update(value=8000.0)
    return before, after


def test_compare_shows_phase_deltas_and_exactly_what_changed(client, two_runs):
    before, after = two_runs
    response = client.get(f"/compare/?runs={before.pk},{after.pk}")
    assert response.status_code == 200
    html = response.content.decode()
    assert "+100.0 %" in html  # bandwidth 100 → 200
    assert "+1900.0 %" in html  # mdtest_easy_stat 400 → 8000
    assert 'data-section="tunables"' in html
    assert "4000000" in html
    assert 'data-section="patches"' in html
    assert "LU-12325" in html
    assert "(added)" in html
    for quiet in ("config", "commands", "run", "lustre", "striping", "info"):
        assert f'data-section="{quiet}"' not in html
    [(run, lines)] = response.context["summaries"]
    assert run.pk == after.pk
    assert lines[:2] == ["Lustre patches: 1 added", "Tunables: client: ldlm.namespaces.*.lru_size"]
    assert response.context["chart"]["data"][1]["y"][0] == pytest.approx(200)


def test_runs_can_be_ticked_as_repeated_parameters(client, two_runs):
    before, after = two_runs
    response = client.get(f"/compare/?runs={after.pk}&runs={before.pk}&runs={after.pk}")
    assert [run.pk for run in response.context["runs"]] == [after.pk, before.pk]


def test_compare_without_runs_explains_itself(client):
    response = client.get("/compare/")
    assert response.status_code == 200
    assert "Pick 2 to 6 runs" in response.content.decode()


@pytest.mark.parametrize("query", ["runs=1", "runs=1,2,3,4,5,6,7"])
def test_compare_needs_two_to_six_runs(client, query):
    response = client.get(f"/compare/?{query}")
    assert response.status_code == 400
    assert "Give between 2 and 6 run ids" in response.content.decode()


def test_compare_with_an_unknown_run_is_not_found(client, two_runs):
    assert client.get(f"/compare/?runs={two_runs[0].pk},999999").status_code == 404


@pytest.mark.parametrize("count", [2, 4])
def test_compare_runs_a_constant_number_of_queries(client, count, django_assert_num_queries):
    runs = [RunFactory(lustre_build=LustrePatchFactory().build) for _ in range(count)]
    for run in runs:
        TunableFactory(run=run)
    ids = ",".join(str(run.pk) for run in runs)
    with django_assert_num_queries(3 + 6):  # runs (+ their 6 relations), noise, list tracks
        assert client.get(f"/compare/?runs={ids}").status_code == 200
