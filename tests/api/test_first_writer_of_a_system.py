"""The first writer of a storage system with no runs (issue #40, item 9) does not describe it for everyone: an
account's stack holds only that account's runs to its ceiling, and the vendor and server count an account's upload
wrote give way to the operator's."""

import shutil

import pytest

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Run, Stack, StorageSystem
from apps.results.services.anomaly_checks import duplicate_context
from tests.api.stacks.test_stacks_api import CAMPAIGN
from tests.api.stacks.test_stacks_api import upload as upload_stack
from tests.api.test_ownership_attacks import OTHER_SUBMISSION, PUBLISHED_AT
from tests.api.uploading import DEMO_SUBMISSION, named_file, tar_gz_of

pytestmark = pytest.mark.django_db


def test_an_accounts_stack_for_a_system_with_no_runs_holds_only_its_own_runs_to_its_ceiling(
    bob_client, tmp_path, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = upload_stack(
            bob_client,
            tar_gz_of(CAMPAIGN),
            "low.tgz",
            kind="stack",
            stack="low",
            institution="Intel",
            system="Wolf",
            filesystem="DAOS",
        )
    assert bob_client.get(response.json()["status_url"]).json()["status"] == "done"
    stack = Stack.objects.get(name="low")
    assert (stack.system.institution.name, stack.system.name) == ("Intel", "Wolf")

    shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)
    operators = Run.objects.get(pk=ingest_path(tmp_path / "archive").created[0])

    assert operators.system_id == stack.system_id
    assert duplicate_context(operators).measured_ceiling == {}
    assert not operators.anomalies.filter(rule="above_measured_ceiling").exists()


def test_the_operators_description_of_a_system_replaces_the_one_an_account_wrote_first(
    bob_client, tmp_path, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """Bob's upload of another run, naming the system and a vendor and server count of his choosing, comes first;
    the operator's ingest of the published run, with its own description, describes the system."""
    bobs_run_describing(bob_client, django_capture_on_commit_callbacks, "Intel", "Wolf", "DAOS")
    assert described("Intel", "Wolf") == ("Bob's Storage", 1)

    shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)
    summary = ingest_path(tmp_path / "archive", overrides={"storage_vendor": "Intel", "server_count": 24})

    assert not summary.failed
    assert described("Intel", "Wolf") == ("Intel", 24)


def test_an_accounts_description_goes_with_its_upload(
    bob_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    bobs = bobs_run_describing(bob_client, django_capture_on_commit_callbacks, "Bobs Lab", "Mine", "Lustre")
    assert described("Bobs Lab", "Mine") == ("Bob's Storage", 1)

    with django_capture_on_commit_callbacks(execute=True):
        assert bob_client.delete(f"/api/v1/uploads/{bobs['id']}/").status_code == 204

    assert described("Bobs Lab", "Mine") == ("", None)


def bobs_run_describing(client, capture, institution: str, name: str, filesystem: str) -> dict:
    """Bob's upload of a run naming the system, with a vendor ("Bob's Storage") and a server count (1); its status."""
    fields = {"institution": institution, "system": name, "filesystem": filesystem, "server_count": 1}
    with capture(execute=True):
        accepted = client.post(
            "/api/v1/uploads/",
            {"file": named_file(tar_gz_of(OTHER_SUBMISSION), "bobs.tgz"), "storage_vendor": "Bob's Storage", **fields},
            format="multipart",
        )
    status = client.get(accepted.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    return status


def described(institution: str, name: str) -> tuple[str, int | None]:
    system = StorageSystem.objects.get(institution__name=institution, name=name)
    return system.storage_vendor, system.server_count
