from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from apps.api import views
from apps.api.changes import ChangeViewSet
from apps.api.scaling import ScalingSeriesViewSet
from apps.api.stacks import StackComponentViewSet, StackMeasurementViewSet, StackViewSet
from apps.api.studies import StudyViewSet
from apps.results.models.list_kinds import LIST_KINDS

app_name = "api"

router = DefaultRouter()
router.register("runs", views.RunViewSet, basename="run")
router.register("systems", views.SystemViewSet, basename="system")
for kind in LIST_KINDS.values():
    router.register(f"lists/{kind.slug}", views.RankedListViewSet.for_kind(kind), basename=f"list-{kind.slug}")
router.register("editions", views.EditionViewSet, basename="edition")
router.register("scaling-series", ScalingSeriesViewSet, basename="scaling-series")
router.register("studies", StudyViewSet, basename="study")
router.register("stacks", StackViewSet, basename="stack")
router.register("stack-components", StackComponentViewSet, basename="stack-component")
router.register("stack-measurements", StackMeasurementViewSet, basename="stack-measurement")
router.register("uploads", views.UploadViewSet, basename="upload")
router.register("changes", ChangeViewSet, basename="change")
router.register("rules-editions", views.RulesEditionViewSet, basename="rules-edition")
router.register("custom-lists", views.CustomListViewSet, basename="custom-list")

urlpatterns = [
    path("", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (the Content-Security-Policy refuses inline ones).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html"), name="redoc"),
]
