"""Parameter studies: read by everyone, with their comparisons."""

from __future__ import annotations

from django.db.models import Prefetch
from rest_framework import viewsets

from apps.api.common.viewsets import ApiDefaults
from apps.api.studies.serializers import StudyDetailSerializer, StudySummarySerializer
from apps.results.models import Study, StudyPoint
from apps.results.models.visibility import owned_visible_condition


class StudyViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Parameter studies (IOR runs over named axes). The list gives each study's size; the detail adds
    every point and the pairwise comparisons of every varying axis."""

    filterset_fields = {"name": ["exact", "icontains"]}
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        studies = (
            Study.with_counts(self.request.user)
            .filter(owned_visible_condition(self.request.user))
            .order_by("name", "pk")
        )
        if self.action == "retrieve":
            points = StudyPoint.objects.filter(owned_visible_condition(self.request.user)).order_by(
                "source", "test_index", "operation", "pk"
            )
            studies = studies.prefetch_related(Prefetch("points", queryset=points))
        return studies

    def get_serializer_class(self):
        return StudyDetailSerializer if self.action == "retrieve" else StudySummarySerializer
