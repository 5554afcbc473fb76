from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from apps.api.changes.views import ChangeViewSet
from apps.api.custom_lists.views import CustomListViewSet
from apps.api.lists.views import EditionViewSet, RankedListViewSet
from apps.api.published.views import PublishedEditionViewSet, PublishedEntryViewSet
from apps.api.rules_editions.views import RulesEditionViewSet
from apps.api.runs.views import RunViewSet
from apps.api.scaling.views import ScalingSeriesViewSet
from apps.api.stacks.views import StackComponentViewSet, StackMeasurementViewSet, StackViewSet
from apps.api.studies.views import StudyViewSet
from apps.api.systems.views import SystemViewSet
from apps.api.uploads.views import UploadViewSet
from apps.results.models.list_kinds import LIST_KINDS

app_name = "api"

router = DefaultRouter()
router.register("runs", RunViewSet, basename="run")
router.register("systems", SystemViewSet, basename="system")
for kind in LIST_KINDS.values():
    router.register(f"lists/{kind.slug}", RankedListViewSet.for_kind(kind), basename=f"list-{kind.slug}")
router.register("editions", EditionViewSet, basename="edition")
router.register("published-editions", PublishedEditionViewSet, basename="published-edition")
router.register("published-entries", PublishedEntryViewSet, basename="published-entry")
router.register("scaling-series", ScalingSeriesViewSet, basename="scaling-series")
router.register("studies", StudyViewSet, basename="study")
router.register("stacks", StackViewSet, basename="stack")
router.register("stack-components", StackComponentViewSet, basename="stack-component")
router.register("stack-measurements", StackMeasurementViewSet, basename="stack-measurement")
router.register("uploads", UploadViewSet, basename="upload")
router.register("changes", ChangeViewSet, basename="change")
router.register("rules-editions", RulesEditionViewSet, basename="rules-edition")
router.register("custom-lists", CustomListViewSet, basename="custom-list")

urlpatterns = [
    path("", include(router.urls)),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file (the Content-Security-Policy refuses inline ones).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html"), name="redoc"),
]
