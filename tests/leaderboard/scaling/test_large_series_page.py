"""A series as large as an upload may make it (IOBOARD_SCALING_MAX_POINTS), in the shape that costs a reader most
(every point its own group: its own charts), keeps its page and API answer under a size and time bound (issue 40)."""

import time
from decimal import Decimal

import pytest

from apps.results.models import ScalingPoint, ScalingSeries

pytestmark = pytest.mark.django_db

OPERATIONS = ("file_creation", "file_stat", "file_read", "file_removal")


@pytest.fixture
def widest_series(settings) -> ScalingSeries:
    series = ScalingSeries.objects.create(name="widest")
    ScalingPoint.objects.bulk_create(
        ScalingPoint(
            series=series,
            mdt_count=1 + index % 16,
            client_nodes=1 + index % 7,
            tasks=1 + index % 97,
            files_per_dir=1000 + index,  # a group of its own
            operation=OPERATIONS[index % 4],
            max=Decimal(index + 10),
            min=Decimal(index + 1),
            mean=Decimal(index + 5),
            stddev=Decimal(1),
            printed={"rate": [str(index + 10), str(index + 1), str(index + 5), "1"]},
            source_file=f"logs/{index}/mdtest.out",
            log_hash=f"{index:064x}",
        )
        for index in range(settings.IOBOARD_SCALING_MAX_POINTS)
    )
    return series


@pytest.mark.parametrize("url", ["/scaling/{pk}/", "/api/v1/scaling-series/{pk}/"])
def test_the_largest_allowed_series_answers_in_bounded_bytes_and_time(client, widest_series, url):
    client.get("/scaling/")  # the process's first request imports the URL conf and templates: not the page's cost
    started = time.perf_counter()
    response = client.get(url.format(pk=widest_series.pk))
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert len(response.content) < 3_000_000
    assert elapsed < 3
