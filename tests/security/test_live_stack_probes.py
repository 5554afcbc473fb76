"""The attacker's probes, run on a live stack: gunicorn (DEBUG off, behind one trusted proxy, the deployment's rate
limits and page cache) and a real prefork Celery worker, on the test's PostgreSQL and Redis. An ordinary account
(mallory, with a token) and anonymous clients send them over HTTP, as an attacker would.

The probes are the first pass's (issue 22: what held then and what did not; `FIRST_PASS`) and the second pass's
(issue 40, items 1-9 and its acceptance points; `SECOND_PASS`). Each is a function whose docstring says the harm it
tries; it holds when no harm is done. The one test runs them all on one stack (starting it costs more than most
probes) and reports every outcome, so a probe that finds harm does not hide the others; docs/security.md is its table
as run. Probes that kill or starve a process (a worker killed mid-upload, Redis refused or silent, a lagging replica)
run in tests/faults and tests/config, on processes of their own.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import sys
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from django.contrib.auth.hashers import PBKDF2PasswordHasher

from apps.ingest.tools.io500.pipeline import ingest_path
from apps.ingest.tools.ior.pipeline import ingest_ior_paths
from apps.ingest.tools.mdtest.pipeline import ingest_mdtest_paths
from apps.results.models import (
    Anomaly,
    ApiToken,
    ReviewStatus,
    Run,
    ScalingPoint,
    ScalingSeries,
    StorageSystem,
    Study,
    Upload,
)
from apps.results.services.review import review_run
from rig import client, processes, servers
from tests.api.hostile_archives import HOSTILE_UPLOADS
from tests.api.test_ownership_attacks import PLANTED, PUBLISHED_AT, RENAMING_SIDECAR, archive
from tests.api.uploading import DEMO, DEMO_SUBMISSION, tar_gz_of
from tests.factories import RunFactory, StorageSystemFactory, UserFactory
from tests.faults.conftest import needs_real_services, served_env
from tests.security.test_bounded_work import ALIAS_BOMB, IOR_HEAD, MDTEST_HEAD, tar_bomb, zip_bomb

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

DATA = Path(__file__).resolve().parents[1] / "data"
SLICE = DATA / "mdtest" / "dne-campaign-slice"
OTHER_SUBMISSION = DEMO / "TACC" / "Frontera" / "DAOS" / "2020" / "submission-13"
#: What the live stack is told: a proxy in front (its address for the client is the last X-Forwarded-For entry),
#: the deployment's rate limits scaled down so a probe meets them in a few dozen requests, small quotas and budgets.
STACK_SETTINGS = {
    "IOBOARD_TRUSTED_PROXIES": "1",
    "THROTTLE_ANON": "30/min",
    "THROTTLE_PAGES": "30/min",
    "THROTTLE_EXPORTS": "10/min",
    "THROTTLE_CUSTOM_LISTS": "30/hour",
    "IOBOARD_UPLOAD_QUOTA_UPLOADS_PER_DAY": "40",
    "IOBOARD_SCALING_MAX_POINTS": "100",
    "IOBOARD_PAGE_CACHE_SECONDS": "600",
}
#: An anonymous page costs at most this many seconds of the server's time and this many bytes, whatever was uploaded.
PAGE_SECONDS = 3.0
PAGE_BYTES = 3_000_000
#: Unique query strings the cache probe sends (the issue's 10,000 would take minutes here): each would have been a
#: new page-cache entry when the key was the whole query string, so a few hundred show the same as ten thousand.
FLOOD = 100
#: The runs of one system: one more than a page of its runs (SYSTEM_RUNS_PER_PAGE) and of the API's (PAGE_SIZE, 50).
CROWDED_RUNS = 51


@dataclass
class Stack:
    base: str
    tokens: dict[str, str]
    redis: redis.Redis
    cache_prefix: str
    worker: processes.Service
    operator_run: Run
    operator_series: ScalingSeries
    operator_study: Study
    staff: object
    victim: str
    run_octet: int = field(default_factory=lambda: random.randrange(1, 250))
    ips: int = 0

    def client_ip(self) -> str:
        """A client address of its own (as the trusted proxy would add it): no probe spends another's rate limit."""
        self.ips += 1
        return f"10.{self.run_octet}.{self.ips // 250 % 250}.{self.ips % 250 + 1}"

    def fixed_ip(self, last: int) -> str:
        """The one address of a probe that spends its own rate limit (another run's counters are another block)."""
        return f"192.{self.run_octet}.2.{last}"

    def request(
        self,
        method: str,
        path: str,
        *,
        who: str | None = None,
        ip: str | None = None,
        headers: dict | None = None,
        data: bytes | None = None,
        timeout: float = 30,
    ) -> client.Answer:
        sent = {"X-Forwarded-For": ip or self.client_ip(), "Accept": "application/json" if "/api/" in path else ""}
        if who:
            sent["Authorization"] = f"Token {self.tokens[who]}"
        sent.update(headers or {})
        return client.http_answer(
            method, self.base + path, headers={k: v for k, v in sent.items() if v}, data=data, timeout=timeout
        )

    def get(self, path: str, **options) -> client.Answer:
        return self.request("GET", path, **options)

    def json(self, path: str, **options):
        answer = self.get(path, **options)
        assert answer.status == 200, (path, answer.status, answer.body[:300])
        return json.loads(answer.body)

    def send(self, method: str, path: str, document, *, who: str | None = None, **options) -> client.Answer:
        return self.request(
            method,
            path,
            who=who,
            data=json.dumps(document).encode(),
            headers={"Content-Type": "application/json"},
            **options,
        )

    def post_upload(self, who: str, data: bytes, name: str, **fields) -> client.Answer:
        body, content_type = client.multipart(fields, "file", name, data)
        return self.request("POST", "/api/v1/uploads/", who=who, data=body, headers={"Content-Type": content_type})

    def upload(self, who: str, data: bytes, name: str, *, timeout: float = 30, **fields) -> dict:
        """Upload and wait for the worker: the upload's final status (done or failed) as its uploader reads it."""
        answer = self.post_upload(who, data, name, **fields)
        assert answer.status == 202, (name, answer.status, answer.body[:500])
        upload_id = json.loads(answer.body)["id"]

        def finished():
            status = self.json(f"/api/v1/uploads/{upload_id}/", who=who)
            return status if status["status"] in ("done", "failed") else None

        return processes.wait_until(finished, timeout=timeout, what=f"the worker to finish {name}")

    def keys(self, pattern: str) -> int:
        return sum(1 for _ in self.redis.scan_iter(match=f"*{self.cache_prefix}:{pattern}", count=1000))


