"""Query strings no page can answer, refused with a 400 before any view runs.

A NUL character cannot be stored in or compared with PostgreSQL text (the driver raises, which was a 500), and no
parameter of a page or of the API needs kilobytes: both are answered with a message saying what is wrong, as HTML
for pages and as JSON for the API. Views still validate their own parameters (forms, ids); this catches what is
wrong for every view at once.
"""

from django.http import JsonResponse
from django.shortcuts import render

#: Longer query strings are refused: the longest real one (a list view with every filter) is a few hundred bytes.
MAX_QUERY_STRING = 4096


def query_problem(request) -> tuple[str, str]:
    """(the parameter at fault, or "query" for the whole string; what is wrong) for every page, or ("", "")."""
    if len(request.META.get("QUERY_STRING", "")) > MAX_QUERY_STRING:
        return "query", f"The query string is longer than {MAX_QUERY_STRING} characters."
    for name, values in request.GET.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            shown = name.replace(chr(0), "")[:40]
            return shown, f"The query parameter {shown!r} contains a NUL character."
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
