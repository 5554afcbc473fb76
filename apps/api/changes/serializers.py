"""A detected change as the API writes it, with its attribution; staff edit its status and note."""

from __future__ import annotations

from rest_framework import serializers

from apps.api.common.inputs import BoundedTextMixin
from apps.api.common.serializers import AccountNameField, SystemSummarySerializer
from apps.results.models import Change
from apps.results.services.changes.history import triage


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
    triaged_by = AccountNameField(help_text="who triaged it (for signed-in readers; null for anonymous ones)")
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