# --- the probes ----------------------------------------------------------------------------------


@dataclass
class Probe:
    number: str
    title: str
    check: Callable[[Stack], None]


ACCOUNTS = ("mallory", "alice", "hoarder")
PASSWORD = "pw"  # tests.factories.UserFactory's
FIRST_PASS: list[Probe] = []
SECOND_PASS: list[Probe] = []


def probe(number: str, title: str):
    def register(check):
        (FIRST_PASS if number.startswith("22.") else SECOND_PASS).append(Probe(number, title, check))
        return check

    return register


def failed_with(status: dict, *words: str) -> None:
    assert status["status"] == "failed", status
    for word in words:
        assert word in status["error"], (word, status["error"][:500])


# issue 22: what held then


@probe("22.1", "staff-only actions refused to anonymous and to an ordinary account")
def staff_only_actions(stack: Stack) -> None:
    run = stack.operator_run.pk
    for who in (None, "mallory"):
        expected = {401, 403, 405} if who is None else {403, 404, 405}
        for method, path, document in (
            ("POST", f"/api/v1/runs/{run}/review/", {"status": "rejected", "reason": "x"}),
            ("POST", "/api/v1/editions/freeze/", {"name": "sc99", "title": "x"}),
            ("PATCH", f"/api/v1/systems/{stack.operator_run.system_id}/", {"name": "Stolen"}),
            ("DELETE", f"/api/v1/runs/{run}/", None),
        ):
            answer = stack.send(method, path, document, who=who)
            assert answer.status in expected, (who, method, path, answer.status, answer.body[:200])
        admin = stack.request("POST", f"/admin/results/run/{run}/change/", who=who, data=b"score_total=1")
        assert admin.status in (302, 403), admin.status
    assert Run.objects.get(pk=run).review_status == ReviewStatus.ACCEPTED


#: The hostile archives of tests/api/hostile_archives.py by what the first pass tried: each family one probe.
ARCHIVE_FAMILIES = {
    "path traversal (..)": ("'..' component",),
    "absolute paths": ("absolute path",),
    "symbolic links": ("symbolic link",),
    "hard links": ("hard link",),
    "devices and FIFOs": ("device", "FIFO"),
    "unreadable, unknown or empty archives": ("unreadable", "unknown magic", "contains no files"),
}


def archive_family_probe(problems: tuple[str, ...]) -> Callable[[Stack], None]:
    def check(stack: Stack) -> None:
        hostile = [h for h in HOSTILE_UPLOADS if not h.settings and any(p in h.problem for p in problems)]
        assert hostile
        before = Upload.objects.count()
        for each in hostile:
            started = time.perf_counter()
            answer = stack.post_upload("mallory", each.data, each.name, kind="io500")
            assert answer.status == 400, (each.name, answer.status, answer.body[:300])
            assert each.problem in answer.body.decode(), answer.body[:300]
            assert time.perf_counter() - started < 3
        assert Upload.objects.count() == before

    return check


for _index, (_family, _problems) in enumerate(ARCHIVE_FAMILIES.items()):
    probe(f"22.{2 + _index}", f"archives with {_family} refused by the request with a 400 naming the entry")(
        archive_family_probe(_problems)
    )
_NEXT = 2 + len(ARCHIVE_FAMILIES)


def numbered(title: str):
    """The next first-pass number."""
    global _NEXT
    number, _NEXT = _NEXT, _NEXT + 1
    return probe(f"22.{number}", title)


@numbered("a failed IO500 upload stores nothing")
def failed_io500_stores_nothing(stack: Stack) -> None:
    runs, systems = Run.objects.count(), StorageSystem.objects.count()
    broken = tar_gz_of(DEMO_SUBMISSION).replace(b"", b"", 0)
    status = stack.upload("mallory", archive({"x/result_summary.txt": b"[RESULT] garbage\n", "x/y": broken}), "bad.tgz")
    assert status["status"] == "failed", status
    assert (Run.objects.count(), StorageSystem.objects.count()) == (runs, systems)


HOSTILE_QUERIES = [
    "page=-1",
    "page=99999999999999999999",
    "sort=__class__",
    "sort=" + "x" * 5000,
    "page_size=100000000",
    "q=%00",
    "q=%ED%A0%80",
    "order=-score&order=drop",
    "threshold=nan",
    "threshold=1e309",
    "compare=1%20OR%201=1",
    "a[]=1&a[]=2",
    "format=csv%0d%0aX:1",
]
PAGES = ["/", "/lists/io500/", "/lists/historic/", "/systems/", "/compare/", "/scaling/", "/studies/", "/stacks/"]


