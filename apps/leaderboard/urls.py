from django.urls import include, path, register_converter

from apps.leaderboard import health, views


class ListKindConverter:
    regex = "io500|ten-node|historic"

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
    path("", views.live_list, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("lists/<list:kind>/", views.live_list, name="list"),
    path("lists/<list:kind>/export.<fmt:fmt>", views.live_list_export, name="list-export"),
    path("editions/", views.edition_index, name="edition-index"),
    path("editions/<slug:name>/", views.edition_list, name="edition-detail"),
    path("editions/<slug:name>/<list:kind>/", views.edition_list, name="edition-list"),
    path("editions/<slug:name>/<list:kind>/export.<fmt:fmt>", views.edition_export, name="edition-export"),
    path("runs/<int:pk>/", views.run_detail, name="run-detail"),
    path("runs/<int:pk>/upload/", views.run_upload, name="run-upload"),
    path("systems/<int:pk>/", views.system_detail, name="system-detail"),
    path("compare/", views.compare, name="compare"),
    path("", include("apps.leaderboard.scaling_urls")),
]
