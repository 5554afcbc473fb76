"""Read replica routing: anonymous read-only requests read from `DATABASE_REPLICA_URL`, the rest from the primary.

A streaming replica lags its primary by a moment, so only reads that cannot be about the reader's own
write go there: GET/HEAD/OPTIONS requests with no session and no Authorization header (the public lists,
pages and API reads that make up nearly all traffic). Writes always go to the primary, and so does every
read of a request that writes, of a signed-in user or API client (an uploader polling their upload), of
a browser that wrote in the last `IOBOARD_REPLICA_PIN_SECONDS` (a cookie pins it), and of anything
outside a request (Celery tasks, management commands), which read what they are about to write.

Without DATABASE_REPLICA_URL there is no "replica" alias and the router is not installed.
"""

from contextvars import ContextVar

from django.conf import settings

REPLICA = "replica"
PRIMARY = "default"
PIN_COOKIE = "ioboard_primary"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}

_reads_from_replica: ContextVar[bool] = ContextVar("ioboard_reads_from_replica", default=False)


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
    """Marks the request's reads for the replica when safe; pins a browser to the primary after it writes."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if REPLICA not in settings.DATABASES:
            return self.get_response(request)
        token = _reads_from_replica.set(request_may_use_replica(request))
        try:
            response = self.get_response(request)
        finally:
            _reads_from_replica.reset(token)
        if request.method not in SAFE_METHODS:
            response.set_cookie(PIN_COOKIE, "1", max_age=settings.IOBOARD_REPLICA_PIN_SECONDS, httponly=True,
                                samesite="Lax", secure=request.is_secure())
        return response