@numbered("hostile query strings on every page and API list: never a 500")
def hostile_queries(stack: Stack) -> None:
    paths = [*PAGES, "/api/v1/runs/", "/api/v1/systems/", "/api/v1/lists/io500/", f"/runs/{stack.operator_run.pk}/"]
    paths += [f"/scaling/{stack.operator_series.pk}/", f"/systems/{stack.operator_run.system_id}/"]
    answers = {(path, query): stack.get(f"{path}?{query}").status for path in paths for query in HOSTILE_QUERIES}
    assert not {where: status for where, status in answers.items() if status >= 500 or status == 0}


@numbered("hostile custom-list equations: a 400 with the position")
def hostile_equations(stack: Stack) -> None:
    for equation in ("__import__(os)", "score.__class__.__mro__", "2 ^ 100000", "score + " * 100 + "score"):
        answer = stack.send("POST", "/api/v1/custom-lists/", {"name": "x", "equation": equation}, who="mallory")
        assert answer.status == 400, (equation, answer.status)
        assert "position" in json.loads(answer.body)


@numbered("no error page or API answer shows a traceback, a setting or a token")
def no_leaks(stack: Stack) -> None:
    answers = [
        stack.get("/runs/999999999/"),
        stack.get("/api/v1/runs/999999999/"),
        stack.get("/no/such/page/"),
        stack.send("POST", "/api/v1/custom-lists/", {"name": ["x"], "equation": {"a": 1}}, who="mallory"),
        stack.request("POST", "/api/v1/uploads/", who="mallory", data=b"{", headers={"Content-Type": "text/x"}),
    ]
    for answer in answers:
        text = answer.body.decode(errors="replace")
        assert 400 <= answer.status < 500, answer.status
        for leak in ("Traceback", "SECRET_KEY", "DATABASE", stack.tokens["mallory"], "/work/", "site-packages"):
            assert leak not in text, (leak, text[:300])


# issue 22: what did not hold then


@numbered("another account's upload of the operator's published files takes nothing over")
def published_files_take_nothing(stack: Stack) -> None:
    run = stack.operator_run
    status = stack.upload("mallory", archive(PLANTED), "planted.tgz")
    failed_with(status, "already published", f"run {run.pk} of the operator")
    assert not status["runs"]
    fresh = Run.objects.select_related("system").get(pk=run.pk)
    assert (fresh.upload_id, fresh.system.name, fresh.review_status) == (None, "Wolf", ReviewStatus.ACCEPTED)


@numbered("another account cannot delete a published run")
def published_run_not_deleted(stack: Stack) -> None:
    answer = stack.request("DELETE", f"/api/v1/runs/{stack.operator_run.pk}/", who="mallory")
    assert answer.status in (403, 404), answer.status
    assert Run.objects.filter(pk=stack.operator_run.pk).exists()


@numbered("a published run's upload link never serves an attacker's archive")
def upload_link_not_attackers(stack: Stack) -> None:
    answer = stack.get(f"/runs/{stack.operator_run.pk}/upload/")
    assert answer.status == 404, answer.status
    assert b"<script>" not in answer.body


@numbered("a DNE series is not claimed by uploading one log under its public name")
def series_not_claimed(stack: Stack) -> None:
    before = ScalingPoint.objects.filter(series=stack.operator_series).count()
    log = (SLICE / "dne2_8_mds" / "unique_10k_1" / "mdtest.out").read_bytes()
    status = stack.upload("mallory", log, "mdtest.out", kind="mdtest", series=stack.operator_series.name)
    failed_with(status, "belongs to the operator")
    assert ScalingPoint.objects.filter(series=stack.operator_series).count() == before
    assert ScalingSeries.objects.get(pk=stack.operator_series.pk).upload_id is None


@numbered("logs are not injected into another owner's IOR study")
def study_not_injected(stack: Stack) -> None:
    study = stack.operator_study
    log = (DATA / "ior" / "ior-3.3.0_study_three-repetitions_hints_ior-study-sample.txt").read_bytes()
    status = stack.upload("mallory", log, "planted.txt", kind="ior", study=study.name)
    failed_with(status, "belongs to the operator")
    assert not study.points.filter(upload__isnull=False).exists()


def hostile_job_probe(name: str, kind: str, build: Callable[[], bytes], message: str):
    def check(stack: Stack) -> None:
        runs = Run.objects.count()
        started = time.monotonic()
        status = stack.upload("mallory", build(), name, kind=kind)
        failed_with(status, message)
        assert time.monotonic() - started < 10
        assert Run.objects.count() == runs

    return check


for _name, _kind, _build, _message, _title in (
    (
        "alias-bomb.tgz",
        "io500",
        lambda: archive({"s": DEMO_SUBMISSION, "s/ioboard.yaml": ALIAS_BOMB}),
        "anchors and aliases",
        "a sidecar of nested YAML aliases fails within 10 s",
    ),
    (
        "spaces.log",
        "mdtest",
        lambda: MDTEST_HEAD + b"-- finished at " + b" " * 1_000_000 + b"x --\n",
        "over the limit of",
        "a million spaces in an mdtest line (the quadratic regex) fails within 10 s",
    ),
    (
        "spaces-ior.log",
        "ior",
        lambda: IOR_HEAD + b"Test 0 started: " + b" " * 1_000_000 + b"x\n",
        "over the limit of",
        "a million spaces in an IOR line fails within 10 s",
    ),
    (
        "rows.log",
        "mdtest",
        lambda: MDTEST_HEAD + b"SUMMARY rate: (of 1 iterations)\n" + b"   File creation : zz\n" * 300_000,
        "rows.log:",
        "300,000 bad mdtest rows fail within 10 s, problems capped",
    ),
):
    numbered(_title)(hostile_job_probe(_name, _kind, _build, _message))


