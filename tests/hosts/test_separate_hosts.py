"""Separate hosts, for real (rig/cluster.py): PostgreSQL primary and streaming replica, Redis, two web hosts
and two worker hosts, each in its own network namespace with its own /tmp (MEDIA_ROOT, TMPDIR), joined by a
private bridge. Through both web hosts, 5 accounts post 50 submissions; one worker host is killed while it holds
jobs; every submission is ingested exactly once, the killed host's jobs by the other within two minutes. The
upload throttle and the page cache's data version hold across web hosts: they share Redis, not memory.

Needs root (`ip netns`), PostgreSQL's server binaries and redis-server; skips with a notice where `ip netns add`
is refused, and in .ci/run's SQLite pass (it starts its own servers, so once is enough). CI runs as root. Takes
about two minutes (ingest of 50 uploads on 2 shared CPUs, and the killed worker's jobs returning after 60 s).
"""

import json
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from bench.load.uploads import pack
from rig.cluster import Cluster, NamespacesRefused
from tests.api.uploading import DEMO

ACCOUNTS, SUBMISSIONS = 5, 50
#: Each account may post this many uploads an hour: all of its 10, not one more, on whichever web host.
UPLOADS_PER_HOUR = SUBMISSIONS // ACCOUNTS
EVERY_RUN = "/api/v1/lists/historic/"  # the list of every run, reviewed or not
SITE = "ioboard.test"  # one Host header for both web hosts, as a proxy in front of them sends
TOKENS = f"""
from apps.results.models import ApiToken
from tests.factories import UserFactory
print(",".join(ApiToken.issue(UserFactory(username=f"account{{n}}"), "hosts")[1] for n in range({ACCOUNTS})))
"""


@pytest.fixture(scope="module")
def cluster():
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        pytest.skip("separate hosts run once, in the PostgreSQL pass (DATABASE_URL set): they start their own servers")
    if os.geteuid() != 0 or not shutil.which("ip") or not shutil.which("redis-server"):
        pytest.skip("separate hosts need root, ip (iproute2) and redis-server: not here")
    workdir = Path(tempfile.mkdtemp(prefix="ioboard-hosts-", dir="/var/tmp"))
    workdir.chmod(0o755)
    try:
        with Cluster.create(workdir) as cluster:
            cluster.start_all(
                web_env={"THROTTLE_UPLOADS": f"{UPLOADS_PER_HOUR}/hour", "IOBOARD_PAGE_CACHE_SECONDS": "600"}
            )
            yield cluster
    except NamespacesRefused as refused:
        pytest.skip(f"ip netns add was refused ({refused}): separate hosts cannot be built here")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def archives(directory: Path) -> list[Path]:
    """50 distinct submissions: the demo submission under 50 top folders, each with a sidecar of its own."""
    folder = DEMO / "Intel" / "Wolf" / "DAOS" / "2020" / "submission-8"
    return [pack(folder, DEMO, directory / f"copy{n}.tar.gz", copy=n) for n in range(1, SUBMISSIONS + 1)]


def get(cluster, host: str, path: str) -> dict:
    return json.loads(
        cluster.python("client", ["-m", "rig.cluster_client", "get", cluster.hosts[host].url() + path, SITE])
    )


def jobs(cluster) -> dict[str, int]:
    rows = cluster.sql("db", "SELECT status, count(*) FROM ingest_ingestjob GROUP BY status")
    return {status: int(count) for status, count in (line.split("|") for line in rows.splitlines())}


def held_by(worker) -> int:
    """Messages the worker took and has not finished: received, not yet succeeded or failed."""
    log = worker.output()
    return len(re.findall(r"ingest_upload_task\[[^\]]+\] received", log)) - len(
        re.findall(r"ingest_upload_task\[[^\]]+\] (?:succeeded|raised|retry)", log)
    )


