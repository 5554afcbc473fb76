"""receive_upload: content-addressed storage, dedupe on sha256, format checks, nothing left on refusal."""

import hashlib
import tempfile

import pytest
from django.db import IntegrityError

from apps.ingest import uploads
from apps.ingest.models import IngestJob
from apps.ingest.uploads import UploadRefused, receive_upload, refuse_oversized_request
from apps.results.models import Run, ScalingSeries, Upload
from apps.results.services.ownership import delete_upload
from tests.api.uploading import DEMO_SUBMISSION, files_under, named_file, stored_files, tar_gz_of
from tests.factories import RunFactory, UserFactory

pytestmark = pytest.mark.django_db

MDTEST_LOG = b"-- started at 05/03/2019 10:00:00 --\nmdtest-1.9.3 was launched with 16 total task(s) on 1 node(s)\n"


@pytest.fixture
def storage(settings, tmp_path, monkeypatch):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    return tmp_path


def receive(data: bytes, name: str = "run.tgz", kind: str = "io500", uploader=None, metadata=None):
    return receive_upload(named_file(data, name), name=name, kind=kind, uploader=uploader, metadata=metadata or {})


def test_an_upload_is_stored_under_its_sha256_and_its_scratch_is_removed(storage, django_capture_on_commit_callbacks):
    data = tar_gz_of(DEMO_SUBMISSION)

    with django_capture_on_commit_callbacks() as enqueued:
        received = receive(data, metadata={"institution": "Intel"})

    sha256 = hashlib.sha256(data).hexdigest()
    assert received.created
    assert received.upload.sha256 == sha256
    assert received.upload.file.name.endswith(f"/{sha256}.tgz")
    assert received.upload.declared_metadata == {"institution": "Intel"}
    assert received.job.status == "pending"
    assert len(enqueued) == 1
    assert files_under(storage / "tmp") == []
    assert stored_files() == [received.upload.file.name]


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("../../etc/run.tgz", "run.tgz"),
        ("C:\\Users\\me\\run.zip", "run.zip"),
        ("..", "upload"),
        ("", "upload"),
        ("bad\x00name\n.tgz", "badname.tgz"),
    ],
)
def test_the_name_kept_is_the_base_name_the_client_sent(sent, kept, storage):
    assert receive(tar_gz_of(DEMO_SUBMISSION), name=sent).upload.original_name == kept


def test_the_same_bytes_return_the_existing_upload_and_queue_nothing(storage, django_capture_on_commit_callbacks):
    data = tar_gz_of(DEMO_SUBMISSION)
    account = UserFactory()
    first = receive(data, name="first.tgz", uploader=account)

    with django_capture_on_commit_callbacks() as enqueued:
        again = receive(data, name="again.tgz", uploader=account)

    assert not again.created
    assert (again.upload, again.job) == (first.upload, first.job)
    assert enqueued == []
    assert Upload.objects.count() == IngestJob.objects.count() == 1


@pytest.mark.parametrize("second", ["another account", "another kind"])
def test_the_same_bytes_from_another_account_or_of_another_kind_are_a_new_upload(storage, second):
    data = tar_gz_of(DEMO_SUBMISSION)
    account = UserFactory()
    first = receive(data, name="first.tgz", kind="io500", uploader=account)

    again = (
        receive(data, name="again.tgz", kind="io500", uploader=UserFactory())
        if second == "another account"
        else receive(data, name="again.tgz", kind="stack", uploader=account)
    )

    assert again.created
    assert again.upload != first.upload
    assert again.job != first.job
    assert again.upload.file.name != first.upload.file.name
    assert stored_files() == sorted([first.upload.file.name, again.upload.file.name])


def test_a_known_upload_without_a_job_gets_one(storage, django_capture_on_commit_callbacks):
    data = tar_gz_of(DEMO_SUBMISSION)
    first = receive(data)
    first.job.delete()

    with django_capture_on_commit_callbacks() as enqueued:
        again = receive(data)

    assert not again.created
    assert again.job.upload == first.upload
    assert len(enqueued) == 1


