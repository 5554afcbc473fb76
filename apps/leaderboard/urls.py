from django.urls import include, path, register_converter

from apps.results.models.list_kinds import url_pattern


class ListKindConverter:
    regex = url_pattern()

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


class ExportFormatConverter:
    regex = "csv|json"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(ListKindConverter, "list")
register_converter(ExportFormatConverter, "fmt")

# One include per feature folder; the converters above are registered before any of them is read.
urlpatterns = [
    path("", include("apps.leaderboard.front.urls")),
    path("", include("apps.leaderboard.accounts.urls")),
    path("", include("apps.leaderboard.submissions.urls")),
    path("", include("apps.leaderboard.custom_lists.urls")),
    path("", include("apps.leaderboard.lists.urls")),
    path("", include("apps.leaderboard.published.urls")),
    path("", include("apps.leaderboard.runs.urls")),
    path("", include("apps.leaderboard.systems.urls")),
    path("", include("apps.leaderboard.compare.urls")),
    path("", include("apps.leaderboard.scaling.urls")),
    path("", include("apps.leaderboard.studies.urls")),
    path("", include("apps.leaderboard.stacks.urls")),
]
