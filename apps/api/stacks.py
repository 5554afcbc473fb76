"""API for stacks (bottom-up benchmarking campaigns): the stacks with their ceilings, their components and
their measurements, read by everyone. A campaign is uploaded as an archive through ``/uploads/`` with
``kind=stack`` (and optionally ``stack`` = its name); the upload's Celery job stores it.

``/stacks/{name}/export/`` gives the ``export_stack --format json`` object (``apps.results.services.stack_export``).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from apps.api.serializers import SystemSummarySerializer
from apps.api.views import ApiDefaults
from apps.results.models import Stack, StackComponent, StackMeasurement
from apps.results.services.stack_export import stack_to_dict


class StackSerializer(serializers.ModelSerializer):
    system = SystemSummarySerializer(allow_null=True)
    page_url = serializers.CharField(source="get_absolute_url", read_only=True)
    ceiling = serializers.SerializerMethodField()

    class Meta:
        model = Stack
        fields = [
            "name",
            "file_system_name",
            "file_system",
            "system",
            "ceiling",
            "storage_sources",
            "created_at",
            "page_url",
        ]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_ceiling(self, stack: Stack) -> dict:
        """MB/s per operation, what limits it, and the storage and network sums it is the smaller of."""
        return {
            "read": stack.ceiling_read,
            "write": stack.ceiling_write,
            "limited_by": stack.limited_by,
            "storage": stack.storage_sum,
            "network": stack.network_sum,
        }


class StackComponentSerializer(serializers.ModelSerializer):
    stack = serializers.CharField(source="stack.name")
    server = serializers.CharField(source="server.name")
    roles = serializers.JSONField(source="server.roles")
    below = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)

    class Meta:
        model = StackComponent
        fields = ["id", "stack", "name", "layer", "server", "roles", "spec", "attributes", "below"]


class StackMeasurementSerializer(serializers.ModelSerializer):
    stack = serializers.CharField(source="stack.name")
    component = serializers.CharField(source="component.name", allow_null=True, default=None)

    class Meta:
        model = StackMeasurement
        fields = [
            "id",
            "stack",
            "component",
            "layer",
            "operation",
            "measured",
            "unit",
            "expected",
            "efficiency",
            "peer_median",
            "is_outlier",
            "over_ceiling",
            "tool",
            "tool_version",
            "source",
            "source_line",
            "printed",
        ]
        extra_kwargs = {"expected": {"help_text": "file-system rows: the ceiling"}}


class StackViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Stacks: the hardware under a file system, measured layer by layer, and the ceiling it gives."""

    serializer_class = StackSerializer
    lookup_field = "name"
    lookup_value_regex = r"[-a-zA-Z0-9_]+"
    filterset_fields = {"name": ["exact", "icontains"], "system__id": ["exact"]}

    def get_queryset(self):
        return Stack.objects.select_related("system__institution").order_by("name")

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
            StackComponent.objects.select_related("stack", "server")
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
        return StackMeasurement.objects.select_related("stack", "component").order_by("stack__name", "position")
