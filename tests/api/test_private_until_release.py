"""Private until release (issue 37, item 5): an upload submitted to an edition is seen by its account and staff only.

Account A (alice) uploads a real IO500 submission through the API to edition sc26; staff accept it, so it would
rank. Until staff freeze sc26, every surface answers anonymous readers and a second account (bob) exactly as
before the upload (no id, no new system's name, no score, no count), and the run's own addresses are 404s. The
owner and staff read it. The freeze releases it: every surface shows it at once, anonymous readers included.
"""

import io
import shutil
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.test import APIClient

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.results.models import Change, Edition, Run, Upload
from apps.results.services.changes.history import detect_system_changes
from apps.results.tasks import release_due_embargoes
from tests.api.embargo import EDITION, normalised, read_all, release, signed_in
from tests.api.test_ownership_attacks import OTHER_SUBMISSION, PUBLISHED_AT, archive
from tests.api.uploading import DEMO_SUBMISSION, client_with_token, named_file, tar_gz_of, uploaded_run
from tests.factories import StorageSystemFactory, add_edition_in_the_admin

#: Every surface that lists or counts runs, systems or their rows: (address, shows the run once released).
#: `{run}`, `{system}`, `{upload}` and `{public}` (a public run) are filled in.
LISTING_SURFACES = [
    ("/", True),
    ("/lists/io500/", True),
    ("/lists/full/", True),
    ("/lists/historic/", True),
    ("/lists/io500/export.csv", True),
    ("/lists/historic/export.json", True),
    ("/systems/", True),
    ("/systems/?q=wolf", True),
    ("/compare/?q=wolf", True),
    ("/compare/?runs={public}", True),
    ("/changes/feed/", False),
    ("/api/v1/runs/", True),
    ("/api/v1/runs/?ranked=true", True),
    ("/api/v1/systems/", True),
    ("/api/v1/lists/io500/", True),
    ("/api/v1/lists/historic/", True),
    ("/api/v1/changes/", False),
    ("/api/v1/uploads/", False),
    ("/api/v1/studies/", False),
    ("/api/v1/scaling-series/", False),
]
#: The embargoed run's own addresses (and its new system's): until the release they answer as the addresses of
#: rows that do not exist (404; an upload's, 401 to anonymous readers as any upload's).
OWN_ADDRESSES = [
    "/runs/{run}/",
    "/runs/{run}/upload/",
    "/systems/{system}/",
    "/systems/{system}/history/",
    "/systems/{system}/changes/feed/",
    "/compare/?runs={public}&runs={run}",
    "/api/v1/runs/{run}/",
    "/api/v1/runs/compare/?runs={public},{run}",
    "/api/v1/systems/{system}/",
    "/api/v1/uploads/{upload}/",
]
#: What the owner and staff read of it before the release.
OWNER_ADDRESSES = ["/runs/{run}/", "/runs/{run}/upload/", "/api/v1/runs/{run}/", "/api/v1/uploads/{upload}/"]


def test_an_embargoed_run_is_nothing_to_others_until_its_edition_is_released(
    public_run, alice, bob, staff, staff_client, request, django_capture_on_commit_callbacks
):
    readers = {"anonymous": APIClient(), "bob": signed_in(bob)}
    listing = [address for address, _ in LISTING_SURFACES]
    ids = {"public": public_run.pk}
    before = {name: read_all(client, listing, **ids) for name, client in readers.items()}
    assert "Quokka" in before["anonymous"]["/lists/io500/"][1]  # the pages have rows to compare

    run, upload_id = request.getfixturevalue("embargoed")
    ids.update(run=run.pk, system=run.system_id, upload=upload_id)
    score = f"{run.score_total:.2f}"

    for name, client in readers.items():
        during = read_all(client, listing, **ids)
        assert [address for address in listing if during[address] != before[name][address]] == [], name
        for address in OWN_ADDRESSES:
            missing = client.get(address.format(**{**ids, "run": 99999, "system": 99999, "upload": 99999}))
            assert missing.status_code in (401, 404), (name, address)
            assert client.get(address.format(**ids)).status_code == missing.status_code, (name, address)
    for name, client in {"alice": signed_in(alice), "staff": signed_in(staff)}.items():
        for address in OWNER_ADDRESSES:
            assert client.get(address.format(**ids)).status_code == 200, (name, address)
        page = client.get(f"/runs/{run.pk}/").content.decode()
        assert "Wolf" in page, name
        assert EDITION in page, name
        assert client.get(f"/api/v1/runs/{run.pk}/").json()["edition"] == EDITION, name

    release(staff_client, django_capture_on_commit_callbacks)

    anonymous = APIClient()
    for address, shows_it in LISTING_SURFACES:
        body = normalised(anonymous.get(address.format(**ids)))
        if shows_it:
            assert "Wolf" in body or str(run.pk) in body, address
    for address in OWN_ADDRESSES:
        if "uploads" not in address:
            assert anonymous.get(address.format(**ids)).status_code == 200, address
    assert score in anonymous.get("/lists/io500/").content.decode()
    ranked = anonymous.get("/api/v1/lists/io500/").json()["results"]
    assert [row["rank"] for row in ranked if row["run"] == run.pk] == [1]  # Wolf scores above Quokka
    assert "Wolf" in anonymous.get(f"/editions/{EDITION}/io500/").content.decode()  # the edition holds it


