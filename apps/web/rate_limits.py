"""Rate limits every front end shares: per client, counted atomically in the cache, before any cache answers.

The client is the one ``SimpleRateThrottle.get_ident`` names: the socket's address, or behind
``IOBOARD_TRUSTED_PROXIES`` proxies (DRF's ``NUM_PROXIES``) the address the outermost trusted proxy added to
``X-Forwarded-For``; what a client writes in that header itself never names it (docs/deployment.md). Signed-in
readers are counted per account.

The limits are DRF throttles, for the API's views and the pages' alike, so the rates live in one place
(``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``: "anon", "user", "pages", "exports", ...) and the client has one
definition. ``CountingThrottle`` overrides only the public ``allow_request`` and ``wait`` of DRF's
``SimpleRateThrottle``: DRF keeps a list of request times, read, appended to and written back, and concurrent
requests each read the same list and pass the rate together (eight at a time met a 600/min limit near request
790). Here each request is one atomic increment of a counter per client and window (``cache.add`` then
``cache.incr``: SET NX and INCR in Redis), so no interleaving lets more than the rate through. django-ratelimit
would count the same way, but the API's limits would then be set and answered in two ways.

Rate limits protect the service; they must not take it down with the cache, so a throttle whose cache is
unreachable (or was a moment ago: apps.results.services.freshness.shared_cache_call) lets the request through and
logs a warning.
"""

import functools
import math

from django.shortcuts import render
from redis.exceptions import RedisError
from rest_framework.throttling import SimpleRateThrottle, UserRateThrottle

from apps.results.services.freshness import note_shared_cache_failure, shared_cache_available

#: Paths the page limit leaves alone: the API (its views count with their own throttles), the health check and
#: the static files (answered by WhiteNoise before this middleware runs, but for a misconfigured server).
UNLIMITED_PREFIXES = ("/api/", "/healthz", "/static/", "/favicon.ico")


class CountingThrottle(SimpleRateThrottle):
    """A fixed window per client: at most the rate's count of requests in each `duration` seconds of the clock.

    A client may spend its count at the end of one window and again at the start of the next (twice the rate
    over one window's length, at worst); what it can never do is pass the rate within a window, however its
    requests interleave."""

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None or not shared_cache_available():
            return True
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        counter = f"{key}:{window}"
        try:
            # Kept for two windows: a counter never expires between its add and its incr.
            self.cache.add(counter, 0, timeout=2 * self.duration)
            count = self.cache.incr(counter)
        except ValueError:  # the counter was evicted between add and incr: count from here
            return True
        except (RedisError, OSError):
            note_shared_cache_failure(f"rate limit {self.scope!r} not applied")
            return True
        return count <= self.num_requests

    def wait(self) -> float:
        return max(self.window_ends - self.timer(), 0.0)


class PageThrottle(CountingThrottle, UserRateThrottle):
    """Every page but the API's, per account or per client address."""

    scope = "pages"


class ExportThrottle(CountingThrottle, UserRateThrottle):
    """The list exports, on top of the page limit: each answer is thousands of rows (apps.leaderboard.lists.exports)."""

    scope = "exports"


def seconds_to_wait(request, throttles) -> int | None:
    """Count the request with each throttle; the whole seconds to wait when one refuses it, else None."""
    for throttle in throttles:
        if not throttle.allow_request(request, None):
            return math.ceil(throttle.wait())
    return None


def refused_page(request, wait: int):
    response = render(request, "429.html", {"wait": wait}, status=429)
    response["Retry-After"] = str(wait)
    return response


def rate_limited(throttle_class):
    """A view counted with `throttle_class` (besides the page limit every page has: PageRateLimit)."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            wait = seconds_to_wait(request, [throttle_class()])
            return refused_page(request, wait) if wait is not None else view(request, *args, **kwargs)

        return wrapper

    return decorate


class PageRateLimit:
    """The page limit ("pages"), counted before any view or page cache runs, on every path but UNLIMITED_PREFIXES.

    After the authentication middleware, so that a signed-in reader is counted per account."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith(UNLIMITED_PREFIXES):
            wait = seconds_to_wait(request, [PageThrottle()])
            if wait is not None:
                return refused_page(request, wait)
        return self.get_response(request)
