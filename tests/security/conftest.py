"""A small world for the security tests: two users' uploads and runs, a system, an edition."""

from dataclasses import dataclass

import pytest
from django.apps import apps

from apps.ingest.models import IngestJob
from apps.results.models import Edition, Run, StorageSystem, Upload
from tests.api.uploading import client_with_token
from tests.factories import RunFactory, UploadFactory, UserFactory
from tests.faults.conftest import fault_queue, workers  # noqa: F401 - real Celery workers for test_bounded_work.py


@dataclass
class World:
    alice: object
    bob: object
    staff: object
    upload: Upload
    run: Run
    system: StorageSystem
    edition: Edition
    job: IngestJob

    def ids(self) -> dict[str, int | str]:
        """Values for the path parameters of every URL, by the resource the path names."""
        return {"runs": self.run.pk, "systems": self.system.pk, "uploads": self.upload.pk, "editions": self.edition.pk}


@pytest.fixture
def world(db, settings, tmp_path) -> World:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    staff = UserFactory(username="staff", is_staff=True, is_superuser=True)
    upload = UploadFactory(uploader=alice)
    run = RunFactory(upload=upload)
    job = IngestJob.objects.create(upload=upload, status="done", progress=100)
    job.runs.set([run])
    edition = Edition.objects.create(name="isc99", list_kind="io500", title="ISC99")
    return World(alice, bob, staff, upload, run, run.system, edition, job)


@pytest.fixture
def bob_client(world):
    return client_with_token(world.bob)


def row_counts() -> dict[str, int]:
    """How many rows every model of ours has: a write that slipped through changes one of them."""
    return {
        model._meta.label: model.objects.count()
        for model in apps.get_models()
        if model._meta.app_label in {"results", "ingest", "auth", "authtoken"}
    }


def field_snapshot(world: World) -> dict:
    """The editable fields of the world's objects, to prove a refused request changed nothing."""
    world.run.refresh_from_db()
    world.upload.refresh_from_db()
    world.system.refresh_from_db()
    return {
        "run": (world.run.score_total, world.run.exclusion_reason, world.run.upload_id, world.run.system_id),
        "upload": (world.upload.original_name, world.upload.uploader_id, world.upload.declared_metadata),
        "system": (world.system.name, world.system.filesystem),
    }
