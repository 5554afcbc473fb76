"""Helpers that read rendered pages the way a browser would, for assertions in tests."""

import re
from html.parser import HTMLParser

# A URL in an attribute or a script string that points at another host. Relative paths and
# the test server itself are ours; anything else would make the page depend on the network.
_REMOTE_URL = re.compile(r"""(?:https?:)?//(?!testserver[/:"'])([a-z0-9.-]+\.[a-z]{2,})[^\s"'<>)]*""", re.IGNORECASE)

# Hosts that serve front-end packages; a page that names one loads code from the internet.
_CDN_HOSTS = ("cdn.", "unpkg.com", "jsdelivr", "cdnjs", "googleapis")


def remote_hosts(page: str) -> set[str]:
    """The hosts other than the test server that a page refers to by URL.

    Searching the page for the bare text "cdn" is not enough and not safe: random tokens in the
    page (CSRF, nonces) contain those letters by chance, and a CDN need not be named "cdn".
    """
    return {match.group(1).lower() for match in _REMOTE_URL.finditer(page)}


def cdn_hosts(page: str) -> set[str]:
    """The hosts a page refers to that serve front-end packages from the internet."""
    return {host for host in remote_hosts(page) if any(name in host for name in _CDN_HOSTS)}


class _Elements(HTMLParser):
    """Every element's tag, attributes (as a set, order aside) and text."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple] = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, frozenset(attrs)))

    def handle_data(self, data):
        if data.strip():
            self.found.append(("text", data.strip()))


def elements(html: str) -> list[tuple]:
    """The markup as a browser would read it (tags, attributes, text), whitespace between elements aside: two
    renderings of the same thing compare equal however their source is laid out."""
    parser = _Elements()
    parser.feed(html)
    return parser.found
