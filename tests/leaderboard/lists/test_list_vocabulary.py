"""One list vocabulary (issue #23): every declared list column sorts, and every declared criterion filters, the same
way on the live page, its CSV export, the API and a frozen edition; the table and the CSV carry every column.

The expected rows are written out by hand from the five systems below, never computed by the code under test; a
criterion or column added to apps.results.models.list_columns without an example here fails
`test_every_criterion_has_an_example`.
"""

import csv
import io

import pytest

from apps.api.lists.filters import RankedListFilter
from apps.leaderboard.lists.columns import TABLE_COLUMNS
from apps.leaderboard.lists.filters import ListFilterForm
from apps.results.models.list_columns import CRITERIA, LIST_COLUMNS, SORT_KEYS
from apps.results.services.editions import freeze_edition
from tests.factories import InstitutionFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


def system(institution, name, filesystem, vendor, servers):
    return StorageSystemFactory(
        institution=InstitutionFactory(name=institution),
        name=name,
        filesystem=filesystem,
        storage_vendor=vendor,
        server_count=servers,
    )


@pytest.fixture
def runs():
    """Four runs on the Research list, and one kept off it (excluded) that only the historic list shows."""
    return {
        "Aurora": RunFactory(
            system=system("Argonne", "Aurora", "DAOS", "Intel", 8),
            score_bw=300.0,
            score_md=50.0,
            client_nodes=300,
            client_procs=9600,
            year=2023,
        ),
        "Isambard": RunFactory(
            system=system("Bristol", "Isambard", "Lustre", "HPE", None),
            score_bw=80.0,
            score_md=900.0,
            client_nodes=10,
            client_procs=320,
            year=2021,
            flagged=True,
        ),
        "Alps": RunFactory(
            system=system("CSCS", "Alps", "Lustre", "Cray", 40),
            score_bw=150.0,
            score_md=150.0,
            client_nodes=64,
            client_procs=2048,
            year=2024,
        ),
        "Archer": RunFactory(
            system=system("Edinburgh", "Archer", "WekaFS", "Weka", 0),
            score_bw=40.0,
            score_md=60.0,
            client_nodes=16,
            client_procs=512,
            year=2022,
        ),
        "Frontera": RunFactory(
            system=system("Dallas", "Frontera", "Lustre", "Dell", 12),
            score_bw=500.0,
            score_md=500.0,
            client_nodes=128,
            client_procs=4096,
            year=2020,
            exclusion_reason="stonewall: too short",
        ),
    }


#: Each criterion: (the page's value, the API's value, the systems of the Research list it keeps).
EXAMPLES = {
    "search": ("AR", "AR", {"Aurora", "Isambard", "Archer"}),  # Argonne, Isambard, Archer
    "filesystem": ("lustre", "lustre", {"Isambard", "Alps"}),
    "institution": ("EDIN", "EDIN", {"Archer"}),
    "vendor": ("e", "e", {"Aurora", "Isambard", "Archer"}),  # Intel, HPE, Weka
    "year": ("2021", "2021", {"Isambard"}),
    "nodes_min": ("64", "64", {"Aurora", "Alps"}),
    "nodes_max": ("64", "64", {"Isambard", "Alps", "Archer"}),
    "flagged": ("yes", "true", {"Isambard"}),
    "system": (None, None, {"Alps"}),  # the id of Alps's system: a link's criterion, not the form's
    "run": (None, None, {"Aurora"}),  # the id of Aurora's run
}


def example(runs, parameter: str, api: bool = False) -> str:
    if parameter == "system":
        return str(runs["Alps"].system_id)
    if parameter == "run":
        return str(runs["Aurora"].pk)
    page_value, api_value, _ = EXAMPLES[parameter]
    return api_value if api else page_value


def names(runs, run_ids) -> set[str]:
    by_id = {run.pk: name for name, run in runs.items()}
    return {by_id[pk] for pk in run_ids}


