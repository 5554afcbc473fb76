"""What a client of the cluster does, run on its client host (`Cluster.python("client", ["-m", "rig.cluster_client",
...])`): post archives through the web hosts, and ask for pages. Prints JSON; no Django here.

    python -m rig.cluster_client post TOKENS WEBS ARCHIVE...   # upload n by account n % 5, through web host
                                                                # (n // 5) % 2: every account uses both hosts
    python -m rig.cluster_client get URL [HOST]                 # status, cache header and body of one GET
"""

import json
import sys
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from uuid import uuid4


def request(url: str, *, data: bytes | None = None, headers: dict | None = None) -> dict:
    try:
        with urllib.request.urlopen(  # noqa: S310 - http to the cluster's own hosts
            urllib.request.Request(url, data=data, headers=headers or {}),  # noqa: S310
            timeout=60,
        ) as answer:
            return {
                "status": answer.status,
                "cache": answer.headers.get("X-Ioboard-Cache"),
                "body": answer.read().decode(),
            }
    except urllib.error.HTTPError as error:
        return {"status": error.code, "cache": None, "body": error.read().decode(errors="replace")[:2000]}


def post(archive: Path, token: str, web: str) -> dict:
    boundary = uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nio500\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{archive.name}"\r\n'
            "Content-Type: application/gzip\r\n\r\n"
        ).encode()
        + archive.read_bytes()
        + f"\r\n--{boundary}--\r\n".encode()
    )
    headers = {
        "Authorization": f"Token {token}",
        "Accept": "application/json",
        "Content-Type": f"multipart/form-data; boundary={boundary}",
    }
    answer = request(f"{web}/api/v1/uploads/", data=body, headers=headers)
    return {"archive": archive.name, "web": web, "status": answer["status"], "body": answer["body"][:500]}


def post_all(tokens: list[str], webs: list[str], archives: list[Path]) -> list[dict]:
    """Each account posts its archives one after another, the accounts at once."""

    def account(index: int) -> list[dict]:
        return [
            post(archives[n], tokens[index], webs[(n // len(tokens)) % len(webs)])
            for n in range(index, len(archives), len(tokens))
        ]

    with ThreadPoolExecutor(max_workers=len(tokens)) as pool:
        return [answer for answers in pool.map(account, range(len(tokens))) for answer in answers]


def main() -> None:
    command, *args = sys.argv[1:]
    if command == "post":
        tokens, webs, archives = args[0].split(","), args[1].split(","), [Path(a) for a in args[2:]]
        print(json.dumps(post_all(tokens, webs, archives)))
    elif command == "get":
        headers = {"Accept": "application/json", **({"Host": args[1]} if len(args) > 1 else {})}
        print(json.dumps(request(args[0], headers=headers)))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main()