def test_an_anonymous_page_cached_while_the_owner_reads_leaks_nothing(
    public_run, alice, settings, request, django_capture_on_commit_callbacks
):
    settings.IOBOARD_PAGE_CACHE_SECONDS = 60
    run, _ = request.getfixturevalue("embargoed")
    owner = signed_in(alice)
    anonymous = APIClient()
    for address in ["/", "/lists/historic/", "/systems/", "/api/v1/runs/", f"/runs/{run.pk}/"]:
        assert owner.get(address).status_code == 200, address
        first, second = anonymous.get(address), anonymous.get(address)
        for response in (first, second):
            assert "Wolf" not in response.content.decode(), address
    assert anonymous.get(f"/runs/{run.pk}/").status_code == 404


def test_change_detection_of_another_accounts_series_ignores_an_embargoed_run(bob, alice, db):
    """Bob's series on a system holds a steady score; alice's embargoed run on the same system at a tenth of it
    would be a step or an outlier in that series if detection read it."""
    system = StorageSystemFactory(name="Shared")
    bobs = [
        uploaded_run(bob, content=f"bob {index}".encode(), system=system, run_timestamp=day(index), score_bw=100.0)
        for index in range(8)
    ]
    detect_system_changes(system.pk)
    steady = sorted(Change.objects.filter(system=system).values_list("metric", "run_after_id"))

    uploaded_run(
        alice, content=b"alice", system=system, run_timestamp=day(9), score_bw=10.0, score_md=40.0, edition=EDITION
    )
    detect_system_changes(system.pk)

    assert sorted(Change.objects.filter(system=system).values_list("metric", "run_after_id")) == steady
    assert len(bobs) == 8


def day(index: int) -> datetime:
    return datetime(2025, 1, 1 + index, tzinfo=UTC)


