from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView
from rest_framework.routers import DefaultRouter

from apps.api import views
from apps.api.scaling import ScalingSeriesViewSet

app_name = "api"

router = DefaultRouter()
router.register("runs", views.RunViewSet, basename="run")
router.register("systems", views.SystemViewSet, basename="system")
router.register("lists/io500", views.IO500ListViewSet, basename="list-io500")
router.register("lists/ten-node", views.TenNodeListViewSet, basename="list-ten-node")
router.register("lists/historic", views.HistoricListViewSet, basename="list-historic")
router.register("editions", views.EditionViewSet, basename="edition")
router.register("scaling-series", ScalingSeriesViewSet, basename="scaling-series")
router.register("uploads", views.UploadViewSet, basename="upload")

urlpatterns = [
    path("", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema"), name="redoc"),
]
