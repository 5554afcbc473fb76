"""/healthz: is the database answering, and (when configured) Redis?

Anyone may ask (load balancers and the container's health check are anonymous), so an anonymous answer
names the failing dependencies only: an exception's text can hold host names, ports, user names or
paths, which an attacker probing the site has no business reading. Staff see the error text.
"""

import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

HEALTHZ_PATH = "/healthz"


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _check_redis() -> str:
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


def _shows_error_details(request) -> bool:
    user = getattr(request, "user", None)  # absent when HealthCheckHostMiddleware answers before authentication
    return bool(user is not None and user.is_active and user.is_staff)


def healthz(request):
    started = time.monotonic()
    checks = {"database": _check_database}
    if settings.REDIS_URL:
        checks["redis"] = _check_redis
    detailed = _shows_error_details(request)
    results, healthy = {}, True
    for name, check in checks.items():
        try:
            results[name] = check()
        except Exception as exc:  # any failure of a dependency is "unhealthy"; its reason only for staff
            results[name] = f"error: {exc.__class__.__name__}: {exc}" if detailed else "error"
            healthy = False
    body = {"status": "ok" if healthy else "error", "checks": results, "seconds": round(time.monotonic() - started, 4)}
    return JsonResponse(body, status=200 if healthy else 503)


def _host_without_port(request) -> str:
    host = request.META.get("HTTP_HOST") or request.META.get("SERVER_NAME", "")
    if host.startswith("["):  # an IPv6 literal, [::1]:8000
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class HealthCheckHostMiddleware:
    """Answers /healthz for the health-check hosts (`IOBOARD_HEALTHCHECK_HOSTS`) before the host validation.

    A container's health check reaches gunicorn as http://127.0.0.1:8000/healthz, a host that
    `ALLOWED_HOSTS` (the public name) rightly refuses with 400. Only /healthz is answered for those hosts,
    anonymously (no session, so no error details); every other path, and /healthz for any other host,
    goes on to the host validation as before. Listed right after SecurityMiddleware, whose https redirect
    skips /healthz (`SECURE_REDIRECT_EXEMPT`).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if (
            request.path_info == HEALTHZ_PATH
            and request.method in ("GET", "HEAD")
            and _host_without_port(request) in settings.IOBOARD_HEALTHCHECK_HOSTS
        ):
            return healthz(request)
        return self.get_response(request)
