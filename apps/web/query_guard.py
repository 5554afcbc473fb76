"""Query strings no page can answer, refused with a 400 before any view runs; and the one check of text that
cannot be stored, which the API's request parsers (apps.api.common.inputs) apply to every body.

A NUL character cannot be stored in or compared with PostgreSQL text (the driver raises, which was a 500), and no
parameter of a page or of the API needs kilobytes: both are answered with a message saying what is wrong, as HTML
for pages and as JSON for the API. Views still validate their own parameters (forms, ids); this catches what is
wrong for every view at once, so API views need no query-string check of their own.
"""

from django.http import JsonResponse
from django.shortcuts import render

#: The largest id a row can have (a PostgreSQL bigint); a larger number is no row's id, and SQLite cannot even
#: compare with it.
MAX_DATABASE_ID = 2**63 - 1

#: Longer query strings are refused: the longest real one (a list view with every filter) is a few hundred bytes.
MAX_QUERY_STRING = 4096


def database_id(text: str) -> int | None:
    """The row id `text` writes (ASCII digits, 1 to `MAX_DATABASE_ID`), or None when it is no id: "²" is a digit
    `int()` refuses, and a number past a bigint overflows the database driver."""
    text = text.strip()
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) <= MAX_DATABASE_ID:
        return None
    return int(text)


def text_problem(text: str) -> str | None:
    """Why this text cannot be stored or answered, or None when it can.

    A lone surrogate is not Unicode text: it cannot be encoded as UTF-8, so even an error message echoing it fails
    to render. Only a JSON body can carry one; a query string is decoded with replacement characters."""
    if "\x00" in text:
        return "contains a NUL character (\\x00), which cannot be stored"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains a lone surrogate (\\ud800-\\udfff), which is not Unicode text"
    return None


def query_problem(request) -> tuple[str, str]:
    """(the parameter at fault, or "query" for the whole string; what is wrong) for every page, or ("", "")."""
    if len(request.META.get("QUERY_STRING", "")) > MAX_QUERY_STRING:
        return "query", f"The query string is longer than {MAX_QUERY_STRING} characters."
    for name, values in request.GET.lists():
        problem = next(filter(None, map(text_problem, [name, *values])), None)
        if problem:
            shown = name.replace(chr(0), "")[:40]
            return shown, f"The query parameter {shown!r} {problem}."
    return "", ""


class QueryStringGuard:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        field, problem = query_problem(request)
        if not problem:
            return self.get_response(request)
        if request.path.startswith("/api/"):
            return JsonResponse({field: [problem]}, status=400)  # keyed by the field, as the API's own 400s are
        return render(request, "400.html", {"message": problem}, status=400)