@numbered("a zip bomb and a tar bomb (4 GiB declared) are each a 400 from the request within 3 s")
def bombs(stack: Stack) -> None:
    for name, build in (("bomb.zip", zip_bomb), ("bomb.tgz", tar_bomb)):
        started = time.perf_counter()
        answer = stack.post_upload("mallory", build(), name)
        assert answer.status == 400, (name, answer.status)
        assert time.perf_counter() - started < 3


@numbered("the worker stays under 600 MB through the hostile uploads")
def worker_memory(stack: Stack) -> None:
    peak = max(processes.peak_rss_mib(pid) for pid in [stack.worker.pid, *processes.children_of(stack.worker.pid)])
    assert peak < 600, f"{peak:.0f} MiB"


@numbered("a run naming the operator's system is not ranked, nor moves its best score")
def fabricated_run_not_ranked(stack: Stack) -> None:
    system = stack.operator_run.system
    before = stack.json(f"/api/v1/systems/{system.pk}/")
    sidecar = f"institution: {system.institution.name}\nsystem: {system.name}\nfilesystem: {system.filesystem}\n"
    status = stack.upload("mallory", archive({"f": OTHER_SUBMISSION, "f/ioboard.yaml": sidecar.encode()}), "f.tgz")
    assert status["status"] == "done", status
    [fabricated] = [run["id"] for run in status["runs"]]
    assert Run.objects.get(pk=fabricated).review_status != ReviewStatus.ACCEPTED
    ranked = stack.json("/api/v1/runs/?ranked=true&page_size=500")
    assert fabricated not in [row["id"] for row in ranked["results"]]
    assert stack.json(f"/api/v1/systems/{system.pk}/").get("best_score") == before.get("best_score")
    for kind in ("io500", "production", "full"):
        assert f"/runs/{fabricated}/" not in stack.get(f"/lists/{kind}/export.csv").body.decode()


@numbered("a custom list over the historic list ranks no unaccepted run")
def custom_list_ranks_accepted_only(stack: Stack) -> None:
    answer = stack.send(
        "POST", "/api/v1/custom-lists/", {"name": "all", "equation": "score", "base_list": "historic"}, who="mallory"
    )
    assert answer.status == 201, answer.body[:300]
    token = json.loads(answer.body)["token"]
    unaccepted = set(Run.objects.exclude(review_status=ReviewStatus.ACCEPTED).values_list("pk", flat=True))
    filled = processes.wait_until(
        lambda: (answer := stack.json(f"/api/v1/custom-lists/{token}/?page_size=500"))["complete"] and answer,
        timeout=20,
        what="the worker to fill the list",
    )
    # the historic list shows every run, unaccepted ones without a rank: ranked is what may not include them
    listed = {
        row["run"]["id"] if isinstance(row["run"], dict) else row["run"]
        for row in filled["rows"]
        if row["rank"] is not None
    }
    assert filled["rows"]
    assert unaccepted
    assert not unaccepted & listed


@numbered("NUL in an upload's reproducibility document: a 400 naming the field, no file left")
def nul_in_reproducibility(stack: Stack) -> None:
    before = Upload.objects.count()
    answer = stack.post_upload("mallory", tar_gz_of(OTHER_SUBMISSION), "nul.tgz", reproducibility='{"a": "x\\u0000y"}')
    assert answer.status == 400, (answer.status, answer.body[:300])
    assert "reproducibility" in answer.body.decode()
    assert Upload.objects.count() == before


@numbered("a failed mdtest upload keeps none of its good logs' points")
def mdtest_all_or_nothing(stack: Stack) -> None:
    good = (SLICE / "dne2_1_mds" / "unique_10k_1" / "mdtest.out").read_bytes()
    status = stack.upload(
        "mallory",
        archive({"good/mdtest.out": good, "bad/mdtest.out": MDTEST_HEAD + b"garbage\n"}),
        "half.tgz",
        kind="mdtest",
        series="mallorys-half",
    )
    assert status["status"] == "failed", status
    assert not ScalingSeries.objects.filter(name="mallorys-half").exists()


@numbered("custom lists created in a burst meet a 429 or the cap within 100")
def custom_list_burst(stack: Stack) -> None:
    answers = []
    for index in range(100):
        answer = stack.send("POST", "/api/v1/custom-lists/", {"name": f"b{index}", "equation": "score"}, who="mallory")
        answers.append(answer.status)
        if answer.status in (400, 429):
            break
    assert answers[-1] in (400, 429), answers


@numbered("an incomplete custom list is a 400, not a 500")
def incomplete_custom_list(stack: Stack) -> None:
    for document in (
        {},
        {"name": "x"},
        {"name": "x", "equation": ""},
        {"name": "x", "equation": "score", "base_list": 7},
    ):
        assert stack.send("POST", "/api/v1/custom-lists/", document, who="alice").status == 400


@numbered("a failed job's error shows no SQL, scratch path or exception text")
def job_error_clean(stack: Stack) -> None:
    status = stack.upload("mallory", MDTEST_HEAD + b"garbage\n", "clean.log", kind="mdtest", series="mallorys-clean")
    failed_with(status, "clean.log")
    for leak in ("SELECT", "INSERT", "/tmp", "Traceback", "psycopg", "Error("):
        assert leak not in status["error"], status["error"]