def streamed(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_every_criterion_has_an_example():
    assert set(EXAMPLES) == {criterion.parameter for criterion in CRITERIA}


@pytest.mark.parametrize("criterion", CRITERIA, ids=lambda criterion: criterion.parameter)
def test_each_criterion_filters_the_page_its_export_the_api_and_an_edition_alike(criterion, runs, client):
    expected = EXAMPLES[criterion.parameter][2]
    api = client.get(f"/api/v1/lists/io500/?{criterion.parameter}={example(runs, criterion.parameter, api=True)}")
    assert api.status_code == 200, api.content
    assert names(runs, [row["run"] for row in api.json()["results"]]) == expected
    if not criterion.on_form:
        return
    query = f"{criterion.parameter}={example(runs, criterion.parameter)}"
    assert names(runs, [row.run_id for row in client.get(f"/lists/io500/?{query}").context["rows"]]) == expected
    exported = csv.DictReader(io.StringIO(streamed(client.get(f"/lists/io500/export.csv?{query}"))))
    assert names(runs, [int(row["id"]) for row in exported]) == expected
    freeze_edition("SC24", "io500")
    frozen = client.get(f"/editions/SC24/io500/?{query}").context["rows"]
    assert names(runs, [row.run_id for row in frozen]) == expected


def test_the_form_and_the_api_offer_every_criterion_and_every_sort_key():
    form = ListFilterForm({})
    assert [criterion.parameter for criterion in CRITERIA if criterion.on_form] == [
        "search",
        "filesystem",
        "institution",
        "vendor",
        "year",
        "nodes_min",
        "nodes_max",
        "flagged",
    ]
    assert {name for name in form.fields if name not in ("sort", "per_page")} == {
        criterion.parameter for criterion in CRITERIA if criterion.on_form
    }
    assert set(RankedListFilter.base_filters) == {criterion.parameter for criterion in CRITERIA} | {"ordering"}
    sorts = {key for key, _ in form.fields["sort"].choices if key}
    assert sorts == {key for key, _ in RankedListFilter.base_filters["ordering"].extra["choices"]}
    assert sorts == {direction + key for key in SORT_KEYS for direction in ("", "-")}


def in_order(values: list, descending: bool) -> bool:
    """Whether values are sorted, unknown values (None) last either way."""
    known = [value for value in values if value is not None]
    return known == sorted(known, reverse=descending) and values == known + [None] * (len(values) - len(known))


@pytest.mark.parametrize("direction", ["", "-"])
@pytest.mark.parametrize("key", SORT_KEYS)
def test_each_sort_key_sorts_the_page_the_api_and_an_edition(key, direction, runs, client):
    freeze_edition("SC24", "io500")
    descending = direction == "-"
    live = client.get(f"/lists/io500/?sort={direction}{key}").context["rows"]
    frozen = client.get(f"/editions/SC24/io500/?sort={direction}{key}").context["rows"]
    api = client.get(f"/api/v1/lists/io500/?ordering={direction}{key}").json()["results"]

    attribute = "run_id" if key == "id" else key
    for rows in (live, frozen):
        assert len(rows) == 4
        assert in_order([getattr(row, attribute) for row in rows], descending), (key, direction)
    assert [row["run"] for row in api] == [row.run_id for row in live]
    # Sorting never changes a rank: the ranks by hand, by score (Alps 150, Aurora 122.5, Isambard 268.3, Archer 49).
    assert {row.run_id: row.rank for row in live} == {
        runs["Isambard"].pk: 1,
        runs["Alps"].pk: 2,
        runs["Aurora"].pk: 3,
        runs["Archer"].pk: 4,
    }


def test_the_table_shows_every_column_with_its_unit(runs, client):
    html = client.get("/lists/io500/").content.decode()
    for column in TABLE_COLUMNS:
        assert f'data-column="{column.key}"' in html
    assert ">BW (GiB/s)</a></th>" in html
    assert ">MD per server (kIOPS)</a></th>" in html
    assert ">Score per node</a></th>" in html


def test_the_csv_exports_carry_every_column_as_the_page_shows_it(runs, client):
    page = {row.run_id: row for row in client.get("/lists/io500/").context["rows"]}
    table = list(csv.DictReader(io.StringIO(streamed(client.get("/lists/io500/export.csv")))))
    assert {column.export_name for column in LIST_COLUMNS} <= set(table[0])
    for record in table:
        row = page[int(record["id"])]
        for column in TABLE_COLUMNS:
            value = getattr(row, column.key)
            if isinstance(value, float):
                assert float(record[column.data.export_name]) == pytest.approx(value), column.key
            else:
                assert record[column.data.export_name] == ("" if value is None else str(value)), column.key
    # By hand: Isambard's system has no known server count, Archer's none.
    archer = next(record for record in table if record["system"] == "Archer")
    assert (archer["score_per_server"], float(archer["bw_per_node"])) == ("", pytest.approx(40.0 / 16))

    freeze_edition("SC24", "io500")
    frozen = list(csv.DictReader(io.StringIO(streamed(client.get("/editions/SC24/io500/export.csv")))))
    # An edition's record names its run "run_id" (its record's own key) and keeps every other column's name.
    assert {column.export_name for column in LIST_COLUMNS if column.key != "id"} | {"run_id"} <= set(frozen[0])
    assert {record["system"]: record["flagged"] for record in frozen}["Isambard"] == "True"
