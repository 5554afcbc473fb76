"""/healthz: is the database answering, and (when configured) Redis?"""

import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse


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


def healthz(request):
    started = time.monotonic()
    checks = {"database": _check_database}
    if settings.REDIS_URL:
        checks["redis"] = _check_redis
    results, healthy = {}, True
    for name, check in checks.items():
        try:
            results[name] = check()
        except Exception as exc:  # any failure of a dependency is "unhealthy", with its reason
            results[name] = f"error: {exc.__class__.__name__}: {exc}"
            healthy = False
    body = {"status": "ok" if healthy else "error", "checks": results,
            "seconds": round(time.monotonic() - started, 4)}
    return JsonResponse(body, status=200 if healthy else 503)
