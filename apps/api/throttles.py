"""Rate limits: anonymous reads ("anon"), signed-in reads ("user") and uploads ("uploads") per user.

The counters live in the cache (Redis in production). Rate limits protect the service; they must
not take it down with the cache, so a throttle whose cache is unreachable lets the request through
and logs a warning.
"""

import logging

from redis.exceptions import RedisError
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

logger = logging.getLogger(__name__)


class FailOpenThrottle:
    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except (RedisError, OSError):
            logger.warning("rate limit %r not applied: its cache is unreachable", self.scope, exc_info=True)
            return True


class AnonReadThrottle(FailOpenThrottle, AnonRateThrottle):
    pass


class UserReadThrottle(FailOpenThrottle, UserRateThrottle):
    pass


class UploadRateThrottle(FailOpenThrottle, UserRateThrottle):
    scope = "uploads"


READ_THROTTLES = [AnonReadThrottle, UserReadThrottle]
