"""The stacks API: stacks, components and measurements for everyone; a campaign archive uploaded with a
token (kind=stack) goes through the upload job and is stored under the uploader's account."""

import shutil
import time
from pathlib import Path

import pytest
from django.core.management import call_command

from apps.results.models import Stack
from tests.api.uploading import named_file, tar_gz_of

CAMPAIGN = Path(__file__).resolve().parents[2] / "data" / "stack" / "beacon-io2"

pytestmark = pytest.mark.django_db


def upload(client, data: bytes, name: str, **fields):
    return client.post("/api/v1/uploads/", {"file": named_file(data, name), **fields}, format="multipart")


@pytest.fixture
def stored():
    call_command("ingest", "--kind", "stack", str(CAMPAIGN), "--name", "beacon-io2")
    return Stack.objects.get(name="beacon-io2")


def test_anyone_reads_a_stack_its_components_and_measurements(client, stored):
    stack = client.get("/api/v1/stacks/beacon-io2/").json()
    assert stack["ceiling"]["limited_by"] == {"read": "storage", "write": "storage"}
    assert stack["ceiling"]["write"] == pytest.approx(stored.ceiling_write)

    card = client.get("/api/v1/stack-components/", {"stack__name": "beacon-io2", "layer": "device_group"}).json()
    assert {row["name"] for row in card["results"]} >= {"io2-card0", "io2-all16"}
    card0 = next(row for row in card["results"] if row["name"] == "io2-card0")
    assert sorted(card0["below"]) == ["io2-sdb", "io2-sdc", "io2-sdd", "io2-sde"]

    over = client.get("/api/v1/stack-measurements/", {"stack__name": "beacon-io2", "over_ceiling": "true"}).json()
    assert {row["layer"] for row in over["results"]} == {"file_system"}
    assert len(over["results"]) == 4

    exported = client.get("/api/v1/stacks/beacon-io2/export/").json()
    assert set(exported) == {"name", "layers", "outliers", "ceiling", "file_system"}


def test_a_campaign_archive_uploaded_with_a_token_is_stored_for_its_uploader(
    alice, alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice_client, tar_gz_of(CAMPAIGN), name="beacon.tgz", kind="stack", stack="from-api")
    assert response.status_code == 202, response.json()

    status = alice_client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    stack = Stack.objects.get(name="from-api")
    assert stack.upload.uploader == alice
    assert stack.measurements.count() == 58


def test_an_upload_cannot_replace_a_stack_of_another_account(
    stored, bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bob_client, tar_gz_of(CAMPAIGN), name="b.tgz", kind="stack", stack="beacon-io2")

    status = bob_client.get(response.json()["status_url"]).json()
    assert status["status"] == "failed"
    assert "belongs to another account" in status["error"]
    assert Stack.objects.get(name="beacon-io2").upload is None


def test_a_bad_campaign_upload_fails_with_the_file_and_line_and_stores_nothing(
    alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks, tmp_path
):
    copy = tmp_path / "campaign"
    shutil.copytree(CAMPAIGN, copy)
    manifest = copy / "manifest.csv"
    manifest.write_text(manifest.read_text().replace(",io2-card1,", ",nowhere,", 1))
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(alice_client, tar_gz_of(copy), name="bad.tgz", kind="stack")

    status = alice_client.get(response.json()["status_url"]).json()
    assert status["status"] == "failed"
    assert "manifest.csv:" in status["error"]
    assert "unknown component 'nowhere'" in status["error"]
    assert not Stack.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_campaign_upload_is_stored_by_a_real_worker_on_redis(celery_worker_on_redis, alice_client, private_storage):
    response = upload(alice_client, tar_gz_of(CAMPAIGN), name="beacon.tgz", kind="stack", stack="on-redis")
    assert response.status_code == 202, response.json()
    deadline = time.monotonic() + 120
    status = {}
    while time.monotonic() < deadline:
        status = alice_client.get(response.json()["status_url"]).json()
        if status["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert status["status"] == "done", status
    assert Stack.objects.get(name="on-redis").measurements.count() == 58


def test_an_account_cannot_hold_another_owners_runs_to_a_ceiling_of_its_own(
    bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """A stack's ceiling flags its system's runs: an ordinary account naming the operator's system (here by the
    file system's name, as stack.yaml does) is refused, and the operator's run is held to nothing."""
    from apps.results.models import Anomaly
    from tests.factories import RunFactory, StorageSystemFactory

    operators_run = RunFactory(system=StorageSystemFactory(name="beacon"), upload=None)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bob_client, tar_gz_of(CAMPAIGN), name="low.tgz", kind="stack", stack="low-ceiling")

    status = bob_client.get(response.json()["status_url"]).json()
    assert status["status"] == "failed"
    assert "is ingested by the operator" in status["error"]
    assert not Stack.objects.exists()
    assert not Anomaly.objects.filter(run=operators_run, rule="above_measured_ceiling").exists()


def test_deleting_a_stack_upload_deletes_its_stack(
    bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """Left behind without its upload, a stack would look like the operator's, which no account may replace or
    delete: an account could make its stack permanent by deleting its own upload (issue #22, found live)."""
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(bob_client, tar_gz_of(CAMPAIGN), name="b.tgz", kind="stack", stack="bobs")
    status = bob_client.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]

    with django_capture_on_commit_callbacks(execute=True):
        assert bob_client.delete(f"/api/v1/uploads/{status['id']}/").status_code == 204

    assert not Stack.objects.filter(name="bobs").exists()
    assert bob_client.get("/api/v1/stacks/bobs/").status_code == 404
