"""Separate hosts on one machine: each in a network namespace of its own, joined by a private bridge.

    with Cluster.create(Path("/var/tmp/ioboard-hosts")) as cluster:   # root only (ip netns)
        cluster.start_all()          # PostgreSQL primary + streaming replica, Redis, web1, web2, worker1, worker2
        cluster.python("client", ["-c", "..."])                          # anything, from the client host

Plain Python starting processes, used by tests/hosts/test_separate_hosts.py and usable from bench/. Unlike the
rest of the rig it does not keep to 127.0.0.1: its hosts' addresses live only inside the namespaces it creates.

The network: a namespace "lan" holds a bridge; every host namespace has one veth link to it and one address
in a private /24 (10.213.N.0/24, N drawn per cluster) that exists only inside these namespaces: the machine's
own namespace gets no address and no route to them, so nothing outside the cluster can reach it or be reached.
The test process itself talks to the hosts through the "client" host (`python`, `rig.cluster_client`): HTTP and
SQL go over the bridge like any other host's.

The filesystem: each host's processes run in a mount namespace of their own (`unshare -m`) in which the host's
own directory is bind-mounted over /tmp; MEDIA_ROOT and TMPDIR are under it. So no two hosts share /tmp or a
MEDIA_ROOT, while the code and the virtualenv are shared read-only as an image would be. The test can still
look into each host's directory from outside (``Host.root``).

Teardown stops every process started here (by its pid; PostgreSQL through pg_ctl) and deletes the namespaces,
which deletes their links.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from rig import REPO_ROOT, VENV_BIN

PG_BIN = Path(max(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name), default="/nonexistent"))
PG_PORT, REDIS_PORT, WEB_PORT = 5432, 6379, 8000
DATABASE = "ioboard"
#: /tmp as a host sees it: the host's own directory, bind-mounted there (`Host.inside`); its MEDIA_ROOT, TMPDIR,
#: PostgreSQL socket and Redis directory are under it.
HOST_TMP = "/tmp"  # noqa: S108 - private to each host, not the machine's /tmp
#: The hosts and the last byte of their address.
HOSTS = {"db": 2, "replica": 3, "redis": 4, "web1": 11, "web2": 12, "worker1": 21, "worker2": 22, "client": 100}
#: A killed worker's jobs come back fast (config/settings.py's defaults, stated here so the harness says what it
#: relies on): unacknowledged messages return after the visibility timeout, seen by the survivors' sweep of
#: unacknowledged messages every few seconds, and a dead worker's claim lapses after the ingest's time limit.
WORKER_SETTINGS = {"CELERY_VISIBILITY_TIMEOUT": "60", "CELERY_UNACKED_RESTORE_SECONDS": "5"}


class NamespacesRefused(RuntimeError):
    """`ip netns add` was refused (not root, or no network namespaces here): the cluster cannot be built."""


def run(argv: list[str], *, timeout: float = 120, check: bool = True, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, **kwargs)
    if check and done.returncode:
        raise RuntimeError(f"{' '.join(map(str, argv))} exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return done


@dataclass
class Process:
    """A long-running process on a host, in a session of its own (killed as a group by its pid)."""

    name: str
    popen: subprocess.Popen
    log: Path

    def kill9(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=30)

    def stop(self) -> None:
        if self.popen.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill9()

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Host:
    name: str
    netns: str
    address: str
    root: Path  #: bind-mounted over /tmp inside the host

    def url(self, port: int = WEB_PORT) -> str:
        return f"http://{self.address}:{port}"

    def inside(self, argv: list[str]) -> list[str]:
        """argv run in this host's network namespace, with its own directory as /tmp."""
        return [
            "ip",
            "netns",
            "exec",
            self.netns,
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            'mount --bind "$0" /tmp && exec "$@"',
            str(self.root),
            *argv,
        ]


