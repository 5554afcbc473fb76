"""The page cache both front ends use: anonymous GET responses kept until the data version changes.

Ranked lists are read far more often than results change: a page is read many times a minute, while a
new result arrives a few times a day, and even from the maintained list entries (apps.results.services.list_entries)
a rendered page costs several times `/healthz`, a cached one about what `/healthz` costs. So the
rendered list pages and API lists are cached under a key that includes the *data version*
(``apps.results.services.freshness``), which every committed write to the results app changes. A reader
never sees a page older than the last committed write it could have seen; there is no invalidation
by pattern and no TTL guessing.

Without a shared cache (the embedded default, where each process has its own local memory) the page
cache stays off (``IOBOARD_PAGE_CACHE_SECONDS`` is 0), since a ``manage.py ingest`` in another
process could not tell the web server that its pages are stale. A cache that cannot be reached never
fails a request, nor slows one for long: the page is rendered uncached, the cache is left alone for a
moment after a failed call (``shared_cache_call``), and the page timeout bounds how long a page can
outlive a version bump lost to such an outage.
"""

import functools
import hashlib
from collections.abc import Collection
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponse, QueryDict

from apps.results.services.freshness import cache_key, current_data_version, shared_cache_call

CACHE_STATUS_HEADER = "X-Ioboard-Cache"
#: Headers of one response that another client must not receive.
UNSHARED_HEADERS = {"set-cookie", "x-ioboard-cache"}


def _page_key(request, version: int) -> str:
    """One entry per data version, scheme, host, path, the query the view reads (``read_only``) whatever its
    order, and Accept header.

    Pages hold absolute URLs built from the request (API pagination links, feed links), so a page rendered
    for http:// or for another of the `ALLOWED_HOSTS` must never be served to a reader of https:// or of
    this host: that would send them to plain HTTP or to another site.
    """
    identity = "\n".join(
        [
            str(version),
            request.scheme,
            request.get_host(),
            request.path,
            _sorted_query(request),
            request.headers.get("Accept", ""),
        ]
    )
    return cache_key("page", hashlib.sha256(identity.encode()).hexdigest())


def _sorted_query(request) -> str:
    """The query by parameter name: ``?a=1&b=2`` and ``?b=2&a=1`` are one page (their links name the same
    parameters in another order, which changes no link's target)."""
    return urlencode(sorted((name, request.GET.getlist(name)) for name in request.GET), doseq=True)


def _cacheable_request(request) -> bool:
    """Anonymous GETs only: a signed-in page shows the user's own links and must not be shared."""
    return (
        settings.IOBOARD_PAGE_CACHE_SECONDS > 0
        and request.method == "GET"
        and "HTTP_AUTHORIZATION" not in request.META
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
    )


def read_only(request, parameters: Collection[str]) -> None:
    """Leave in the request's query only the `parameters` its view reads.

    The page and its cache key are then made from the same query: ``?utm=1``, ``?utm=2`` and no query at all are
    one page and one entry, where a key on the whole query string let a reader write a new entry per request
    until the cache evicted the rest. The links a page builds from its request (pagination, sorting) carry no
    parameter the page did not read either."""
    kept = QueryDict(mutable=True)
    for name in request.GET:
        if name in parameters:
            kept.setlist(name, request.GET.getlist(name))
    query = kept.urlencode()
    request.META["QUERY_STRING"] = query
    request.GET = QueryDict(query)


def cache_page_until_data_changes(view=None, *, parameters: Collection[str], refuse=None):
    """Serve the view's anonymous GET responses from the cache until the data version changes.

    `parameters`: the query parameters the view reads; it never sees the others (``read_only``). A response
    larger than IOBOARD_PAGE_CACHE_MAX_BYTES is served and not kept. Pages are kept in their own cache
    (``CACHES["pages"]``: CACHE_URL, an LRU Redis apart from the broker's, config/settings.py).

    `refuse(request)`, when given, counts a request the cache is about to answer and returns the response that
    refuses it (429), or None: a view whose own rate limits run inside it (DRF's) would otherwise never count the
    requests the cache answers. Pages are counted before any view by apps.web.rate_limits.PageRateLimit."""
    if view is None:
        return functools.partial(cache_page_until_data_changes, parameters=parameters, refuse=refuse)

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        read_only(request, parameters)
        if not _cacheable_request(request):
            return view(request, *args, **kwargs)
        version = current_data_version()
        # None: the cache is unreachable (apps.results.services.freshness.shared_cache_call); render uncached
        if version is None:
            return view(request, *args, **kwargs)
        key = _page_key(request, version)
        stored = shared_cache_call("get", key, alias="pages")
        if stored is not None:
            refused = refuse(request) if refuse else None
            if refused is not None:
                return refused
            content, headers = stored
            response = HttpResponse(content, headers=headers)
            response[CACHE_STATUS_HEADER] = "hit"
            return response

        def store(response):
            if (
                response.status_code == 200
                and not response.streaming
                and len(response.content) <= settings.IOBOARD_PAGE_CACHE_MAX_BYTES
            ):
                headers = {name: value for name, value in response.items() if name.lower() not in UNSHARED_HEADERS}
                shared_cache_call(
                    "set", key, (response.content, headers), settings.IOBOARD_PAGE_CACHE_SECONDS, alias="pages"
                )
            response[CACHE_STATUS_HEADER] = "miss"
            return response

        response = view(request, *args, **kwargs)
        if hasattr(response, "render") and not response.is_rendered:
            response.add_post_render_callback(store)
            return response
        return store(response)

    return wrapper
