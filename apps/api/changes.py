"""API for detected changes: steps and outliers in a system's history, and their triage by staff.

Reading is open; changing a change's ``status`` or ``note`` (PATCH) is for staff, and records who and when.
Everything else about a change is detection output (`python manage.py detect_changes`, or after an ingest).
"""

from __future__ import annotations

import django_filters as filters
from rest_framework import mixins, serializers, viewsets
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticatedOrReadOnly

from apps.api.filters import IntegerFilter
from apps.api.inputs import BoundedTextMixin
from apps.api.serializers import SystemSummarySerializer
from apps.api.views import ApiDefaults
from apps.results.models import Change
from apps.results.services.changes.history import triage


class IsStaffOrReadOnly(BasePermission):
    message = "Only staff may triage changes."

    def has_permission(self, request, view) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_staff)


class AttributionSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="e.g. patch:LU-16338 …, lustre.server_version, tunable:…, client_nodes")
    before = serializers.CharField(allow_null=True)
    after = serializers.CharField(allow_null=True)


class ChangeSerializer(BoundedTextMixin, serializers.ModelSerializer):
    system = SystemSummarySerializer(read_only=True)
    attribution = AttributionSerializer(
        many=True,
        read_only=True,
        help_text="what differs between the two runs, most specific first; empty = unexplained",
    )
    triaged_by = serializers.SlugRelatedField(slug_field="username", read_only=True)
    p_value = serializers.FloatField(
        read_only=True, allow_null=True, help_text="two-sided p-value of z: a shift this large from noise alone"
    )

    class Meta:
        model = Change
        fields = ["id", *Change.SHOWN_FIELDS]
        read_only_fields = [name for name in fields if name not in Change.TRIAGE_FIELDS]

    def update(self, instance, validated_data):
        return triage(
            instance,
            status=validated_data.get("status"),
            note=validated_data.get("note"),
            user=self.context["request"].user,
        )


class ChangeFilter(filters.FilterSet):
    system = IntegerFilter(field_name="system_id", help_text="storage system id")
    metric = filters.CharFilter(help_text="phase name (mdtest_easy_write...), score, score_bw or score_md")
    kind = filters.ChoiceFilter(choices=Change.Kind.choices)
    status = filters.ChoiceFilter(choices=Change.Status.choices)
    detected = filters.BooleanFilter(help_text="false: no longer found by the latest detection, kept for its triage")

    class Meta:
        model = Change
        fields = ["system", "metric", "kind", "status", "detected"]


class ChangeViewSet(ApiDefaults, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    """Steps and outliers found in every metric of each system's history, newest first, with what changed."""

    serializer_class = ChangeSerializer
    filterset_class = ChangeFilter
    permission_classes = [IsAuthenticatedOrReadOnly, IsStaffOrReadOnly]
    http_method_names = ["get", "patch", "head", "options"]
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        return (
            Change.objects.visible()
            .select_related("system__institution", "triaged_by")
            .order_by("-run_after__run_timestamp", "system_id", "metric", "-pk")
        )