@numbered("deeply nested JSON is a 400; a lone surrogate in a choice field a 400 naming the field")
def deep_json_and_surrogates(stack: Stack) -> None:
    body = ("[" * 100_000 + "]" * 100_000).encode()
    answer = stack.request(
        "POST", "/api/v1/custom-lists/", who="alice", data=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status == 400, answer.status
    body = b'{"name": "x", "equation": "score", "base_list": "\\ud800"}'
    answer = stack.request(
        "POST", "/api/v1/custom-lists/", who="alice", data=body, headers={"Content-Type": "application/json"}
    )
    assert answer.status == 400, answer.status
    assert "base_list" in answer.body.decode()


@numbered("a 100,000-character name is a 400, not a 500")
def long_name(stack: Stack) -> None:
    answer = stack.send("POST", "/api/v1/custom-lists/", {"name": "x" * 100_000, "equation": "score"}, who="alice")
    assert answer.status == 400, answer.status


@numbered("another account's upload (its declarations) is not readable by its sequential id")
def upload_detail_private(stack: Stack) -> None:
    alices = Upload.objects.filter(uploader__username="alice").first()
    assert alices is not None
    assert stack.get(f"/api/v1/uploads/{alices.pk}/", who="mallory").status == 404
    assert stack.get(f"/api/v1/uploads/{alices.pk}/").status in (401, 403)


@numbered("/healthz names no dependency error text to anonymous callers")
def healthz_quiet(stack: Stack) -> None:
    answer = stack.get("/healthz")
    assert answer.status == 200
    assert not re.search(rb"Error|Exception|Traceback|redis://|postgres://", answer.body), answer.body[:300]


@numbered("the page cache keys on host: a page for one host is never served for another")
def cache_keyed_on_host(stack: Stack) -> None:
    path = "/api/v1/runs/?page_size=1"
    first = stack.get(path, headers={"Host": "127.0.0.1"}).body
    second = stack.get(path, headers={"Host": "localhost"}).body
    assert b"http://127.0.0.1" in first or b"next" not in first
    assert b"http://127.0.0.1" not in second


@numbered("pages carry a Content-Security-Policy and no insecure cookie when served over https")
def csp(stack: Stack) -> None:
    answer = stack.get("/lists/io500/")
    assert "default-src" in (answer.headers.get("Content-Security-Policy") or "")


@numbered("one upload creates at most IOBOARD_UPLOAD_MAX_RUNS runs")
def runs_per_upload(stack: Stack) -> None:
    entries = {f"site-{n}": DEMO_SUBMISSION for n in range(51)}
    status = stack.upload("mallory", archive(entries), "many.tgz")
    failed_with(status, "over the limit of 50 runs per upload")


# --- issue 40 ------------------------------------------------------------------------------------


@probe("40.1a", "a study of 1,000 configurations is refused at ingest with a message")
def big_study(stack: Stack) -> None:
    from tests.api.studies.test_study_budget import study_archive

    status = stack.upload("mallory", study_archive([f"h{i}" for i in range(1000)]), "wide.tgz", kind="ior", study="w")
    failed_with(status, "wide.tgz: study 'w' would hold", "pairwise comparisons")


@probe("40.1b", "a run with 251 configuration files keeps a bounded page")
def kept_files(stack: Stack) -> None:
    entries = {"k": OTHER_SUBMISSION}
    entries.update({f"k/conf-{n:03}.ini": os.urandom(10_000).hex().encode() for n in range(251)})
    status = stack.upload("mallory", archive(entries), "kept.tgz")
    assert status["status"] == "done", status
    [run] = status["runs"]
    page = stack.get(f"/runs/{run['id']}/", who="mallory")
    assert page.status == 200
    assert len(page.body) < PAGE_BYTES, len(page.body)
    assert b"files_not_kept" in page.body or b"not kept" in page.body


@probe("40.1c", "/compare/ of two runs with large files stays within its diff budget")
def compare_budget(stack: Stack) -> None:
    big = Run.objects.filter(upload__original_name="kept.tgz").first()
    assert big is not None
    answer = stack.get(f"/compare/?runs={stack.operator_run.pk},{big.pk}", who="mallory")
    assert answer.status == 200, answer.status
    assert len(answer.body) < PAGE_BYTES, len(answer.body)
    assert answer.seconds < PAGE_SECONDS, answer.seconds


@probe("40.1d", "a system's runs are paginated on the page and the API")
def system_runs_paged(stack: Stack) -> None:
    system = StorageSystem.objects.get(name="Crowded")
    page = stack.get(f"/systems/{system.pk}/")
    assert page.status == 200
    assert b'rel="next"' in page.body
    api = stack.json(f"/api/v1/runs/?system={system.pk}")
    assert api["count"] == CROWDED_RUNS
    assert len(api["results"]) <= 50


@probe("40.1e", "a scaling series past its point budget is refused naming the file")
def series_budget(stack: Stack) -> None:
    status = stack.upload("mallory", tar_gz_of(SLICE), "slice.tgz", kind="mdtest", series="mallorys-slice")
    failed_with(status, "slice.tgz: series 'mallorys-slice' would hold 120 points, more than the 100")
    assert not ScalingSeries.objects.filter(name="mallorys-slice").exists()


@probe("40.2a", "an account that uploads a public folder first loses it to the operator's ingest")
def first_uploader(stack: Stack, tmp: Path | None = None) -> None:
    status = stack.upload("mallory", archive({"Other/Site/DAOS/2020/submission-13": OTHER_SUBMISSION}), "first.tgz")
    assert status["status"] == "done", status
    [run] = status["runs"]
    folder = Path(f"/tmp/probe-{uuid.uuid4().hex}")
    try:
        shutil.copytree(OTHER_SUBMISSION, folder / "Other" / "Site" / "DAOS" / "2020" / "submission-13")
        ingest_path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    taken = Run.objects.get(pk=run["id"])
    assert taken.upload_id is None
    assert stack.request("DELETE", f"/api/v1/runs/{run['id']}/", who="mallory").status in (403, 404)


@probe("40.2b", "same-bytes deduplication is per account: another account's upload id is never answered")
def dedup_per_account(stack: Stack) -> None:
    data = tar_gz_of(OTHER_SUBMISSION) + b""
    alices = json.loads(stack.post_upload("alice", data, "same.tgz").body)
    mallorys = json.loads(stack.post_upload("mallory", data, "same.tgz").body)
    assert mallorys.get("id") != alices.get("id"), (alices, mallorys)


@probe("40.3", "a copy from another account stamps no duplicate_result on the published run")
def duplicate_stamp(stack: Stack) -> None:
    inside = {
        "Attacker-Folder/submission-8": DEMO_SUBMISSION,
        "Attacker-Folder/submission-8/ioboard.yaml": RENAMING_SIDECAR,
    }
    status = stack.upload("mallory", archive(inside), "copy.tgz")
    assert status["status"] == "done", status
    assert not stack.operator_run.anomalies.filter(rule="duplicate_result").exists()


def refused_within(stack: Stack, send: Callable[[int], client.Answer], rate: int) -> list[int]:
    """Statuses of up to two windows' worth of requests (a fixed window may restart once): a 429 must come."""
    statuses = []
    for index in range(2 * rate + 2):
        statuses.append(send(index).status)
        if statuses[-1] == 429:
            break
    return statuses


@probe("40.4a", "a new X-Forwarded-For prefix is no new bucket")
def forwarded_for(stack: Stack) -> None:
    statuses = refused_within(
        stack,
        lambda n: stack.get(
            "/api/v1/systems/", headers={"X-Forwarded-For": f"6.6.{n // 250}.{n % 250}, {stack.fixed_ip(77)}"}
        ),
        30,
    )
    assert statuses[-1] == 429, statuses


@probe("40.4b", "HTML pages are rate limited per client, counted before the cache answers")
def pages_throttled(stack: Stack) -> None:
    statuses = refused_within(stack, lambda n: stack.get("/lists/io500/", ip=stack.fixed_ip(78)), 30)
    assert statuses[-1] == 429, statuses


@probe("40.4c", "exports are rate limited per client")
def exports_throttled(stack: Stack) -> None:
    statuses = refused_within(stack, lambda n: stack.get("/lists/io500/export.csv", ip=stack.fixed_ip(79)), 10)
    assert statuses[-1] == 429, statuses


@probe("40.4d", "a cached API page is counted before the cache answers it")
def cached_api_counted(stack: Stack) -> None:
    statuses = refused_within(stack, lambda n: stack.get("/api/v1/runs/", ip=stack.fixed_ip(80)), 30)
    assert statuses[-1] == 429, statuses


def sign_in(stack: Stack, login: str, password: str, ip: str) -> client.Answer:
    """One sign-in through the form, as a browser sends it (its CSRF cookie and token)."""
    form = stack.get("/accounts/login/", ip=ip)
    cookie = re.search(r"csrftoken=([^;]+)", form.headers.get("Set-Cookie") or "").group(1)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', form.body).group(1).decode()
    return stack.request(
        "POST",
        "/accounts/login/",
        ip=ip,
        data=f"csrfmiddlewaretoken={token}&login={login}&password={password}".encode(),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie}",
            "Referer": stack.base + "/accounts/login/",
        },
    )


