"""A whole stack for the fault specs of issue 38: a private Redis, gunicorn and Celery workers on one database.

Every process is started here and stopped by its process group (rig.processes.Service); the Redis is a
redis-server of this test alone (`--save ""`), so flushing or killing it disturbs no one. The database is
the test's own (pytest-django's, committed: transactional_db) or a private PostgreSQL instance
(rig.databases.PrivatePostgres) that the test may restart. The specs read the outcome as an uploader and an
operator do: each upload's status through the API, and the runs table through psql.
"""

from __future__ import annotations

import json
import tarfile
from io import BytesIO
from pathlib import Path
from urllib.parse import urlsplit

from rig import client, databases, processes, servers
from tests.api.uploading import DEMO

#: The six distinct submissions kept in the repository (fixtures/demo): each is one run.
SUBMISSIONS = sorted(path for path in DEMO.rglob("submission-*") if path.is_dir())
FINISHED = ("done", "failed")


def submission_archive(folder: Path, *, padding: bytes = b"") -> bytes:
    """A submission folder as a .tar.gz under its own name; `padding` adds an incompressible file beside it
    (a large upload whose ingest still makes exactly the one run)."""
    buffer = BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(folder, arcname=folder.name)
        if padding:
            entry = tarfile.TarInfo(f"{folder.name}/padding.bin")
            entry.size = len(padding)
            archive.addfile(entry, BytesIO(padding))
    return buffer.getvalue()


class Stack:
    """Private Redis, one gunicorn and any number of workers on `database_url`, all on 127.0.0.1."""

    def __init__(self, logs: Path, database_url: str, *, env: dict | None = None):
        self.logs, self.database_url = logs, database_url
        self.services: list[processes.Service] = []
        self.redis_port = processes.free_port()
        self.redis = self.add(servers.private_redis(self.redis_port, log_dir=logs))
        self.env = {
            "DATABASE_URL": database_url,
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "THROTTLE_UPLOADS": "100000/hour",
            "THROTTLE_USER": "1000000/min",
            "DB_CONN_MAX_AGE": "60",
            "MEDIA_ROOT": str(logs / "media"),
            **(env or {}),
        }
        self.web: processes.Service | None = None
        self.port = processes.free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.token = ""

    def add(self, service: processes.Service) -> processes.Service:
        self.services.append(service)
        return service

    def start_web(self, *, workers: int = 2, launcher: list[str] | None = None, **env: str) -> processes.Service:
        self.web = self.add(
            servers.gunicorn(
                self.port, env={**self.env, **env}, log_dir=self.logs, workers=workers, timeout=60, launcher=launcher
            )
        )
        servers.wait_until_serving(self.base)
        return self.web

    def start_worker(self, name: str, *, launcher: list[str] | None = None, **env: str) -> processes.Service:
        worker = self.add(servers.celery_worker(name, env={**self.env, **env}, log_dir=self.logs, launcher=launcher))
        servers.wait_until_workers_ready([worker])
        return worker

    def close(self) -> None:
        for service in reversed(self.services):
            service.stop()

    def tails(self) -> str:
        return "\n".join(f"--- {service.name}\n{service.tail(30)}" for service in self.services)

    # --- as an uploader ----------------------------------------------------------------------------------------
    def headers(self, **extra: str) -> dict:
        return {"Authorization": f"Token {self.token}", "Accept": "application/json", **extra}

    def upload(self, name: str, data: bytes, timeout: float = 60) -> tuple[int, dict]:
        body, content_type = client.multipart({"kind": "io500"}, "file", name, data)
        status, answer, _ = client.http(
            "POST",
            f"{self.base}/api/v1/uploads/",
            data=body,
            timeout=timeout,
            headers=self.headers(**{"Content-Type": content_type}),
        )
        try:
            return status, json.loads(answer or b"{}")
        except ValueError:
            return status, {"raw": answer[:300].decode(errors="replace")}

    def status_of(self, upload_id: int) -> dict:
        status, body, _ = client.http("GET", f"{self.base}/api/v1/uploads/{upload_id}/", headers=self.headers())
        return json.loads(body) if status == 200 else {"status": f"http {status}"}

    def wait_until_finished(self, upload_ids, *, timeout: float) -> dict[int, dict]:
        """Each upload's status once every one is done or failed."""

        def all_finished():
            answers = {pk: self.status_of(pk) for pk in upload_ids}
            return answers if all(a.get("status") in FINISHED for a in answers.values()) else None

        try:
            return processes.wait_until(all_finished, timeout=timeout, interval=0.5, what="every upload to finish")
        except TimeoutError as error:
            states = {pk: self.status_of(pk).get("status") for pk in upload_ids}
            raise AssertionError(f"{error}: {states}\n{self.tails()}") from error

    # --- as an operator -----------------------------------------------------------------------------------------
    def sql(self, query: str) -> str:
        url = urlsplit(self.database_url)
        return databases.psql(query, database=url.path.lstrip("/"), port=url.port or 5432, capture=True).strip()

    def runs_by_upload(self) -> dict[int, int]:
        """How many runs each upload made (uploads that made none are absent)."""
        rows = self.sql("SELECT upload_id, count(*) FROM results_run GROUP BY upload_id ORDER BY upload_id")
        return {int(pk): int(n) for pk, n in (line.split("|") for line in rows.splitlines() if line)}

    def count(self, table: str) -> int:
        return int(self.sql(f"SELECT count(*) FROM {table}"))


def assert_each_upload_ended_and_ran_once(stack: Stack, finals: dict[int, dict], *, sent: int) -> None:
    """The acceptance of issue 38's faults: every upload done, or failed with a message a person can read;
    one run per successful upload (none lost, none duplicated); one upload row per distinct file sent."""
    for answer in finals.values():
        assert answer["status"] in FINISHED, answer
        if answer["status"] == "failed":
            assert answer["error"].strip(), answer
            assert "internal error" not in answer["error"], answer
    done = {pk for pk, answer in finals.items() if answer["status"] == "done"}
    assert stack.runs_by_upload() == dict.fromkeys(sorted(done), 1)
    assert stack.count("results_upload") == sent
    assert stack.count("results_uploadblob") == sent  # no stored file without its upload
