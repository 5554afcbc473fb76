"""Rate limits: anonymous reads ("anon"), signed-in reads ("user") and uploads ("uploads") per user.

Counted atomically in the cache (Redis in production), per client as apps.web.rate_limits names it, and failing
open when the cache is unreachable (apps.web.rate_limits.CountingThrottle). The custom-list cap
(IOBOARD_CUSTOM_LISTS_PER_USER) is counted in the database and holds without the cache.
"""

from django.http import JsonResponse
from rest_framework.exceptions import Throttled
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from apps.web.rate_limits import CountingThrottle, seconds_to_wait


class AnonReadThrottle(CountingThrottle, AnonRateThrottle):
    pass


class UserReadThrottle(CountingThrottle, UserRateThrottle):
    pass


class UploadRateThrottle(CountingThrottle, UserRateThrottle):
    scope = "uploads"


class CustomListRateThrottle(CountingThrottle, UserRateThrottle):
    """Saving custom lists, per user: each saved list is re-evaluated after every upload."""

    scope = "custom_lists"


READ_THROTTLES = [AnonReadThrottle, UserReadThrottle]


def refuse_throttled_read(request) -> JsonResponse | None:
    """A cached page is answered before the view, and so before DRF's throttles, run (apps.web.page_cache): it is
    counted here with the view's READ_THROTTLES, and refused as DRF refuses (429, Retry-After, its message)."""
    wait = seconds_to_wait(request, [throttle() for throttle in READ_THROTTLES])
    if wait is None:
        return None
    return JsonResponse({"detail": Throttled(wait).detail}, status=429, headers={"Retry-After": str(wait)})
