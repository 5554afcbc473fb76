"""manage.py restore_check: prove a restore whole (docs/deployment.md, "Backup and restore").

    manage.py restore_check snapshot answers.json     # on the site (or its backup) before: every answer's digest
    manage.py restore_check compare answers.json      # on the restored database: exit 1 naming each difference

Both ask the site's own views in this process (Django's test client, no server needed) for every page type and
API answer: the home page, every list and its exports, editions, every system's pages, runs (the first and last
hundred), compare, the feeds, and every collection the API's root names with the detail of its first item. An
answer is kept as its status and the sha256 of its body with the per-request parts cut out (CSRF tokens), so
that a restore counts as the same when it serves the same bytes. `compare` also downloads every run's raw file
(`runs/<id>/upload/`) once per upload and checks it against the upload's sha256: the storage came back too.
"""

import hashlib
import json
import re
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Min
from django.test import Client

from apps.results.models import Edition, Run, StorageSystem, Upload
from apps.results.models.list_kinds import LIST_KINDS

#: Runs asked for at each end of the run table: a restore loses or garbles whole tables, not a run in the middle.
RUNS_AT_EACH_END = 100
PER_REQUEST = re.compile(rb'(csrfmiddlewaretoken" value="|csrf-token" content="|csrftoken=)[^";]+')


class Command(BaseCommand):
    help = "Snapshot every page type's and API answer's digest, or compare a restored site with a snapshot."

    def add_arguments(self, parser):
        parser.add_argument("action", choices=["snapshot", "compare"])
        parser.add_argument("file", type=Path)

    def handle(self, *args, action, file, **options):
        client = Client(raise_request_exception=False, HTTP_HOST=site_host())
        answers = {url: answer(client, url) for url in urls(client)}
        if action == "snapshot":
            file.write_text(json.dumps(answers, indent=1, sort_keys=True))
            self.stdout.write(f"{len(answers)} answers written to {file}")
            return
        before = json.loads(file.read_text())
        problems = [
            f"{url}: {before.get(url, 'not asked before')} before, {answers.get(url, 'not asked now')} now"
            for url in sorted(set(before) | set(answers))
            if before.get(url) != answers.get(url)
        ]
        problems += raw_file_problems(client)
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} differences after the restore")
        self.stdout.write(f"{len(answers)} answers as before; every run's raw file downloads")


def site_host() -> str:
    return next((host.lstrip(".") for host in settings.ALLOWED_HOSTS if "*" not in host), "testserver")


def answer(client: Client, url: str) -> str:
    response = client.get(url, secure=True, HTTP_ACCEPT="application/json" if url.startswith("/api/") else "text/html")
    body = b"".join(response.streaming_content) if response.streaming else response.content
    digest = hashlib.sha256(PER_REQUEST.sub(rb"\1", body)).hexdigest()
    return f"{response.status_code} {digest}"


def urls(client: Client) -> list[str]:
    """Every page type, with the objects it is about, and every API collection with its first item."""
    run_ids = list(Run.objects.order_by("pk").values_list("pk", flat=True)[:RUNS_AT_EACH_END])
    run_ids += list(Run.objects.order_by("-pk").values_list("pk", flat=True)[:RUNS_AT_EACH_END])
    pages = ["/", "/systems/", "/editions/", "/changes/feed/", f"/compare/?runs={','.join(map(str, run_ids[:3]))}"]
    for kind in LIST_KINDS:
        pages += [f"/lists/{kind}/", f"/lists/{kind}/export.csv", f"/lists/{kind}/export.json"]
    for name in Edition.objects.order_by("pk").values_list("name", flat=True).distinct():
        pages += [f"/editions/{name}/", f"/editions/{name}/awards/"]
    for pk in StorageSystem.objects.order_by("pk").values_list("pk", flat=True):
        pages += [f"/systems/{pk}/", f"/systems/{pk}/history/", f"/api/v1/systems/{pk}/"]
    for pk in sorted(set(run_ids)):
        pages += [f"/runs/{pk}/", f"/api/v1/runs/{pk}/"]
    return pages + api_collections(client)


def api_collections(client: Client) -> list[str]:
    """The API root's collections (as paths), each with the detail of its first item when it has one."""
    root = client.get("/api/v1/", secure=True, HTTP_ACCEPT="application/json")
    if root.status_code != 200:
        return ["/api/v1/"]
    found = ["/api/v1/"]
    for url in root.json().values():
        path = re.sub(r"^https?://[^/]+", "", url)
        found.append(path)
        listed = client.get(path, secure=True, HTTP_ACCEPT="application/json")
        items = listed.json().get("results") if listed.status_code == 200 else None
        if items and isinstance(items[0], dict) and isinstance(items[0].get("url"), str):
            found.append(re.sub(r"^https?://[^/]+", "", items[0]["url"]))
    return found


def raw_file_problems(client: Client) -> list[str]:
    """Each upload that runs came from, downloaded through one of its runs, must hash to its sha256."""
    problems = []
    first_runs = Run.objects.filter(upload__isnull=False).values("upload").annotate(run=Min("pk"))
    sha256 = dict(Upload.objects.values_list("pk", "sha256"))
    for row in first_runs:
        response = client.get(f"/runs/{row['run']}/upload/", secure=True)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        if response.status_code != 200 or hashlib.sha256(body).hexdigest() != sha256[row["upload"]]:
            problems.append(f"/runs/{row['run']}/upload/: {response.status_code}, not upload {row['upload']}'s bytes")
    return problems
