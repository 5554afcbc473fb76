"""Rate limits: anonymous reads ("anon"), signed-in reads ("user") and uploads ("uploads") per user.

The counters live in the cache (Redis in production). Rate limits protect the service; they must
not take it down with the cache, so a throttle whose cache is unreachable (or was a moment ago:
apps.results.services.freshness.shared_cache_call) lets the request through and logs a warning. The custom-list
cap (IOBOARD_CUSTOM_LISTS_PER_USER) is counted in the database and holds without the cache.
"""

from redis.exceptions import RedisError
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from apps.results.services.freshness import note_shared_cache_failure, shared_cache_available


class FailOpenThrottle:
    def allow_request(self, request, view) -> bool:
        if not shared_cache_available():
            return True
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError):
            note_shared_cache_failure(f"rate limit {self.scope!r} not applied")
            return True


class AnonReadThrottle(FailOpenThrottle, AnonRateThrottle):
    pass


class UserReadThrottle(FailOpenThrottle, UserRateThrottle):
    pass


class UploadRateThrottle(FailOpenThrottle, UserRateThrottle):
    scope = "uploads"


class CustomListRateThrottle(FailOpenThrottle, UserRateThrottle):
    """Saving custom lists, per user: each saved list is re-evaluated after every upload."""

    scope = "custom_lists"


READ_THROTTLES = [AnonReadThrottle, UserReadThrottle]
