"""The client side of a request to a server of ours: loopback only, a refused or timed-out request status 0."""

from __future__ import annotations

import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from email.message import Message
from http.client import HTTPConnection, HTTPException
from typing import NamedTuple
from urllib.parse import urlsplit

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def require_loopback(url_or_host: str) -> None:
    host = urlsplit(url_or_host).hostname if "://" in url_or_host else url_or_host
    if host not in LOOPBACK:
        raise SystemExit(f"refusing to talk to {host!r}: bench scripts only use 127.0.0.1/localhost")


class Answer(NamedTuple):
    status: int
    body: bytes
    seconds: float
    headers: Message | Mapping[str, str]  # http.client's: names looked up in any case


def http_answer(
    method: str, url: str, *, headers: dict | None = None, data: bytes | None = None, timeout: float = 30
) -> Answer:
    """The whole answer, its headers included; a refused or timed-out request is status 0 rather than an exception."""
    require_loopback(url)
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})  # noqa: S310 - http only
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - loopback only
            body = response.read()
            return Answer(response.status, body, time.perf_counter() - started, response.headers)
    except urllib.error.HTTPError as error:
        return Answer(error.code, error.read(), time.perf_counter() - started, error.headers)
    except (urllib.error.URLError, OSError, TimeoutError):
        return Answer(0, b"", time.perf_counter() - started, {})


def http(
    method: str, url: str, *, headers: dict | None = None, data: bytes | None = None, timeout: float = 30
) -> tuple[int, bytes, float]:
    """(status, body, seconds) of `http_answer`."""
    status, body, seconds, _ = http_answer(method, url, headers=headers, data=data, timeout=timeout)
    return status, body, seconds


def post_and_kill_midway(url: str, body: bytes, *, headers: dict, kill: Callable[[], None]) -> int | None:
    """POST `body` slowly (64 KiB every 20 ms) and call `kill` once half of it is sent and the server has had a
    second to read that: a web host dying mid-body. The status answered, or None when the connection dropped (what
    the client of a dead host should see)."""
    require_loopback(url)
    parts = urlsplit(url)
    connection = HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    connection.putrequest("POST", parts.path)
    for name, value in {**headers, "Content-Length": str(len(body))}.items():
        connection.putheader(name, value)
    connection.endheaders()
    half = len(body) // 2
    for offset in range(0, half, 64 * 1024):
        connection.send(body[offset : min(offset + 64 * 1024, half)])
        time.sleep(0.02)
    time.sleep(1)  # the web worker is now reading the body, waiting for the rest
    kill()
    try:
        connection.send(body[half:])
        return connection.getresponse().status
    except (OSError, HTTPException):
        return None
    finally:
        connection.close()


def multipart(fields: dict, file_field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = "ioboard" + os.urandom(12).hex()
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="{filename}"\r\n'
        "Content-Type: application/gzip\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"
