"""API for stacks (bottom-up benchmarking campaigns): the stacks with their ceilings, their components and
their measurements, read by everyone. A campaign is uploaded as an archive through ``/uploads/`` with
``kind=stack`` (and optionally ``stack`` = its name); the upload's Celery job stores it.

``/stacks/{name}/export/`` gives the ``export_stack --format json`` object (``apps.results.services.stack_export``).
"""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.serializers import SystemSummarySerializer
from apps.results.models import Stack, StackComponent, StackMeasurement


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