@dataclass
class Cluster:
    workdir: Path
    tag: str
    subnet: str
    hosts: dict[str, Host] = field(default_factory=dict)
    processes: dict[str, Process] = field(default_factory=dict)
    postgres_dirs: list[Path] = field(default_factory=list)

    @classmethod
    @contextlib.contextmanager
    def create(cls, workdir: Path):
        tag = uuid.uuid4().hex[:4]
        cluster = cls(workdir / f"cluster-{tag}", tag, f"10.213.{random.randint(1, 254)}")
        try:
            cluster.build_network()
            yield cluster
        finally:
            cluster.destroy()

    # --- the network -------------------------------------------------------------------------------------------
    def build_network(self) -> None:
        lan = f"iob-{self.tag}-lan"
        added = run(["ip", "netns", "add", lan], check=False)
        if added.returncode:
            raise NamespacesRefused(added.stderr.strip())
        self.hosts["lan"] = Host("lan", lan, "", self.workdir / "lan")
        run(["ip", "-n", lan, "link", "add", "br0", "type", "bridge"])
        run(["ip", "-n", lan, "link", "set", "br0", "up"])
        self.workdir.mkdir(parents=True)
        os.chmod(self.workdir, 0o755)  # noqa: S103 - the postgres user reaches its data directories below it
        for index, (name, last) in enumerate(HOSTS.items()):
            netns = f"iob-{self.tag}-{name}"
            run(["ip", "netns", "add", netns])
            root = self.workdir / name
            (root / "media").mkdir(parents=True)
            os.chmod(root, 0o1777)  # noqa: S103 - the postgres user writes its socket and logs under the db hosts' /tmp
            host = self.hosts[name] = Host(name, netns, f"{self.subnet}.{last}", root)
            outside, inside = f"iob{self.tag}l{index}", f"iob{self.tag}h{index}"
            run(["ip", "link", "add", outside, "netns", lan, "type", "veth", "peer", "name", inside, "netns", netns])
            run(["ip", "-n", lan, "link", "set", outside, "master", "br0", "up"])
            run(["ip", "-n", netns, "link", "set", inside, "name", "eth0"])
            run(["ip", "-n", netns, "addr", "add", f"{host.address}/24", "dev", "eth0"])
            run(["ip", "-n", netns, "link", "set", "eth0", "up"])
            run(["ip", "-n", netns, "link", "set", "lo", "up"])

    def destroy(self) -> None:
        for process in reversed(list(self.processes.values())):
            process.stop()
        for data in self.postgres_dirs:
            run(
                self.as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]),
                check=False,
            )
        for host in self.hosts.values():
            run(["ip", "netns", "del", host.netns], check=False)
        shutil.rmtree(self.workdir, ignore_errors=True)

    # --- processes ---------------------------------------------------------------------------------------------
    @staticmethod
    def as_postgres(argv: list[str]) -> list[str]:
        return argv if os.geteuid() != 0 else ["runuser", "-u", "postgres", "--", *argv]

    def on(self, host: str, argv: list[str], *, env: dict | None = None, timeout: float = 600, check: bool = True):
        """Run argv to its end on a host; its CompletedProcess (text)."""
        return run(self.hosts[host].inside(argv), env=env, cwd=REPO_ROOT, timeout=timeout, check=check)

    def start(self, host: str, name: str, argv: list[str], env: dict) -> Process:
        log = self.workdir / f"{name}.log"
        with open(log, "w") as handle:
            popen = subprocess.Popen(
                self.hosts[host].inside(argv),
                cwd=REPO_ROOT,
                env=env,
                stdout=handle,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes[name] = Process(name, popen, log)
        return self.processes[name]

    def python(self, host: str, args: list[str], *, env: dict | None = None, timeout: float = 600) -> str:
        """`python args` on a host with the app's settings; its standard output."""
        return self.on(host, [str(VENV_BIN / "python"), *args], env=self.app_env(host, env), timeout=timeout).stdout

    # --- services ----------------------------------------------------------------------------------------------
    @property
    def database_url(self) -> str:
        return f"postgres://postgres@{self.hosts['db'].address}:{PG_PORT}/{DATABASE}"

    @property
    def replica_url(self) -> str:
        return f"postgres://postgres@{self.hosts['replica'].address}:{PG_PORT}/{DATABASE}"

    @property
    def redis_url(self) -> str:
        return f"redis://{self.hosts['redis'].address}:{REDIS_PORT}/0"

    def app_env(self, host: str, extra: dict | None = None) -> dict:
        """A host's settings: production-like (DEBUG off), this cluster's database, replica and Redis, and its own
        MEDIA_ROOT and TMPDIR (its /tmp)."""
        env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
        env.update(
            DJANGO_SETTINGS_MODULE="config.settings",
            DEBUG="0",
            SECRET_KEY=f"cluster-{self.tag}-not-secret-" + "k" * 40,
            ALLOWED_HOSTS="*",
            SECURE_SSL_REDIRECT="0",
            LOG_LEVEL="WARNING",
            PYTHONUNBUFFERED="1",
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            MEDIA_ROOT=f"{HOST_TMP}/media",
            TMPDIR=HOST_TMP,
            STATIC_ROOT=str(self.workdir / "static"),
            **WORKER_SETTINGS,
        )
        env.update(extra or {})
        return env

    def start_postgres(self) -> None:
        """A primary on host db and its streaming hot standby on host replica (pg_basebackup -R over the bridge)."""
        primary, standby = self.workdir / "pg-primary", self.workdir / "pg-replica"
        for directory in (primary, standby):
            directory.mkdir(mode=0o700)
            shutil.chown(directory, "postgres", "postgres")
        run(
            self.as_postgres(
                [str(PG_BIN / "initdb"), "-D", str(primary), "-U", "postgres", "--auth=trust", "-E", "UTF8"]
            )
        )
        with open(primary / "postgresql.conf", "a") as conf:
            conf.write("wal_level = replica\nmax_wal_senders = 5\nfsync = off\nsynchronous_commit = off\n")
            conf.write("full_page_writes = off\nshared_buffers = 64MB\nmax_connections = 200\n")
        with open(primary / "pg_hba.conf", "a") as hba:  # the cluster's own subnet, which only its hosts have
            hba.write(f"host all all {self.subnet}.0/24 trust\nhost replication all {self.subnet}.0/24 trust\n")
        self.postgres_dirs.append(primary)
        self.pg_ctl_start("db", primary)
        self.on("db", self.as_postgres([str(PG_BIN / "createdb"), "-h", HOST_TMP, "-U", "postgres", DATABASE]))
        self.on(
            "replica",
            self.as_postgres(
                [
                    str(PG_BIN / "pg_basebackup"),
                    "-h",
                    self.hosts["db"].address,
                    "-U",
                    "postgres",
                    "-D",
                    str(standby),
                    "-R",
                    "-X",
                    "stream",
                    "--checkpoint=fast",
                ]
            ),
        )
        with open(standby / "postgresql.conf", "a") as conf:
            conf.write("hot_standby = on\nhot_standby_feedback = on\n")
        self.postgres_dirs.append(standby)
        self.pg_ctl_start("replica", standby)

    def pg_ctl_start(self, host: str, data: Path) -> None:
        options = f"-p {PG_PORT} -k {HOST_TMP} -c listen_addresses={self.hosts[host].address}"
        self.on(
            host,
            [
                *self.as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-l", str(data / "server.log")]),
                "-w",
                "-t",
                "60",
                "-o",
                options,
                "start",
            ],
        )

    def sql(self, host: str, statement: str) -> str:
        """One statement on the database of host db or replica, as psql prints it unaligned."""
        argv = [str(PG_BIN / "psql"), "-h", HOST_TMP, "-U", "postgres", "-d", DATABASE, "-Atc", statement]
        return self.on(host, self.as_postgres(argv), timeout=60).stdout.strip()

    def start_redis(self) -> None:
        address = self.hosts["redis"].address
        self.start(
            "redis",
            "redis",
            [
                shutil.which("redis-server") or "redis-server",
                "--bind",
                address,
                "--port",
                str(REDIS_PORT),
                "--save",
                "",
                "--appendonly",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                HOST_TMP,
            ],
            dict(os.environ),
        )

    def start_web(self, host: str, extra: dict | None = None) -> Process:
        """gunicorn on the host's address, reading anonymous GETs from the replica (config/replica.py)."""
        argv = [
            str(VENV_BIN / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"{self.hosts[host].address}:{WEB_PORT}",
        ]
        argv += ["--workers", "2", "--timeout", "60", "--graceful-timeout", "5"]
        return self.start(
            host, host, argv, self.app_env(host, {"DATABASE_REPLICA_URL": self.replica_url, **(extra or {})})
        )

    def start_worker(self, host: str, extra: dict | None = None) -> Process:
        """A Celery worker as deployed (prefork; concurrency 2)."""
        argv = [str(VENV_BIN / "celery"), "-A", "config", "worker", "--pool", "prefork", "--concurrency", "2"]
        argv += ["--hostname", f"{host}@%h", "--without-gossip", "--without-mingle", "--loglevel", "INFO"]
        return self.start(host, host, argv, self.app_env(host, extra))

    def start_all(self, web_env: dict | None = None) -> None:
        """Every service: the database pair, Redis, the schema and static files, two web and two worker hosts."""
        self.start_postgres()
        self.start_redis()
        self.python("client", ["manage.py", "migrate", "--noinput", "-v", "0"])
        self.python("client", ["manage.py", "collectstatic", "--noinput", "-v", "0"])
        for host in ("web1", "web2"):
            self.start_web(host, web_env)
        for host in ("worker1", "worker2"):
            self.start_worker(host)
        self.wait_until_serving()

    def wait_until_serving(self, timeout: float = 120) -> None:
        code = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/healthz', timeout=3)"
        deadline = time.monotonic() + timeout
        for host in ("web1", "web2"):
            while self.on(
                "client", [str(VENV_BIN / "python"), "-c", code, self.hosts[host].url()], check=False
            ).returncode:
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{host} is not serving after {timeout} s:\n{self.processes[host].output()[-3000:]}"
                    )
                time.sleep(0.5)
        for host in ("worker1", "worker2"):
            while "ready." not in self.processes[host].output():
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"{host} is not ready after {timeout} s:\n{self.processes[host].output()[-3000:]}"
                    )
                time.sleep(0.5)