def test_an_upload_private_until_a_date_is_released_by_the_periodic_task_once_the_date_has_passed(
    alice, staff_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """The clock is the real one: the embargo ends twenty seconds after the upload is sent (time to ingest and
    review it on a loaded host), and the task (as Celery beat sends it every minute, config/settings.py) releases
    nothing before that moment and everything after it."""
    ends = timezone.now() + timedelta(seconds=20)
    owner = client_with_token(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(
            "/api/v1/uploads/",
            {
                "file": named_file(tar_gz_of(DEMO_SUBMISSION), "run.tgz"),
                "embargo_until": ends.isoformat(),
                "institution": "Intel",
                "system": "Wolf",
                "filesystem": "DAOS",
            },
            format="multipart",
        )
    status = owner.get(response.json()["status_url"]).json()
    assert status["status"] == "done", status["error"]
    assert status["embargo_until"] is not None
    assert datetime.fromisoformat(status["embargo_until"]) == ends
    run_id = status["runs"][0]["id"]
    with django_capture_on_commit_callbacks(execute=True):
        assert staff_client.post(f"/api/v1/runs/{run_id}/review/", {"status": "accepted"}).status_code == 200
    anonymous = APIClient()

    assert timezone.now() < ends, "the host took longer than the embargo to ingest the upload"
    assert release_due_embargoes.delay().get() == 0
    assert anonymous.get(f"/api/v1/runs/{run_id}/").status_code == 404
    assert "Wolf" not in anonymous.get("/lists/io500/").content.decode()

    time.sleep(max(0.0, (ends - timezone.now()).total_seconds()) + 0.1)
    with django_capture_on_commit_callbacks(execute=True):
        assert release_due_embargoes.delay().get() == 1

    assert anonymous.get(f"/api/v1/runs/{run_id}/").status_code == 200
    assert "Wolf" in anonymous.get("/lists/io500/").content.decode()
    assert release_due_embargoes.delay().get() == 0  # idempotent


def test_staff_adding_the_edition_in_the_admin_release_it_as_the_api_freeze_does(
    public_run, admin_client, request, django_capture_on_commit_callbacks
):
    run, _ = request.getfixturevalue("embargoed")
    anonymous = APIClient()
    assert anonymous.get(f"/runs/{run.pk}/").status_code == 404

    with django_capture_on_commit_callbacks(execute=True):
        response = add_edition_in_the_admin(admin_client, EDITION, "SC 2026")

    assert response.status_code == 302, response.content[:2000]
    assert anonymous.get(f"/runs/{run.pk}/").status_code == 200
    assert anonymous.get(f"/api/v1/runs/{run.pk}/").json()["edition"] == EDITION
    frozen = Edition.objects.get(name=EDITION, list_kind="io500")
    assert list(frozen.entries.order_by("rank").values_list("run", flat=True)) == [run.pk, public_run.pk]
    assert "Wolf" in anonymous.get("/lists/io500/").content.decode()


def test_the_operators_bulk_ingest_to_an_edition_is_stored_as_an_uploads_fields_and_released_with_it(
    public_run, staff, staff_client, private_storage, django_capture_on_commit_callbacks
):
    out = io.StringIO()
    wolf = ["--institution", "Intel", "--system", "Wolf", "--filesystem", "DAOS"]
    call_command("ingest", str(DEMO_SUBMISSION), "--edition", EDITION, *wolf, stdout=out)

    upload = Upload.objects.get()
    assert (upload.edition, upload.embargo_until, upload.embargoed, upload.uploader) == (EDITION, None, True, None)
    assert upload.declared_metadata == {"institution": "Intel", "system": "Wolf", "filesystem": "DAOS"}
    run = Run.objects.get(upload=upload)
    assert run.embargoed
    assert f"runs {run.pk}" in out.getvalue()
    anonymous = APIClient()
    assert anonymous.get(f"/runs/{run.pk}/").status_code == 404
    assert signed_in(staff).get(f"/runs/{run.pk}/").status_code == 200
    assert anonymous.get(f"/api/v1/runs/{run.pk}/").status_code == 404

    release(staff_client, django_capture_on_commit_callbacks)

    assert anonymous.get(f"/api/v1/runs/{run.pk}/").json()["edition"] == EDITION
    with pytest.raises(CommandError, match=f"edition {EDITION} is frozen already"):
        call_command("ingest", str(OTHER_SUBMISSION), "--edition", EDITION)
    call_command("ingest", str(DEMO_SUBMISSION), "--edition", EDITION, *wolf, stdout=out)
    assert Upload.objects.get() == upload  # the same folder again: its upload, not another


def test_the_operators_bulk_ingest_with_an_embargo_date_keeps_it_as_an_uploads_embargo_until(db, private_storage):
    call_command("ingest", str(DEMO_SUBMISSION), "--embargo-until", "2999-01-01T00:00+00:00", stdout=io.StringIO())

    upload = Upload.objects.get()
    assert upload.embargo_until == datetime(2999, 1, 1, tzinfo=UTC)
    assert (upload.edition, upload.embargoed) == ("", True)
    assert Run.objects.get(upload=upload).embargoed
    with pytest.raises(CommandError, match="not an ISO date-time"):
        call_command("ingest", str(DEMO_SUBMISSION), "--embargo-until", "next tuesday")


def test_the_operators_ingest_of_the_published_files_of_an_embargoed_run_takes_it_over_as_public(
    alice, tmp_path, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    """The operator's files are the public archive: a run an account uploaded first to an edition not yet frozen,
    taken over by the operator's ingest of those files, is the operator's and public; it is not left private
    with no upload whose release would ever free it."""
    owner = client_with_token(alice)
    with django_capture_on_commit_callbacks(execute=True):
        response = owner.post(
            "/api/v1/uploads/",
            {"file": named_file(archive({PUBLISHED_AT: DEMO_SUBMISSION}), "first.tgz"), "edition": EDITION},
            format="multipart",
        )
    run = Run.objects.get(pk=owner.get(response.json()["status_url"]).json()["runs"][0]["id"])
    assert run.embargoed
    shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)

    summary = ingest_path(tmp_path / "archive")

    assert summary.taken_over, summary
    run.refresh_from_db()
    assert (run.upload_id, run.embargoed) == (None, False)
    assert APIClient().get(f"/runs/{run.pk}/").status_code == 200