def locked(answer: client.Answer) -> bool:
    return answer.status == 429 or b"Too many failed login attempts" in answer.body


@probe("40.4e", "sign-in locks the account and the client after ten wrong passwords, and no other client")
def sign_in_locked(stack: Stack) -> None:
    attacker = stack.fixed_ip(81)
    said = [locked(sign_in(stack, stack.victim, "wrong", attacker)) for _ in range(12)]
    assert said == [False] * 10 + [True] * 2, said
    another = sign_in(stack, "alice", PASSWORD, stack.fixed_ip(83))
    assert not locked(another)
    assert b"you specified are not correct" not in another.body  # signed in (her address still to be confirmed)


@probe(
    "40.5", f"{FLOOD:,} unique query strings leave the page cache one entry, the broker's keys and the throttles intact"
)
def query_flood(stack: Stack) -> None:
    broker_before = {key for key in stack.redis.scan_iter(match="_kombu*")}
    pages_before = stack.keys("page:*")
    for index in range(FLOOD):
        stack.get(f"/api/v1/systems/?utm={uuid.uuid4().hex}&n={index}")
    assert stack.keys("page:*") - pages_before <= 2
    assert broker_before <= {key for key in stack.redis.scan_iter(match="_kombu*")}
    assert stack.keys("data-version") == 1
    statuses = refused_within(stack, lambda n: stack.get(f"/api/v1/systems/?x={n}", ip=stack.fixed_ip(82)), 30)
    assert statuses[-1] == 429


