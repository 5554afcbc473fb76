"""Storage systems: the collection's rows and a system with its runs."""

from rest_framework import serializers

from apps.api.common.serializers import RunSummarySerializer
from apps.results.models import StorageSystem


class SystemSerializer(serializers.ModelSerializer):
    institution = serializers.CharField(source="institution.name")
    country = serializers.CharField(source="institution.country")
    run_count = serializers.IntegerField()
    best_score = serializers.FloatField(allow_null=True, help_text="best total score among its ranked runs")

    class Meta:
        model = StorageSystem
        fields = [
            "id",
            "name",
            "institution",
            "country",
            "filesystem",
            "storage_vendor",
            "server_count",
            "run_count",
            "best_score",
        ]


class SystemRunSerializer(RunSummarySerializer):
    """A run as its system's detail lists it: the summary row without the system it is listed under."""

    class Meta(RunSummarySerializer.Meta):
        fields = [
            "id",
            "kind",
            "year",
            "run_timestamp",
            "client_nodes",
            "score_total",
            "score_bw",
            "score_md",
            "eligible",
            "ranked",
            "review_status",
            "flagged",
        ]


class SystemDetailSerializer(SystemSerializer):
    runs = SystemRunSerializer(many=True)

    class Meta(SystemSerializer.Meta):
        fields = [*SystemSerializer.Meta.fields, "description", "runs"]
