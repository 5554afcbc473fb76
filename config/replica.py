"""Read replica routing: anonymous read-only requests read from `DATABASE_REPLICA_URL`, the rest from the primary.

A streaming replica lags its primary by a moment, so only reads that cannot be about the reader's own
write go there: GET/HEAD/OPTIONS requests with no session and no Authorization header (the public lists,
pages and API reads that make up nearly all traffic). Writes always go to the primary, and so does every
read of a request that writes, of a signed-in user or API client (an uploader polling their upload), of
a browser that wrote in the last `IOBOARD_REPLICA_PIN_SECONDS` (a cookie pins it), and of anything
outside a request (Celery tasks, management commands), which read what they are about to write.

A replica that is down or behind never costs a reader an answer, nor more than a moment: before a request is
sent to it, the replica's health is checked (at most every `IOBOARD_REPLICA_CHECK_SECONDS` per process, with
a connect timeout of `IOBOARD_REPLICA_CONNECT_TIMEOUT` seconds); a replica that does not answer, or that lags
by more than `IOBOARD_REPLICA_MAX_LAG_SECONDS`, is left alone and the primary answers until the next check.

Without DATABASE_REPLICA_URL there is no "replica" alias and the router is not installed.
"""

import logging
import threading
import time
from contextvars import ContextVar

from django.conf import settings
from django.db import DatabaseError, connections

REPLICA = "replica"
PRIMARY = "default"
PIN_COOKIE = "ioboard_primary"
ROUTER = "config.replica.ReplicaRouter"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

_reads_from_replica: ContextVar[bool] = ContextVar("ioboard_reads_from_replica", default=False)

log = logging.getLogger(__name__)

#: Seconds the replica is behind: none while it has replayed all it received (an idle primary sends nothing,
#: so the time since the last replayed transaction is no lag), else the age of the last transaction it replayed.
REPLICA_LAG_SQL = """
    SELECT CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END
"""


class ReplicaHealth:
    """Whether the replica may serve reads now: it answers and is not too far behind. Checked at most every
    `IOBOARD_REPLICA_CHECK_SECONDS` per process, so a replica that is down costs one connect timeout per
    process per interval, not one per request."""

    def __init__(self):
        self._lock = threading.Lock()
        self._checked_at = float("-inf")
        self._usable = False

    def usable(self) -> bool:
        now = time.monotonic()
        if now - self._checked_at < settings.IOBOARD_REPLICA_CHECK_SECONDS:
            return self._usable
        with self._lock:
            if now - self._checked_at >= settings.IOBOARD_REPLICA_CHECK_SECONDS:
                self._usable = self._check()
                self._checked_at = time.monotonic()
        return self._usable

    def failed(self) -> None:
        """A read on the replica failed: the primary answers until the next check finds it well."""
        self._usable = False
        self._checked_at = time.monotonic()

    @staticmethod
    def _check() -> bool:
        connection = connections[REPLICA]
        try:
            with connection.cursor() as cursor:
                cursor.execute(REPLICA_LAG_SQL if connection.vendor == "postgresql" else "SELECT 0")
                lag = float(cursor.fetchone()[0])
        except DatabaseError as error:
            log.warning("read replica unusable, reading from the primary: %s", error.__class__.__name__)
            connection.close()
            return False
        if lag > settings.IOBOARD_REPLICA_MAX_LAG_SECONDS:
            log.warning(
                "read replica %.1f s behind (bound %s s), reading from the primary",
                lag,
                settings.IOBOARD_REPLICA_MAX_LAG_SECONDS,
            )
            return False
        return True


replica_health = ReplicaHealth()


def request_may_use_replica(request) -> bool:
    return (
        request.method in SAFE_METHODS
        and "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and PIN_COOKIE not in request.COOKIES
    )


class ReplicaRouter:
    """Reads go to the replica only inside a request that ReplicaMiddleware found safe; writes to the primary."""

    def db_for_read(self, model, **hints):
        return REPLICA if _reads_from_replica.get() else PRIMARY

    def db_for_write(self, model, **hints):
        return PRIMARY

    def allow_relation(self, obj1, obj2, **hints):
        return True  # one database, two servers

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db == PRIMARY


class ReplicaMiddleware:
    """Marks the request's reads for the replica when safe; pins a browser to the primary after it writes.

    A replica that fails in the middle of a request (it went down since the last check) costs the reader
    nothing: the read-only view runs once more on the primary.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if REPLICA not in settings.DATABASES or ROUTER not in settings.DATABASE_ROUTERS:
            return self.get_response(request)
        token = _reads_from_replica.set(request_may_use_replica(request) and replica_health.usable())
        try:
            response = self.get_response(request)
        finally:
            _reads_from_replica.reset(token)
        if request.method not in SAFE_METHODS:
            response.set_cookie(
                PIN_COOKIE,
                "1",
                max_age=settings.IOBOARD_REPLICA_PIN_SECONDS,
                httponly=True,
                samesite="Lax",
                secure=request.is_secure(),
            )
        return response

    def process_exception(self, request, exception):
        if not (_reads_from_replica.get() and isinstance(exception, DatabaseError)):
            return None
        log.warning(
            "read replica failed during a request; answering from the primary: %s", exception.__class__.__name__
        )
        replica_health.failed()
        connections[REPLICA].close()
        _reads_from_replica.set(False)
        match = request.resolver_match
        return match.func(request, *match.args, **match.kwargs)
