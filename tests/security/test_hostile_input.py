"""Hostile text in every field of every write endpoint: a 400 naming the field, never a 500, nothing stored.

The operations and their fields are read from the published OpenAPI schema (drf-spectacular), so an
endpoint or a field added later is swept too. Each text field receives a NUL character, a lone
surrogate (only JSON can carry one: `"\\ud800"`) and a value one character past its documented
maxLength; every text field of a request must document one. Sent with a staff token, so that
permissions never stop the request before its body is read.
"""

import json
import re
from datetime import date

import pytest
from rest_framework.test import APIClient

from apps.ingest.models import IngestJob
from apps.results.models import RulesEdition, Upload
from tests.api.uploading import DEMO_SUBMISSION, client_with_token, files_under, named_file, tar_gz_of
from tests.factories import ChangeFactory, RunFactory, UserFactory

pytestmark = pytest.mark.django_db

WRITE_METHODS = ("post", "put", "patch")
NUL = "before\x00after"
LONE_SURROGATE = "before\ud800after"


def schema() -> dict:
    response = APIClient().get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def resolve(document: dict, node: dict) -> dict:
    while "$ref" in node:
        node = document["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def write_operations() -> list[tuple[str, str, str, str, dict]]:
    """(method, path, content type, field, field schema) for every text field of every write operation."""
    document = schema()
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if method not in WRITE_METHODS or "requestBody" not in operation:
                continue
            content = operation["requestBody"]["content"]
            content_type = "application/json" if "application/json" in content else next(iter(content))
            body = resolve(document, content[content_type]["schema"])
            for field, spec in body.get("properties", {}).items():
                spec = resolve(document, spec)
                item = resolve(document, spec.get("items", {})) if spec.get("type") == "array" else spec
                if item.get("type") == "string" and item.get("format") not in ("binary", "date", "date-time"):
                    found.append((method, path, content_type, field, {**spec, "items": item}))
    return found


@pytest.fixture
def world(settings, tmp_path, celery_eager):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    run = RunFactory()
    change = ChangeFactory(run_after=run)
    rules = RulesEdition.objects.create(name="sc24", since=date(2024, 11, 1))
    return {
        "client": client_with_token(UserFactory(username="hostile-staff", is_staff=True)),
        "paths": {"/api/v1/runs/": run.pk, "/api/v1/changes/": change.pk, "/api/v1/rules-editions/": rules.name},
        "media": tmp_path / "media",
    }


def concrete(path: str, world) -> str:
    """The path with its parameter replaced by an object of the fixture (/runs/{id}/checks/ -> /runs/1/checks/)."""
    for prefix, value in world["paths"].items():
        if path.startswith(prefix):
            return re.sub(r"\{[^}]+\}", str(value), path, count=1)
    return path


def send(world, method: str, path: str, content_type: str, field: str, value):
    client = world["client"]
    client.raise_request_exception = False
    url = concrete(path, world)
    if content_type == "multipart/form-data":
        body = {"file": named_file(tar_gz_of(DEMO_SUBMISSION), "demo.tgz"), field: value}
        return getattr(client, method)(url, body, format="multipart")
    # json.dumps escapes a lone surrogate (ensure_ascii), as a hostile client would send it.
    return getattr(client, method)(url, json.dumps({field: value}), content_type="application/json")


def names_the_field(response, field: str) -> bool:
    errors = response.json()
    return isinstance(errors, dict) and field in errors


def hostile_values(content_type: str, spec: dict) -> dict:
    is_list = spec.get("type") == "array"
    item = spec.get("items", spec) if is_list else spec
    values = {"NUL": NUL}
    if content_type == "application/json":
        values["lone surrogate"] = LONE_SURROGATE
    if "enum" not in item:
        values["over-long"] = "x" * (item["maxLength"] + 1)
    return {name: [value] if is_list else value for name, value in values.items()}


def test_the_sweep_covers_every_write_endpoint():
    swept = {(method, path) for method, path, *_ in write_operations()}
    assert ("post", "/api/v1/editions/freeze/") in swept
    assert ("post", "/api/v1/uploads/") in swept
    assert ("post", "/api/v1/custom-lists/") in swept
    assert len(swept) >= 8


@pytest.mark.parametrize(
    ("method", "path", "content_type", "field", "spec"),
    write_operations(),
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_hostile_text_in_any_field_is_a_400_naming_the_field(world, method, path, content_type, field, spec):
    item = spec.get("items", spec) if spec.get("type") == "array" else spec
    assert "enum" in item or "maxLength" in item, f"{method} {path} {field}: a text field without a maxLength"
    for name, value in hostile_values(content_type, spec).items():
        response = send(world, method, path, content_type, field, value)
        assert response.status_code == 400, f"{name}: {response.status_code} {response.content[:300]!r}"
        assert names_the_field(response, field), f"{name}: {response.content[:300]!r}"
    assert Upload.objects.count() == IngestJob.objects.count() == 0
    assert files_under(world["media"]) == [] if world["media"].exists() else True


def test_a_freeze_title_of_100000_characters_is_refused_naming_the_title(world):
    response = send(world, "post", "/api/v1/editions/freeze/", "application/json", "title", "t" * 100_000)
    assert response.status_code == 400
    assert "title" in response.json()


@pytest.mark.parametrize(
    "document",
    [
        '{"questionnaire": {"notes": "a\\u0000b"}}',
        '{"questionnaire": {"notes": "a\\ud800b"}}',
        '{"a\\u0000": 1}',
        "[" * 100_000 + "]" * 100_000,
        "[" * 40 + "]" * 40,
    ],
    ids=["NUL in a value", "lone surrogate", "NUL in a key", "100000 levels", "40 levels"],
)
def test_a_hostile_reproducibility_document_is_refused_and_leaves_no_file(world, document):
    for attempt in range(2):  # a retry must not leave a second copy either
        response = world["client"].post(
            "/api/v1/uploads/",
            {
                "file": named_file(tar_gz_of(DEMO_SUBMISSION), "demo.tgz"),
                "reproducibility": document,
            },
            format="multipart",
        )
        assert response.status_code == 400, (attempt, response.content[:300])
        assert list(response.json()) == ["reproducibility"]
    assert Upload.objects.count() == IngestJob.objects.count() == 0
    assert not world["media"].exists() or files_under(world["media"]) == []


@pytest.mark.parametrize(
    "body", ["[" * 100_000 + "]" * 100_000, '{"a":' * 50_000 + "1" + "}" * 50_000, "[" * 40 + "]" * 40]
)
def test_deeply_nested_json_bodies_are_a_400(world, body):
    client = world["client"]
    for path in ("/api/v1/custom-lists/", "/api/v1/editions/freeze/", "/api/v1/rules-editions/"):
        response = client.post(path, body, content_type="application/json")
        assert response.status_code == 400, (path, response.content[:300])
        assert "nested deeper than" in response.content.decode()


def test_a_nul_in_any_query_parameter_is_a_400_naming_it(world):
    document = schema()
    checked = 0
    for path, operations in document["paths"].items():
        if "{" in path or "get" not in operations:
            continue
        for parameter in operations["get"].get("parameters", []):
            if parameter["in"] != "query" or parameter["name"] == "format":
                continue
            response = world["client"].get(path, {parameter["name"]: NUL})
            assert response.status_code == 400, (path, parameter["name"], response.content[:300])
            assert parameter["name"] in response.json(), (path, response.content[:300])
            checked += 1
    assert checked > 20
