from django.urls import include, path, register_converter
from django.views.generic import RedirectView

from apps.leaderboard import custom_list_builder, front, health, history, views
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

urlpatterns = [
    path("", front.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    # The research lists' names since the split (their URLs before it, io500 and ten-node, stay the lists' own).
    path("lists/research/", RedirectView.as_view(url="/lists/io500/", query_string=True)),
    path("lists/ten-node-research/", RedirectView.as_view(url="/lists/ten-node/", query_string=True)),
    path("lists/custom/new/", custom_list_builder.custom_list_new, name="custom-list-new"),
    path("lists/custom/check/", custom_list_builder.equation_check, name="equation-check"),
    path("lists/custom/<slug:token>/", views.custom_list, name="custom-list"),
    path("lists/custom/<slug:token>/export.<fmt:fmt>", views.custom_list_export, name="custom-list-export"),
    path("lists/<list:kind>/", views.live_list, name="list"),
    path("lists/<list:kind>/export.<fmt:fmt>", views.live_list_export, name="list-export"),
    path("editions/", views.edition_index, name="edition-index"),
    path("editions/<slug:name>/", views.edition_list, name="edition-detail"),
    path("editions/<slug:name>/awards/", views.edition_awards_page, name="edition-awards"),
    path("editions/<slug:name>/<list:kind>/", views.edition_list, name="edition-list"),
    path("editions/<slug:name>/<list:kind>/export.<fmt:fmt>", views.edition_export, name="edition-export"),
    path("runs/<int:pk>/", views.run_detail, name="run-detail"),
    path("runs/<int:pk>/upload/", views.run_upload, name="run-upload"),
    path("systems/", front.system_index, name="system-index"),
    path("systems/<int:pk>/", views.system_detail, name="system-detail"),
    path("systems/<int:pk>/history/", history.system_history, name="system-history"),
    path("systems/<int:pk>/history/triage/", history.triage_event, name="system-history-triage"),
    path("systems/<int:pk>/changes/feed/", history.SystemChangesFeed(), name="system-changes-feed"),
    path("changes/feed/", history.ChangesFeed(), name="changes-feed"),
    path("compare/", views.compare, name="compare"),
    path("", include("apps.leaderboard.scaling_urls")),
    path("", include("apps.leaderboard.study_urls")),
    path("", include("apps.leaderboard.stack_urls")),
]
