"""bench list_exports: an export passes only when every row the database lists came once, every page was answered
200, and no request came near the worker timeout."""

import json

from bench.pages.list_exports import ExportRun, differences, page_run_ids, passes
from bench.rows import ROWS


def test_rows_received_twice_never_received_or_not_on_the_list_are_each_counted():
    duplicates, missing, extra = differences(received=[1, 2, 2, 3, 9], expected=[1, 2, 3, 4])

    assert (duplicates, missing, extra) == (1, 1, 1)  # 2 twice; 4 never came; 9 is on no list
    assert differences(received=[3, 1, 2], expected=[1, 2, 3]) == (0, 0, 0)  # order is not completeness


def test_a_page_gives_the_run_ids_of_its_rows_in_either_format():
    csv_page = b"rank,id,institution\r\n1,17,A\r\n2,5,B\r\n"
    json_page = json.dumps({"meta": {"page": 1}, "rows": [{"run_id": 17}, {"run_id": None}]}).encode()

    assert page_run_ids(csv_page, "csv", "id") == [17, 5]
    assert page_run_ids(json_page, "json", "run_id") == [17, None]  # an edition row whose run was deleted


def export(seconds: list[float], rows: list[int], expected: int, statuses: list[int] | None = None) -> ExportRun:
    return ExportRun(
        label="live full",
        url="/lists/full/export.csv",
        fmt="csv",
        expected_rows=expected,
        statuses=statuses or [200] * len(seconds),
        seconds=seconds,
        rows_per_page=rows,
    )


def test_the_verdict_needs_every_export_complete_and_the_slowest_request_within_a_third_of_the_timeout():
    complete = export([1.0, 9.9], [2000, 500], 2500)

    assert passes([complete], timeout=30)
    assert not passes([export([1.0, 10.5], [2000, 500], 2500)], timeout=30)  # 10.5 s of 30: too near
    assert not passes([complete, export([1.0], [2000], 2500)], timeout=30)  # a page short
    assert not passes([export([1.0, 1.0], [2000, 500], 2500, statuses=[200, 500])], timeout=30)


def test_the_row_shows_each_list_in_both_formats_then_the_verdict_and_the_load():
    result = {
        "runs": 100_000,
        "page_rows": 2000,
        "headroom": 1 / 3,
        "worker_timeout_seconds": 30,
        "slowest_seconds": 4.25,
        "passed": False,
        "load_before": [5.0, 4.0, 3.0],
        "load_after": [6.0, 5.0, 4.0],
        "exports": [
            {"label": "live historic", "fmt": "csv", "seconds": [2.0, 4.25], "rows": 3000, "expected_rows": 3000,
             "complete": True},
            {"label": "live historic", "fmt": "json", "seconds": [1.0], "rows": 2000, "expected_rows": 3000,
             "complete": False},
        ],
    }  # fmt: skip

    figures = ROWS["list_exports"].figures(result)

    assert [figure.value for figure in figures] == [
        "CSV 2 pages, 3,000 / 3,000, 6.2 s, 4.25 s; JSON 1 pages, 2,000 / 3,000, 1.0 s, 1.00 s INCOMPLETE",
        "1 of 2; 4.25 s / 30 s: FAIL",
        "5.0/4.0/3.0 / 6.0/5.0/4.0",
    ]
    assert figures[0].label.startswith("live historic at 100,000 runs")