def test_fifty_submissions_through_two_web_hosts_survive_a_killed_worker_host(cluster):
    tokens = cluster.python("client", ["manage.py", "shell", "-c", TOKENS]).split()[-1].split(",")
    before = get(cluster, "web1", EVERY_RUN)
    assert (before["status"], before["cache"], json.loads(before["body"])["count"]) == (200, "miss", 0)
    assert get(cluster, "web2", EVERY_RUN)["cache"] == "hit"  # web1's page, from the shared Redis

    webs = ",".join(cluster.hosts[host].url() for host in ("web1", "web2"))
    posted = json.loads(
        cluster.python(
            "client",
            [
                "-m",
                "rig.cluster_client",
                "post",
                ",".join(tokens),
                webs,
                *map(str, archives(cluster.hosts["client"].root)),
            ],
        )
    )
    assert [answer["status"] for answer in posted] == [202] * SUBMISSIONS, [a for a in posted if a["status"] != 202]
    assert {answer["web"] for answer in posted} == set(webs.split(","))

    worker1 = cluster.processes["worker1"]
    deadline = time.monotonic() + 120
    while held_by(worker1) < 1 or "succeeded" not in worker1.output():
        assert time.monotonic() < deadline, f"worker1 took no job:\n{worker1.output()[-3000:]}"
        time.sleep(0.05)
    held = held_by(worker1)
    worker1.kill9()
    killed_at = time.monotonic()
    unfinished_at_kill = SUBMISSIONS - jobs(cluster).get("done", 0)

    while jobs(cluster).get("done", 0) + jobs(cluster).get("failed", 0) < SUBMISSIONS:
        assert time.monotonic() - killed_at < 120, f"not all done two minutes after the kill: {jobs(cluster)}"
        time.sleep(0.5)
    recovered_seconds = time.monotonic() - killed_at
    print(
        f"\nworker1 killed holding {held} job(s), {unfinished_at_kill} of {SUBMISSIONS} unfinished; "
        f"all done {recovered_seconds:.1f} s after the kill"
    )

    assert jobs(cluster) == {"done": SUBMISSIONS}
    assert (
        cluster.sql("db", "SELECT count(*), count(DISTINCT upload_id) FROM results_run")
        == f"{SUBMISSIONS}|{SUBMISSIONS}"
    )
    assert cluster.sql("db", "SELECT count(*) FROM ingest_ingestjob_runs") == str(SUBMISSIONS)
    assert "ingest_upload" in cluster.processes["worker2"].output()

    # The throttle is counted in Redis: each account's 11th upload is refused on either web host.
    again = json.loads(
        cluster.python(
            "client",
            ["-m", "rig.cluster_client", "post", tokens[0], webs, str(cluster.hosts["client"].root / "copy1.tar.gz")],
        )
    )
    assert [answer["status"] for answer in again] == [429]

    # The data version is Redis's too: neither web host serves its page from before the ingest. (Anonymous reads
    # come from the replica, and list upkeep may commit a moment after the last job: ask until the list is whole.)
    deadline = time.monotonic() + 60
    while json.loads((fresh := get(cluster, "web2", EVERY_RUN))["body"])["count"] != SUBMISSIONS:
        assert time.monotonic() < deadline, fresh["body"][:300]
        time.sleep(1)
    assert fresh["cache"] == "miss"
    assert (web1 := get(cluster, "web1", EVERY_RUN))["cache"] == "hit"
    assert json.loads(web1["body"])["count"] == SUBMISSIONS

    # The web hosts read those lists from the replica (config/replica.py): it holds their connections.
    readers = cluster.sql(
        "replica", "SELECT DISTINCT host(client_addr) FROM pg_stat_activity WHERE datname = 'ioboard'"
    )
    assert {cluster.hosts["web1"].address, cluster.hosts["web2"].address} <= set(readers.split())

    # Nothing on any host's disk: no MEDIA_ROOT file, no scratch left behind, but on the killed worker host, whose
    # ingest never reached its clean-up: what it left is in its own /tmp, under its scratch directories.
    for host in ("web1", "web2", "worker2"):
        assert [p for p in cluster.hosts[host].root.rglob("*") if p.is_file()] == [], host
    killed = cluster.hosts["worker1"].root
    left = [path.relative_to(killed) for path in killed.rglob("*") if path.is_file()]
    assert all(path.parts[0].startswith("ioboard-upload-") for path in left), left
