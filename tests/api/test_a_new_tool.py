"""A new benchmark tool is one folder plus its registry entries: it is then offered everywhere by kind.

The tool here is a stub for a one-line format (``pingbench 1.2: 812.5 MB/s write``), defined in this
module as its folder would define it: a reader, a ``TOOL`` entry and, as it is an upload kind, a pipeline
(``PIPELINE``, which only remembers what it read). The fixture adds the lines a tool folder gets in the two
registries (``TOOLS``, and ``PIPELINES`` for its pipeline); nothing else is told about it.
"""

import re

import pytest
from drf_spectacular.plumbing import _load_enum_name_overrides

from apps.ingest.core.pipeline import Pipeline
from apps.ingest.management.commands.ingest import Command
from apps.ingest.parsers.errors import ParseError
from apps.ingest.pipelines import PIPELINES
from apps.ingest.tools import TOOLS
from apps.ingest.tools.base import Figure, Ingest, Option, Tool, ToolReading, UploadField
from tests.api.uploading import named_file

pytestmark = pytest.mark.django_db

LINE = b"pingbench 1.2: 812.5 MB/s write\n"
# What the stub pipeline read, one (figure, target) per ingest.
INGESTED: list[tuple[float, str]] = []


def read_pingbench(data: bytes, path: str) -> ToolReading:
    match = re.fullmatch(rb"pingbench (\S+): (\d+\.\d+) MB/s write\n?", data)
    if match is None:
        raise ParseError(path, 1, "not a pingbench line")
    reading = ToolReading(tool="pingbench", path=path, version=match[1].decode())
    reading.figures["write"] = Figure("write", float(match[2]), f"{match[2].decode()} MB/s", 1)
    return reading


def ingest_pingbench_upload(upload) -> list:
    with upload.file.open("rb") as handle:
        reading = read_pingbench(handle.read(), upload.original_name)
    INGESTED.append((reading.figure("write").value, upload.declared_metadata.get("target", "")))
    return []


def ingest_pingbench_paths(paths, options, progress_for=None):
    raise NotImplementedError("the stub is only uploaded")


PIPELINE = Pipeline(kind="pingbench", ingest_upload=ingest_pingbench_upload, ingest_paths=ingest_pingbench_paths)

PINGBENCH = Tool(
    name="pingbench",
    reads="pingbench: the one line it prints, with the write bandwidth in MB/s",
    operations=("write",),
    read=read_pingbench,
    ingest=Ingest(
        label="pingbench",
        stores="nothing yet (a stub that remembers the figure)",
        log_marker=b"pingbench",
        options=(Option("--target", "pingbench: the host the line was measured against"),),
        upload_fields=(UploadField("target", "pingbench: the host the line was measured against"),),
    ),
)


@pytest.fixture
def pingbench_registered(monkeypatch):
    monkeypatch.setitem(TOOLS, "pingbench", PINGBENCH)
    monkeypatch.setitem(PIPELINES, "pingbench", PIPELINE)
    INGESTED.clear()
    # drf-spectacular keeps the enum names it matched; the registry changed, so match again (and after).
    _load_enum_name_overrides.cache_clear()
    yield
    _load_enum_name_overrides.cache_clear()


def test_the_ingest_command_offers_the_new_kind_and_its_option(pingbench_registered):
    usage = Command().create_parser("manage.py", "ingest").format_help()

    assert "--kind {io500,mdtest,ior,stack,pingbench}" in usage
    assert "--kind pingbench: nothing yet (a stub that remembers the figure)" in " ".join(usage.split())
    assert re.search(r"--target TARGET\s+pingbench: the host the line was measured against", usage)


def test_the_api_schema_lists_the_new_kind_and_its_upload_field(pingbench_registered, client):
    schema = client.get("/api/v1/schema/?format=json").json()

    form = schema["components"]["schemas"]["UploadFormRequest"]["properties"]
    assert schema["components"]["schemas"]["UploadKindEnum"]["enum"] == ["io500", "mdtest", "ior", "stack", "pingbench"]
    assert form["kind"]["allOf"][0]["$ref"] == "#/components/schemas/UploadKindEnum"
    assert form["target"]["description"] == "pingbench: the host the line was measured against"


def test_without_the_registry_line_the_schema_does_not_know_it(client):
    schema = client.get("/api/v1/schema/?format=json").json()

    assert "pingbench" not in schema["components"]["schemas"]["UploadKindEnum"]["enum"]
    assert "target" not in schema["components"]["schemas"]["UploadFormRequest"]["properties"]


def test_an_upload_of_the_one_line_format_goes_through(
    pingbench_registered, alice_client, private_storage, celery_eager, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = alice_client.post(
            "/api/v1/uploads/",
            {"file": named_file(LINE, "ping.log"), "kind": "pingbench", "target": "oss7"},
            format="multipart",
        )

    assert response.status_code == 202, response.json()
    status = alice_client.get(response.json()["status_url"]).json()
    assert (status["kind"], status["status"], status["error"]) == ("pingbench", "done", "")
    assert INGESTED == [(812.5, "oss7")]


def test_a_bare_file_without_the_tools_marker_is_refused(pingbench_registered, alice_client, private_storage):
    response = alice_client.post(
        "/api/v1/uploads/", {"file": named_file(b"812.5 MB/s\n", "ping.log"), "kind": "pingbench"}, format="multipart"
    )

    assert response.status_code == 400
    assert response.json()["file"] == [
        "ping.log: not an archive and not a log of pingbench (no pingbench output in it)"
    ]


def test_the_uploads_list_filters_by_the_new_kind(pingbench_registered, alice_client, client):
    schema = client.get("/api/v1/schema/?format=json").json()

    parameters = schema["paths"]["/api/v1/uploads/"]["get"]["parameters"]
    assert "pingbench" in next(parameter for parameter in parameters if parameter["name"] == "kind")["schema"]["enum"]
    assert alice_client.get("/api/v1/uploads/?kind=pingbench").status_code == 200
