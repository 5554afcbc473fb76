"""A stack as large as an upload may make it (IOBOARD_STACK_MAX_COMPONENTS, IOBOARD_STACK_MAX_MEASUREMENTS), every
measurement an outlier, keeps its page and API answers under a size and time bound (issue 40): the page lists the
first STACK_OUTLIERS_SHOWN outliers and counts the rest (all 5,000 listed made 1.6 MB), the API pages them."""

import time

import pytest

from apps.results.models import Stack, StackComponent, StackMeasurement, StackServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def largest_stack(settings) -> Stack:
    stack = Stack.objects.create(name="largest", file_system_name="largest", file_system={})
    server = StackServer.objects.create(stack=stack, name="oss0", roles=["oss"])
    components = StackComponent.objects.bulk_create(
        StackComponent(stack=stack, server=server, name=f"sd{index:05}", layer="device", spec="ssd")
        for index in range(settings.IOBOARD_STACK_MAX_COMPONENTS)
    )
    operations = ("read", "write", "randread", "randwrite")
    StackMeasurement.objects.bulk_create(
        StackMeasurement(
            stack=stack,
            component=components[index % len(components)],
            layer="device",
            operation=operations[index // len(components) % 4],
            measured=100.0 + index,
            unit="MB/s",
            expected=10_000.0,
            efficiency=0.01,
            peer_median=5000.0,
            is_outlier=True,
            tool="fio",
            source=f"logs/sd{index:05}.json",
            position=index,
        )
        for index in range(settings.IOBOARD_STACK_MAX_MEASUREMENTS)
    )
    return stack


def test_the_page_lists_the_first_outliers_and_counts_the_rest(client, largest_stack):
    page = client.get("/stacks/largest/").content.decode()
    assert "and 4800 more" in page
    assert "/api/v1/stack-measurements/?stack__name=largest&amp;is_outlier=true" in page


@pytest.mark.parametrize("url", ["/stacks/largest/", "/api/v1/stacks/largest/", "/api/v1/stacks/largest/export/"])
def test_the_largest_allowed_stack_answers_in_bounded_bytes_and_time(client, largest_stack, url):
    client.get("/stacks/")  # the process's first request imports the URL conf and templates: not the page's cost
    started = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200
    assert len(response.content) < 3_000_000
    assert elapsed < 3