def test_a_concurrent_upload_of_the_same_bytes_keeps_one_file(storage, monkeypatch):
    data = tar_gz_of(DEMO_SUBMISSION)
    first = receive(data)
    misses = iter([None])
    real_lookup = uploads.existing_upload
    monkeypatch.setattr(uploads, "existing_upload", lambda *key: next(misses, None) or real_lookup(*key))

    again = receive(data)

    assert again.upload == first.upload
    assert not again.created
    assert stored_files() == [first.upload.file.name]


def test_a_database_failure_while_storing_is_not_mistaken_for_a_duplicate(storage, monkeypatch):
    def broken_job(upload):
        raise IntegrityError("job table constraint")

    monkeypatch.setattr(uploads, "start_job", broken_job)

    with pytest.raises(IntegrityError):
        receive(tar_gz_of(DEMO_SUBMISSION))
    assert stored_files() == []


def test_a_bare_mdtest_log_is_accepted(storage):
    received = receive(MDTEST_LOG, name="mdtest-16mdt.out", kind="mdtest")

    assert received.upload.kind == "mdtest"
    assert received.upload.file.name.endswith(".out")


def test_an_archive_of_mdtest_logs_is_checked_like_any_archive(storage, tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "dne2_1_mds.out").write_bytes(MDTEST_LOG)

    assert receive(tar_gz_of(tmp_path / "logs"), name="logs.tgz", kind="mdtest").created


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\x7fELF\x02\x01\x01\x00" + bytes(100), "mdtest.out: not an archive and not a text log (binary data)"),
        (b"hello, world\n" * 10, "mdtest.out: not an archive and not a log of mdtest (no mdtest output in it)"),
    ],
)
def test_an_mdtest_upload_that_is_no_log_is_refused(data, problem, storage):
    with pytest.raises(UploadRefused) as refusal:
        receive(data, name="mdtest.out", kind="mdtest")

    assert str(refusal.value) == problem
    assert Upload.objects.count() == 0
    assert files_under(storage) == []


def test_an_mdtest_marker_split_across_chunks_is_found(storage, monkeypatch):
    monkeypatch.setattr(uploads, "CHUNK_BYTES", 4)

    assert receive(b"xx mdtest-1.9.3 was launched\n", name="m.out", kind="mdtest").created


def test_the_size_cap_is_enforced_while_copying(storage, settings):
    settings.IOBOARD_UPLOAD_MAX_BYTES = 100

    with pytest.raises(UploadRefused, match=r"run\.tgz: file is over the upload size cap of 100 bytes"):
        receive(tar_gz_of(DEMO_SUBMISSION))
    assert files_under(storage) == []


def test_a_request_body_is_judged_with_room_for_the_form_fields(settings):
    settings.IOBOARD_UPLOAD_MAX_BYTES = 1000

    refuse_oversized_request(1000 + uploads.MULTIPART_OVERHEAD_BYTES)
    with pytest.raises(UploadRefused, match="request body of 66537 bytes is over the upload size cap of 1000"):
        refuse_oversized_request(1001 + uploads.MULTIPART_OVERHEAD_BYTES)


def test_deleting_an_upload_removes_its_runs_series_jobs_and_file(storage, django_capture_on_commit_callbacks):
    received = receive(tar_gz_of(DEMO_SUBMISSION))
    run = RunFactory(upload=received.upload)
    untouched = RunFactory()
    ScalingSeries.objects.create(name="dne2", upload=received.upload)

    with django_capture_on_commit_callbacks(execute=True):
        delete_upload(received.upload)

    assert list(Run.objects.all()) == [untouched]
    assert not Run.objects.filter(pk=run.pk).exists()
    assert ScalingSeries.objects.count() == Upload.objects.count() == IngestJob.objects.count() == 0
    assert stored_files() == []
