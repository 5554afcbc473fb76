"""DNE scaling series: read by everyone, with their saturation analysis."""

from __future__ import annotations

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets

from apps.api.common.viewsets import ApiDefaults
from apps.api.scaling.serializers import (
    AnalysisQuerySerializer,
    ScalingSeriesDetailSerializer,
    ScalingSeriesSummarySerializer,
)
from apps.results.models import ScalingPoint, ScalingSeries
from apps.results.models.visibility import owned_visible_condition


class ScalingSeriesViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """DNE scaling series (campaigns of mdtest runs over MDT and client counts). The list gives each
    series' size; the detail adds every point and the saturation analysis per operation, files per
    directory and striping (thresholds adjustable with query parameters)."""

    filterset_fields = {"name": ["exact", "icontains"]}
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        series = (
            ScalingSeries.with_counts(self.request.user)
            .filter(owned_visible_condition(self.request.user))
            .select_related("study")
            .order_by("name", "pk")
        )
        if self.action == "retrieve":
            points = ScalingPoint.objects.filter(owned_visible_condition(self.request.user)).order_by(
                "operation", "files_per_dir", "striping", "mdt_count", "tasks", "pk"
            )
            series = series.prefetch_related(Prefetch("points", queryset=points))
        return series

    def get_serializer_class(self):
        return ScalingSeriesDetailSerializer if self.action == "retrieve" else ScalingSeriesSummarySerializer

    @extend_schema(parameters=[AnalysisQuerySerializer])
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request, *args, **kwargs)

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if self.action == "retrieve":
            query = AnalysisQuerySerializer(data=self.request.query_params)
            query.is_valid(raise_exception=True)
            context["analysis_options"] = dict(query.validated_data)
        return context
