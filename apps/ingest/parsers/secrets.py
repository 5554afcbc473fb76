"""API tokens left in a kept file: job scripts that end in `curl -H "Authorization: Token ..."` are common, and
what ioboard keeps of a run's files is shown on its page. Each token is replaced by a marker before the file is
kept, and the marker's lines are what the uploader is warned about (the token itself should be revoked).

Plain Python (no Django)."""

import re

#: What stands in a kept file where a token was.
REMOVED = "[token removed by ioboard]"

TOKEN = re.compile(
    r"""(?P<keep>(?:Authorization["']?\s*[:=]\s*["']?\s*(?:Token|Bearer)\s+)|(?:IOBOARD_TOKEN\s*=\s*["']?))"""
    r"""(?P<secret>[A-Za-z0-9_\-.~+/]{16,}=*)""",
    re.IGNORECASE,
)


def scrub_tokens(text: str) -> str:
    """The text with every token after an Authorization header or an IOBOARD_TOKEN assignment replaced."""
    return TOKEN.sub(lambda found: found.group("keep") + REMOVED, text)


def removed_token_lines(text: str) -> list[int]:
    """The 1-based lines of a kept file where a token was removed."""
    return [number for number, line in enumerate(text.splitlines(), start=1) if REMOVED in line]
