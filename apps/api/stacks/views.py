"""Stacks, their components and their measurements: read by everyone, but a stack an upload still embargoed
stored is its account's and staff's only (apps.results.models.visibility)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.api.common.viewsets import ApiDefaults
from apps.api.stacks.serializers import StackComponentSerializer, StackMeasurementSerializer, StackSerializer
from apps.results.models import Stack, StackComponent, StackMeasurement
from apps.results.models.visibility import owned_visible_condition
from apps.results.services.stack_export import stack_to_dict


class StackViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Stacks: the hardware under a file system, measured layer by layer, and the ceiling it gives."""

    serializer_class = StackSerializer
    lookup_field = "name"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    filterset_fields = {"name": ["exact", "icontains"], "system__id": ["exact"]}

    def get_queryset(self):
        return (
            Stack.objects.filter(owned_visible_condition(self.request.user))
            .select_related("system__institution")
            .order_by("name")
        )

    @extend_schema(responses=OpenApiTypes.OBJECT, filters=False)
    @action(detail=True, methods=["get"], filter_backends=[])
    def export(self, request, name=None):
        """The stack as ``export_stack --format json`` writes it: layers, outliers, ceiling, file_system."""
        return Response(stack_to_dict(self.get_object()))


class StackComponentViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """The components of the stacks (drives, groups, arrays, local file systems, OSTs, links, LNet)."""

    serializer_class = StackComponentSerializer
    filterset_fields = {"stack__name": ["exact"], "layer": ["exact"], "server__name": ["exact"], "spec": ["exact"]}

    def get_queryset(self):
        return (
            StackComponent.objects.filter(owned_visible_condition(self.request.user, "stack__"))
            .select_related("stack", "server")
            .prefetch_related("below")
            .order_by("stack__name", "name")
        )


class StackMeasurementViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """One row per measured component (or file-system run) and operation, with what it means."""

    serializer_class = StackMeasurementSerializer
    filterset_fields = {
        "stack__name": ["exact"],
        "layer": ["exact"],
        "operation": ["exact"],
        "is_outlier": ["exact"],
        "over_ceiling": ["exact"],
        "tool": ["exact"],
    }

    def get_queryset(self):
        return (
            StackMeasurement.objects.filter(owned_visible_condition(self.request.user, "stack__"))
            .select_related("stack", "component")
            .order_by("stack__name", "position")
        )