@probe("40.6", "a list export comes in pages with a next link")
def exports_paged(stack: Stack) -> None:
    answer = stack.get("/lists/historic/export.csv?page_rows=1")
    assert answer.status == 200
    link = answer.headers.get("Link") or ""
    rows = answer.body.decode().strip().splitlines()
    assert len(rows) - 1 <= 2000, len(rows)
    assert len(rows) - 1 < 2000 or 'rel="next"' in link, link


@probe("40.7a", "an account's uploads per day are capped")
def quota(stack: Stack) -> None:
    statuses = [
        stack.post_upload("hoarder", MDTEST_HEAD + f"{n}\n".encode(), f"h{n}.log", kind="mdtest").status
        for n in range(42)
    ]
    assert statuses[-1] in (413, 429), statuses
    assert statuses.count(202) == 40, statuses


@probe("40.7b", "a zip whose bytes exceed its entries by more than the margin is refused")
def zip_slack(stack: Stack) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("result_summary.txt", b"x")
    data = buffer.getvalue()
    padded = b"\0" * 5_000_000 + data  # slack before the first entry: bytes no entry accounts for
    answer = stack.post_upload("mallory", padded, "slack.zip")
    assert answer.status == 400, (answer.status, answer.body[:300])


@probe("40.8", "defaults do not leak: no debug page, no start without a key, .env ignored by git and docker")
def defaults(stack: Stack) -> None:
    answer = stack.get("/no/such/page/")
    assert answer.status == 404
    assert b"URLconf" not in answer.body
    assert b"DEBUG = True" not in answer.body
    root = Path(__file__).resolve().parents[2]
    assert ".env" in (root / ".gitignore").read_text().split()
    assert ".env" in (root / ".dockerignore").read_text().split()
    import subprocess

    env = {k: v for k, v in processes.child_env().items() if k not in ("SECRET_KEY", "DEBUG")}
    result = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=root, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@probe("40.9a", "a formula in an uploaded name is neutralised in every CSV export")
def formula_injection(stack: Stack) -> None:
    sidecar = b'institution: "=HYPERLINK(1)"\nsystem: "+cmd"\nfilesystem: "@SUM"\n'
    status = stack.upload("mallory", archive({"fx": OTHER_SUBMISSION, "fx/ioboard.yaml": sidecar}), "fx.tgz")
    assert status["status"] == "done", status
    [run] = status["runs"]
    review_run(Run.objects.get(pk=run["id"]), by=stack.staff, status=ReviewStatus.ACCEPTED)
    exported = (
        stack.get("/lists/historic/export.csv").body.decode() + stack.get("/lists/io500/export.csv").body.decode()
    )
    for cell in ("=HYPERLINK(1)", "+cmd", "@SUM"):
        assert f",{cell}" not in exported
        assert f"\n{cell}" not in exported


@probe("40.9b", "the runs collection lists no pending claim under the claimed system")
def pending_claims(stack: Stack) -> None:
    fabricated = Run.objects.filter(upload__original_name="f.tgz").first()
    assert fabricated is not None
    listed = stack.json(f"/api/v1/runs/?system={stack.operator_run.system_id}&page_size=500")
    assert fabricated.pk not in [row["id"] for row in listed["results"]]


@probe("40.9c", "the front door shows no name known only from unreviewed runs")
def front_door(stack: Stack) -> None:
    status = stack.upload(
        "mallory",
        archive({"n": OTHER_SUBMISSION, "n/ioboard.yaml": b"institution: Mallory Labs\nsystem: Fake\n"}),
        "n.tgz",
    )
    assert status["status"] == "done", status
    assert b"Mallory Labs" not in stack.get("/").body


@probe("40.9d", "an uploader deleting a reviewed run withdraws it; the committee's record stays")
def withdraw_not_delete(stack: Stack) -> None:
    run = Run.objects.filter(upload__original_name="n.tgz").first()
    review_run(run, by=stack.staff, status=ReviewStatus.ACCEPTED, note="reviewed")
    answer = stack.request("DELETE", f"/api/v1/runs/{run.pk}/", who="mallory")
    assert answer.status in (200, 202, 204), answer.status
    assert Run.objects.filter(pk=run.pk).exists()


@probe("40.9e", "inf and nan phase values are refused with the file and line")
def inf_nan(stack: Stack) -> None:
    folder = Path(f"/tmp/probe-{uuid.uuid4().hex}")
    shutil.copytree(OTHER_SUBMISSION, folder)
    try:
        summary, result = folder / "result_summary.txt", folder / "result.txt"
        summary.write_text(summary.read_text().replace("96.779205", "inf"))
        result.write_text(result.read_text().replace("score           = 96.779205", "score           = inf"))
        status = stack.upload("mallory", tar_gz_of(folder), "inf.tgz")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    failed_with(status, "result.txt:11: ior_easy_write value 'inf' is not a finite number")


@probe("40.9f", "a NUL escape in ioboard.yaml is a message naming the key and line")
def nul_in_yaml(stack: Stack) -> None:
    status = stack.upload(
        "mallory", archive({"z": OTHER_SUBMISSION, "z/ioboard.yaml": b'institution: "a\\0b"\n'}), "z.tgz"
    )
    failed_with(status, "ioboard.yaml:1", "institution")
    assert "internal error" not in status["error"]


@probe("40.9g", "an account's stack cannot set the ceiling of a system with others' runs")
def first_writer(stack: Stack) -> None:
    from tests.api.stacks.test_stacks_api import CAMPAIGN

    status = stack.upload("mallory", tar_gz_of(CAMPAIGN), "stack.tgz", kind="stack", stack="mallorys")
    failed_with(status, "stack.tgz", "is ingested by the operator")
    assert not Anomaly.objects.filter(rule="above_measured_ceiling").exists()


