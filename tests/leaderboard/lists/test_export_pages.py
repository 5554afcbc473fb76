"""Exports come in pages of at most IOBOARD_EXPORT_PAGE_ROWS rows, each linking the next (`Link: <…>; rel="next"`),
so no request holds a worker for a whole list, and following the links reaches every row of the view, in order."""

import csv
import io
import json
import re

import pytest

from apps.results.services.custom_lists import save_custom_list
from apps.results.services.editions import freeze_edition
from tests.factories import RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db

NEXT_LINK = re.compile(r'<http://testserver(?P<url>[^>]+)>; rel="next"')


@pytest.fixture
def five_listed(settings):
    settings.IOBOARD_EXPORT_PAGE_ROWS = 2
    return [RunFactory(system=StorageSystemFactory(), score_bw=score, score_md=score) for score in (5, 4, 3, 2, 1)]


def rows_of(response) -> list[dict]:
    text = b"".join(response.streaming_content).decode()
    if response["Content-Type"].startswith("text/csv"):
        return list(csv.DictReader(io.StringIO(text)))
    return json.loads(text)["rows"]


def every_page(client, url: str) -> list[list[dict]]:
    pages = []
    while url:
        response = client.get(url)
        assert response.status_code == 200
        pages.append(rows_of(response))
        link = NEXT_LINK.fullmatch(response.get("Link", ""))
        url = link["url"] if link else None
        assert len(pages) < 10
    return pages


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_a_live_list_exports_in_linked_pages_that_hold_every_row(client, five_listed, fmt):
    pages = every_page(client, f"/lists/io500/export.{fmt}?sort=-bw")

    assert [len(page) for page in pages] == [2, 2, 1]
    assert [int(row["id"]) for page in pages for row in page] == [run.pk for run in five_listed]


def test_the_json_export_names_its_page_and_the_next(client, five_listed):
    meta = json.loads(b"".join(client.get("/lists/io500/export.json?page=2").streaming_content))["meta"]

    assert meta["page"] == 2
    assert meta["next"] == "http://testserver/lists/io500/export.json?page=3"


def test_a_filtered_export_keeps_its_filters_in_the_next_link(client, five_listed):
    response = client.get("/lists/io500/export.csv?nodes_max=600&sort=-bw")

    assert NEXT_LINK.fullmatch(response["Link"])["url"] == "/lists/io500/export.csv?nodes_max=600&sort=-bw&page=2"


def test_an_edition_exports_in_linked_pages(client, five_listed):
    freeze_edition("ISC99", "io500")

    pages = every_page(client, "/editions/ISC99/io500/export.json")

    assert [len(page) for page in pages] == [2, 2, 1]
    assert [row["run_id"] for page in pages for row in page] == [run.pk for run in five_listed]


def test_a_custom_list_exports_in_linked_pages(client, five_listed, django_capture_on_commit_callbacks, celery_eager):
    with django_capture_on_commit_callbacks(execute=True):
        custom = save_custom_list("by bandwidth", "bw", base_list="io500")

    pages = every_page(client, f"/lists/custom/{custom.token}/export.csv")

    assert [len(page) for page in pages] == [2, 2, 1]
    assert [int(row["id"]) for page in pages for row in page] == [run.pk for run in five_listed]


@pytest.mark.parametrize("page", ["0", "abc", "4", "99999999999999999999"])
def test_a_page_that_is_not_there_is_not_found(client, five_listed, page):
    assert client.get(f"/lists/io500/export.csv?page={page}").status_code == 404
