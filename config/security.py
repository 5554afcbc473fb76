"""Cookies set over https are always Secure, whatever the settings say; the Content-Security-Policy per page.

`SESSION_COOKIE_SECURE` and `CSRF_COOKIE_SECURE` follow `SECURE_SSL_REDIRECT` by default, so a deployment
behind a TLS-terminating proxy that turns the redirect off (`SECURE_SSL_REDIRECT=0`, the proxy redirects)
would hand its session cookie out without `Secure`, and a browser would later send it over plain HTTP.
A response to a request that came over https (directly, or through the proxy's `X-Forwarded-Proto` with
`SECURE_PROXY_SSL_HEADER`) marks every cookie it sets Secure; plain-HTTP deployments on loopback keep
working, since their requests are not secure.
"""

from csp.constants import SELF, UNSAFE_INLINE
from csp.middleware import CSPMiddleware

#: The API's HTML front ends (browsable API, Swagger UI, Redoc) live under this path.
API_HTML_PREFIX = "/api/"
#: What they need beyond the site's policy: inline styles, and Redoc's search index in a worker it starts from a blob.
API_HTML_POLICY_ADDITIONS = {"style-src": [UNSAFE_INLINE], "worker-src": [SELF, "blob:"]}


class SecureCookiesOverHttpsMiddleware:
    """Marks every cookie of a response Secure when its request came over https (listed above the
    session, CSRF and replica-pin middleware, so it sees the cookies they set)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.is_secure():
            for morsel in response.cookies.values():
                morsel["secure"] = True
        return response


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, with inline styles allowed on the API's own HTML pages only.

    The site's pages pass `CONTENT_SECURITY_POLICY` as it stands: no inline script or style anywhere. The
    HTML pages under the API's prefix are third-party front ends: DRF's browsable API (style attributes in
    its templates), Swagger UI and Redoc (which build their styles at run time in <style> elements). They
    keep the same script policy (no inline script: Swagger's start-up script is served as a file by
    `SpectacularSwaggerSplitView`) and may use inline styles, which run no code. The rule reads the path and
    content type, not the view, so a browsable-API page served from the page cache gets the same policy.

    One refusal remains, on purpose: Redoc's sidebar shows a logo from cdn.redoc.ly, which the policy blocks
    (nothing is loaded from the network; Redoc hides the broken image).
    """

    def get_policy_parts(self, request, response, report_only=False):
        parts = super().get_policy_parts(request, response, report_only=report_only)
        if request.path_info.startswith(API_HTML_PREFIX) and response.get("Content-Type", "").startswith("text/html"):
            parts.update = {**(parts.update or {}), **API_HTML_POLICY_ADDITIONS}
        return parts