@probe("40.acc", "every anonymous page costs at most a few seconds and a few MB after all of the above")
def anonymous_pages_bounded(stack: Stack) -> None:
    paths = [*PAGES, "/api/v1/runs/", "/api/v1/systems/", "/api/v1/scaling-series/", "/api/v1/studies/"]
    paths += [f"/runs/{pk}/" for pk in Run.objects.values_list("pk", flat=True)[:30]]
    paths += [f"/systems/{pk}/" for pk in StorageSystem.objects.values_list("pk", flat=True)[:20]]
    paths += [f"/scaling/{pk}/" for pk in ScalingSeries.objects.values_list("pk", flat=True)]
    slow = []
    for path in paths:
        answer = stack.get(path)
        if answer.status not in (200, 404) or answer.seconds > PAGE_SECONDS or len(answer.body) > PAGE_BYTES:
            slow.append((path, answer.status, round(answer.seconds, 2), len(answer.body)))
    assert not slow, slow


# --- the stack and the run -----------------------------------------------------------------------


@pytest.fixture
def live_stack(tmp_path):
    """gunicorn and a worker on the test's database, started first; the world is written while they boot."""
    needs_real_services()
    prefix = f"probe{uuid.uuid4().hex[:8]}"
    logs = tmp_path / "logs"
    logs.mkdir()
    env = served_env(tmp_path, IOBOARD_CACHE_PREFIX=prefix, **STACK_SETTINGS)
    port = processes.free_port()
    web = servers.gunicorn(port, env=env, log_dir=logs, workers=2, threads=2, timeout=30)
    worker = servers.celery_worker("probe-worker", env=env, log_dir=logs, concurrency=1)
    try:
        # Ids of this run only: the accounts' rate-limit counters in Redis outlive the test database
        first_id = random.randrange(10**6, 10**9)
        accounts = [UserFactory(id=first_id + n, username=name) for n, name in enumerate(ACCOUNTS)]
        tokens = {user.username: ApiToken.issue(user, "probe")[1] for user in accounts}
        # the served settings' hasher: the test settings' fast MD5 is not one gunicorn's settings verify
        hasher = PBKDF2PasswordHasher()
        accounts[1].password = hasher.encode(PASSWORD, hasher.salt())
        accounts[1].save(update_fields=["password"])
        victim = UserFactory(username=f"victim{first_id}")
        staff = UserFactory(username="staff", is_staff=True, is_superuser=True)
        Upload.objects.create(uploader=accounts[1], original_name="alice.tgz", sha256=uuid.uuid4().hex * 2, size=1)
        shutil.copytree(DEMO_SUBMISSION, tmp_path / "archive" / PUBLISHED_AT)
        operator_run = Run.objects.get(pk=ingest_path(tmp_path / "archive").created[0])
        ingest_mdtest_paths([shutil.copytree(SLICE, tmp_path / "slice")], series_name="campaign")
        ingest_ior_paths([shutil.copytree(DATA / "ior" / "study-slice", tmp_path / "ior")], study_name="hints")
        RunFactory(system=StorageSystemFactory(name="beacon"), upload=None)  # the operator's run of the stack's system
        crowded = StorageSystem.objects.create(
            institution=operator_run.system.institution, name="Crowded", filesystem="Lustre"
        )
        for _ in range(CROWDED_RUNS):
            RunFactory(system=crowded, upload=None)

        base = f"http://127.0.0.1:{port}"
        servers.wait_until_serving(base, timeout=90)
        servers.wait_until_workers_ready([worker], timeout=90)
        yield Stack(
            base=base,
            tokens=tokens,
            redis=redis.Redis.from_url(os.environ["REDIS_URL"]),
            cache_prefix=prefix,
            worker=worker,
            operator_run=operator_run,
            operator_series=ScalingSeries.objects.get(name="campaign"),
            operator_study=Study.objects.get(name="hints"),
            staff=staff,
            victim=victim.username,
        )
    finally:
        web.stop()
        worker.stop()


@dataclass
class Outcome:
    probe: Probe
    held: bool
    seconds: float
    detail: str = field(default="")


def test_every_probe_of_both_passes_holds_on_a_live_stack(live_stack):
    outcomes = []
    chosen = os.environ.get("IOBOARD_PROBES", "").split()  # e.g. "22.24 40.4e": only these, when looking into them
    for each in [p for p in (*FIRST_PASS, *SECOND_PASS) if not chosen or p.number in chosen]:
        started = time.monotonic()
        try:
            each.check(live_stack)
            outcomes.append(Outcome(each, True, time.monotonic() - started))
        except Exception as error:
            outcomes.append(Outcome(each, False, time.monotonic() - started, f"{type(error).__name__}: {error}"[:400]))
    print("\n| Probe | What it tries | Outcome | Seconds |\n| --- | --- | --- | ---: |", file=sys.stderr)
    for outcome in outcomes:
        verdict = "held" if outcome.held else f"FAILED: {outcome.detail}"
        print(
            f"| {outcome.probe.number} | {outcome.probe.title} | {verdict} | {outcome.seconds:.1f} |", file=sys.stderr
        )
    failed = [f"{o.probe.number} {o.probe.title}: {o.detail}" for o in outcomes if not o.held]
    assert len(FIRST_PASS) == 36
    assert not failed, "\n".join(failed)
