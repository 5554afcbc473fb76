"""The system page: every run of the system, a score timeline, placements on lists and editions."""

from datetime import UTC, datetime

import pytest

from apps.results.models import SystemAlias
from apps.results.services.editions import freeze_edition
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


def test_the_system_page_lists_every_run_and_its_placements(client):
    system = StorageSystemFactory(name="Data Accelerator", server_count=24)
    november = RunFactory(
        system=system,
        client_nodes=528,
        score_bw=71.40,
        score_md=352.75,
        run_timestamp=datetime(2018, 11, 1, tzinfo=UTC),
    )
    june = RunFactory(
        system=system,
        client_nodes=512,
        score_bw=162.05,
        score_md=2377.44,
        run_timestamp=datetime(2019, 6, 8, tzinfo=UTC),
    )
    ten = RunFactory(
        system=system, client_nodes=10, score_bw=26.94, score_md=358.85, run_timestamp=datetime(2019, 6, 9, tzinfo=UTC)
    )
    excluded = RunFactory(system=system, exclusion_reason="stonewall: too short", run_timestamp=None, year=2017)
    freeze_edition("ISC19", "io500")
    SystemAlias.objects.create(system=system, institution_name="Cambridge Univ", name="DAC", filesystem="Lustre")

    response = client.get(f"/systems/{system.pk}/")
    html = response.content.decode()
    assert [run.pk for run in response.context["runs"]] == [ten.pk, june.pk, november.pk, excluded.pk]
    assert [(info.slug, run_id, rank) for info, run_id, rank in response.context["placements"]] == [
        ("io500", june.pk, 1),
        ("ten-node", ten.pk, 1),
    ]
    assert "/editions/ISC19/io500/" in html
    assert "Cambridge Univ / DAC (Lustre)" in html
    assert "stonewall: too short" in html
    timeline = response.context["chart"]["data"]
    assert [trace["name"] for trace in timeline] == ["eligible runs", "excluded runs"]
    assert timeline[0]["customdata"] == [november.pk, june.pk, ten.pk]
    assert timeline[0]["x"][0].startswith("2018-11-01")
    assert 'data-click-url="/runs/{id}/"' in html


@pytest.mark.parametrize("size", [2, 12])
def test_the_system_page_runs_a_constant_number_of_queries(client, size, django_assert_num_queries):
    system = StorageSystemFactory()
    for index in range(size):
        AnomalyFactory(run=RunFactory(system=system, score_bw=index + 1))
    freeze_edition(f"E{size}", "io500")
    # system, the runs' count, a page of runs, their badges, the timeline's runs, placements on every list, edition
    # entries, aliases
    with django_assert_num_queries(8):
        assert client.get(f"/systems/{system.pk}/").status_code == 200


def test_an_unknown_system_is_not_found(client):
    assert client.get("/systems/999999/").status_code == 404
