"""The page cache serves a list until the data version changes, and every kind of write changes it."""

import io

import pytest
from django.core.management import call_command
from django.test import Client

from apps.results.models import Run, StorageSystem
from apps.results.services import runs
from apps.results.services.freshness import bump_data_version, current_data_version
from apps.web.page_cache import CACHE_STATUS_HEADER
from tests.factories import AnomalyFactory, RunFactory, StorageSystemFactory

pytestmark = pytest.mark.django_db


#: A cache on a port nothing listens on.
UNREACHABLE_REDIS = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:9/0"}


@pytest.fixture
def page_cache(settings):
    """The page cache on, starting from a version no earlier test has cached a page under."""
    settings.IOBOARD_PAGE_CACHE_SECONDS = 60
    bump_data_version()


@pytest.fixture
def committing(django_capture_on_commit_callbacks):
    """Run the on-commit callbacks of the writes inside it, as a real commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_a_second_anonymous_read_of_a_list_is_served_from_the_cache_without_a_query(
    page_cache, client, django_assert_num_queries
):
    RunFactory(system=StorageSystemFactory(name="Cached System"), phases=False)

    first = client.get("/lists/io500/")
    with django_assert_num_queries(0):
        second = client.get("/lists/io500/")

    assert first[CACHE_STATUS_HEADER] == "miss"
    assert second[CACHE_STATUS_HEADER] == "hit"
    assert second.content == first.content
    assert second["Content-Type"] == first["Content-Type"]


def test_a_new_run_shows_on_the_next_read_after_its_commit(page_cache, client, committing):
    RunFactory(system=StorageSystemFactory(name="Old System"), phases=False)
    client.get("/lists/io500/")

    with committing():
        RunFactory(system=StorageSystemFactory(name="Brand New System"), phases=False)
    page = client.get("/lists/io500/")

    assert page[CACHE_STATUS_HEADER] == "miss"
    assert "Brand New System" in page.content.decode()


def test_setting_a_run_s_verdicts_changes_the_version(page_cache, committing):
    run = RunFactory(phases=False)
    AnomalyFactory(run=run, severity="error")
    before = current_data_version()

    with committing():
        runs.set_verdicts(run)

    assert current_data_version() != before
    assert Run.objects.get(pk=run.pk).exclusion_reason


def test_deleting_a_run_changes_the_version(page_cache, committing):
    run = RunFactory(phases=False)
    before = current_data_version()

    with committing():
        runs.delete([run])

    assert current_data_version() != before


def test_seeding_synthetic_runs_changes_the_version(page_cache):
    before = current_data_version()

    call_command("seed_synthetic", "--runs", "5", stdout=io.StringIO())

    assert current_data_version() != before


def test_each_filter_and_sort_is_its_own_page(page_cache, client):
    RunFactory(system=StorageSystemFactory(name="Alpha", filesystem="Lustre"), phases=False)
    RunFactory(system=StorageSystemFactory(name="Beta", filesystem="GPFS"), phases=False)
    client.get("/lists/io500/")

    filtered = client.get("/lists/io500/?filesystem=GPFS")

    assert filtered[CACHE_STATUS_HEADER] == "miss"
    assert "Beta" in filtered.content.decode()
    assert "Alpha" not in filtered.content.decode()


def test_signed_in_readers_are_never_served_a_shared_page(page_cache, admin_client):
    RunFactory(phases=False)
    Client().get("/lists/io500/")

    page = admin_client.get("/lists/io500/")

    assert CACHE_STATUS_HEADER not in page
    assert 'href="/admin/"' in page.content.decode()


def test_the_api_list_is_cached_per_requested_format(page_cache, client):
    RunFactory(phases=False)

    as_json = client.get("/api/v1/lists/io500/", HTTP_ACCEPT="application/json")
    again = client.get("/api/v1/lists/io500/", HTTP_ACCEPT="application/json")
    as_html = client.get("/api/v1/lists/io500/", HTTP_ACCEPT="text/html")

    assert (as_json[CACHE_STATUS_HEADER], again[CACHE_STATUS_HEADER]) == ("miss", "hit")
    assert again.json() == as_json.json()
    assert again["Content-Type"] == "application/json"
    assert as_html[CACHE_STATUS_HEADER] == "miss"
    assert as_html["Content-Type"].startswith("text/html")


def test_token_authenticated_api_reads_bypass_the_cache(page_cache, client):
    RunFactory(phases=False)

    response = client.get("/api/v1/lists/io500/", HTTP_AUTHORIZATION="Token not-checked-here")

    assert CACHE_STATUS_HEADER not in response


def test_an_unreachable_cache_renders_the_page_uncached(page_cache, settings, client):
    RunFactory(system=StorageSystemFactory(name="Still Served"), phases=False)
    settings.CACHES = {"default": UNREACHABLE_REDIS, "pages": UNREACHABLE_REDIS}

    page = client.get("/lists/io500/")

    assert page.status_code == 200
    assert "Still Served" in page.content.decode()


def test_without_a_shared_cache_nothing_is_cached(settings, client):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 0
    RunFactory(phases=False)

    client.get("/lists/io500/")
    page = client.get("/lists/io500/")

    assert CACHE_STATUS_HEADER not in page


def test_a_write_commits_even_when_the_cache_is_unreachable(page_cache, settings, committing):
    settings.CACHES = {"default": UNREACHABLE_REDIS, "pages": UNREACHABLE_REDIS}

    with committing():
        run = RunFactory(phases=False)

    assert Run.objects.filter(pk=run.pk).exists()


def test_two_deployments_sharing_one_cache_never_serve_each_other_pages(page_cache, settings, client):
    RunFactory(system=StorageSystemFactory(name="Deployment A System"), phases=False)
    settings.IOBOARD_CACHE_PREFIX = "ioboard:deployment-a"
    from_a = client.get("/api/v1/lists/io500/", HTTP_ACCEPT="application/json")
    assert from_a[CACHE_STATUS_HEADER] == "miss"

    # Deployment B: same cache, same URL, its own database (here: the same rows, renamed as an edit would).
    settings.IOBOARD_CACHE_PREFIX = "ioboard:deployment-b"
    system = StorageSystem.objects.get()
    system.name = "Deployment B System"
    runs.edit_system(system)  # bumps B's data version, not A's
    from_b = client.get("/api/v1/lists/io500/", HTTP_ACCEPT="application/json")
    settings.IOBOARD_CACHE_PREFIX = "ioboard:deployment-a"
    again_a = client.get("/api/v1/lists/io500/", HTTP_ACCEPT="application/json")

    assert from_b[CACHE_STATUS_HEADER] == "miss"
    assert "Deployment B System" in from_b.content.decode()
    assert "Deployment A System" not in from_b.content.decode()
    assert again_a[CACHE_STATUS_HEADER] == "hit"
    assert "Deployment A System" in again_a.content.decode()


def test_each_deployment_keeps_its_own_data_version(page_cache, settings):
    settings.IOBOARD_CACHE_PREFIX = "ioboard:deployment-a"
    version_a = current_data_version()
    settings.IOBOARD_CACHE_PREFIX = "ioboard:deployment-b"
    version_b = current_data_version()

    bump_data_version()

    assert current_data_version() == version_b + 1
    settings.IOBOARD_CACHE_PREFIX = "ioboard:deployment-a"
    assert current_data_version() == version_a
