"""`ioboard-submit PATH --server URL`: pack, upload with a progress bar, follow the ingest as the server asks
(Retry-After), print the runs' URLs and every problem. Exit status: 0 done, 1 failed, 2 usage or connection."""

from __future__ import annotations

import argparse
import os
import tarfile
import tempfile
import time
import tomllib
import uuid
from pathlib import Path
from typing import BinaryIO

import requests
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn

DONE, FAILED = 0, 1
USAGE = 2
CHUNK = 256 * 1024
FINISHED = {"done", "failed"}

console = Console(stderr=True)
out = Console()


class Trouble(Exception):
    """A usage or connection problem: the message is printed and the exit status is 2."""


def config_file() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "ioboard" / "config.toml"


def read_config() -> dict:
    path = config_file()
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise Trouble(f"{path}: {error}") from error


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="ioboard-submit", description=__doc__)
    parser.add_argument("path", type=Path, help="a result folder (packed into a .tar.gz) or an archive or log")
    parser.add_argument("--server", help="the ioboard site, e.g. https://ioboard.example.org (or `server`, config)")
    parser.add_argument("--token", help=f"API token (default: IOBOARD_TOKEN, or `token` in {config_file()})")
    parser.add_argument("--kind", default="io500", help="upload kind: io500 (default), mdtest, ior, stack")
    parser.add_argument("--edition", help="the list the result is submitted to, e.g. sc26")
    parser.add_argument("--no-wait", action="store_true", help="upload and print where to follow it; do not wait")
    parser.add_argument("--wait-timeout", type=float, default=900, help="seconds to follow the ingest (default 900)")
    return parser.parse_args(argv)


def packed(path: Path, scratch: Path) -> Path:
    """The file to send: a folder as a .tar.gz of its contents, anything else as it is."""
    if path.is_dir():
        archive = scratch / f"{path.resolve().name or 'result'}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            for item in sorted(path.iterdir()):
                tar.add(item, arcname=item.name)
        return archive
    if path.is_file():
        return path
    raise Trouble(f"{path}: no such file or folder")


class MultipartBody:
    """A multipart/form-data body read from the file as it is sent, reporting each chunk to `progress`."""

    def __init__(self, fields: dict[str, str], file: Path, progress):
        self.boundary = uuid.uuid4().hex
        head = b"".join(
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
            for name, value in fields.items()
        )
        head += (
            f'--{self.boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file.name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        self.parts: list[bytes | Path] = [head, file, f"\r\n--{self.boundary}--\r\n".encode()]
        self.length = len(head) + file.stat().st_size + len(self.parts[2])  # type: ignore[arg-type]
        self.progress = progress
        self._current: BinaryIO | None = None

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def __len__(self) -> int:
        return self.length

    def __iter__(self):
        for part in self.parts:
            if isinstance(part, bytes):
                self.progress(len(part))
                yield part
                continue
            with open(part, "rb") as handle:
                for chunk in iter(lambda handle=handle: handle.read(CHUNK), b""):
                    self.progress(len(chunk))
                    yield chunk


def upload(session: requests.Session, server: str, file: Path, fields: dict[str, str]) -> dict:
    columns = (TextColumn("uploading {task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=console) as bar:
        body_task = bar.add_task(file.name, total=None)
        body = MultipartBody(fields, file, lambda sent: bar.advance(body_task, sent))
        bar.update(body_task, total=len(body))
        response = session.post(
            f"{server}/api/v1/uploads/",
            data=body,  # an iterable with a length: streamed, with its Content-Length
            headers={"Content-Type": body.content_type},
            timeout=(10, 300),
        )
    if response.status_code in (401, 403):
        raise Trouble(f"the server refused the token ({response.status_code}): {detail(response)}")
    if response.status_code == 400:
        raise Refused(detail(response))
    if response.status_code not in (200, 202):
        raise Trouble(f"the server answered {response.status_code}: {detail(response)}")
    return response.json()


class Refused(Exception):
    """The server refused the upload itself (a bad file or field): the exit status is 1."""


def detail(response: requests.Response) -> str:
    try:
        answer = response.json()
    except ValueError:
        return response.text[:500]
    if isinstance(answer, dict):
        return "; ".join(
            f"{key}: {' '.join(map(str, value)) if isinstance(value, list) else value}" for key, value in answer.items()
        )
    return str(answer)


def follow(session: requests.Session, status_url: str, retry_after: float, deadline: float) -> dict:
    """Poll the upload's status, waiting as long as the server's Retry-After asks, until it is done or failed."""
    with console.status("waiting for the ingest") as spinner:
        while True:
            time.sleep(retry_after)
            response = session.get(status_url, timeout=30)
            if response.status_code != 200:
                raise Trouble(f"reading {status_url}: {response.status_code} {detail(response)}")
            status = response.json()
            if status["status"] in FINISHED:
                return status
            if time.monotonic() > deadline:
                raise Trouble(f"the ingest did not finish in time; follow it at {status_url}")
            spinner.update(f"ingest {status['status']}, {status.get('progress', 0)}%")
            retry_after = float(response.headers.get("Retry-After") or 2)


def report(server: str, status: dict) -> int:
    for run in status.get("runs", []):
        score = run.get("score_total")
        scored = f", score {score:.2f}" if isinstance(score, int | float) else ""
        out.print(f"{server}/runs/{run['id']}/  {run.get('system', {}).get('name', '')}{scored}", highlight=False)
    problems = [line for line in (status.get("error") or "").splitlines() if line.strip()]
    for problem in problems:
        out.print(f"problem: {problem}", highlight=False)
    if status["status"] == "done":
        out.print(f"done: {len(status.get('runs', []))} run(s) from {status['original_name']}", highlight=False)
        return DONE
    out.print(f"failed: {status['original_name']}", highlight=False)
    return FAILED


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    server = ""
    try:
        config = read_config()
        server = (args.server or config.get("server") or "").rstrip("/")
        token = args.token or os.environ.get("IOBOARD_TOKEN") or config.get("token")
        if not server:
            raise Trouble("no server: give --server URL (or `server` in the config file)")
        if not token:
            raise Trouble(f"no token: set IOBOARD_TOKEN or `token` in {config_file()}")
        session = requests.Session()
        session.headers["Authorization"] = f"Token {token}"
        fields = {"kind": args.kind, **({"edition": args.edition} if args.edition else {})}
        with tempfile.TemporaryDirectory(prefix="ioboard-submit-") as scratch:
            accepted = upload(session, server, packed(args.path, Path(scratch)), fields)
        if args.no_wait:
            out.print(f"uploaded: follow it at {accepted['status_url']}", highlight=False)
            return DONE
        deadline = time.monotonic() + args.wait_timeout
        return report(server, follow(session, accepted["status_url"], 0, deadline))
    except Refused as refusal:
        out.print(f"problem: {refusal}", highlight=False)
        return FAILED
    except Trouble as trouble:
        console.print(f"ioboard-submit: {trouble}", highlight=False)
        return USAGE
    except requests.RequestException as error:
        console.print(f"ioboard-submit: cannot reach {server or 'the server'}: {error}", highlight=False)
        return USAGE
