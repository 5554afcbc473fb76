"""API for DNE scaling series: the series, their points and the saturation analysis.

Rates and times are the decimals mdtest printed, serialised as strings ("846368.737") so no digit
is lost to a float; ``printed`` keeps every string of the point's rows. The analysis is computed on
request from the stored points (``apps.results.judgements.scaling.analysis``), with the saturation threshold
adjustable per request.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.serializers import SystemSummarySerializer
from apps.results.judgements.scaling.analysis import (
    DEFAULT_DECLINE_TOLERANCE,
    DEFAULT_SATURATION_THRESHOLD,
    DEFAULT_VARIATION_THRESHOLD,
    ScalingAnalysis,
    analyse_points,
)
from apps.results.models import ScalingPoint, ScalingSeries


class ScalingPointSerializer(serializers.ModelSerializer):
    """One SUMMARY row: rates in ops/s (``max``...), the time table in seconds (``time_*``)."""

    class Meta:
        model = ScalingPoint
        fields = [
            "id",
            "mdt_count",
            "client_nodes",
            "tasks",
            "files_per_dir",
            "striping",
            "unique_dir",
            "operation",
            "max",
            "min",
            "mean",
            "stddev",
            "time_max",
            "time_min",
            "time_mean",
            "time_stddev",
            "iterations",
            "iteration_values",
            "printed",
            "label",
            "source_file",
            "launch_index",
            "block_index",
            "log_hash",
        ]


class MdtLevelSerializer(serializers.Serializer):
    """One MDT count of a group: its peak (best mean over client counts) and what it buys."""

    mdt_count = serializers.IntegerField()
    peak = serializers.FloatField(help_text="best mean rate over the client counts measured, ops/s")
    peak_tasks = serializers.IntegerField(source="peak_point.tasks", allow_null=True)
    peak_client_nodes = serializers.IntegerField(source="peak_point.client_nodes", allow_null=True)
    peak_min = serializers.FloatField(source="peak_point.min", allow_null=True)
    peak_max = serializers.FloatField(source="peak_point.max", allow_null=True)
    speedup = serializers.FloatField(help_text="peak / peak of the smallest MDT count")
    efficiency = serializers.FloatField(help_text="speedup / (MDT count / smallest MDT count)")
    client_saturation_tasks = serializers.IntegerField(
        source="client_saturation.tasks",
        allow_null=True,
        help_text="client tasks after which more tasks gain too little",
    )


class SaturationGroupSerializer(serializers.Serializer):
    operation = serializers.CharField(source="key.operation")
    files_per_dir = serializers.IntegerField(source="key.files_per_dir", allow_null=True)
    striping = serializers.CharField(source="key.striping")
    saturation_mdt_count = serializers.IntegerField(allow_null=True)
    levels = MdtLevelSerializer(many=True)
    warnings = serializers.ListField(child=serializers.CharField())


class NoisyPointSerializer(serializers.Serializer):
    point = serializers.IntegerField(source="point.pk")
    coefficient_of_variation = serializers.FloatField()


class ScalingAnalysisSerializer(serializers.Serializer):
    saturation_threshold = serializers.FloatField()
    decline_tolerance = serializers.FloatField()
    variation_threshold = serializers.FloatField()
    groups = SaturationGroupSerializer(many=True)
    noisy_points = NoisyPointSerializer(many=True)
    warnings = serializers.ListField(child=serializers.CharField())


class SaturationRowSerializer(serializers.Serializer):
    """The export format's saturation row; ``mdt_count`` is null when the campaign never flattened."""

    operation = serializers.CharField()
    files_per_dir = serializers.IntegerField(allow_null=True)
    striping = serializers.CharField()
    mdt_count = serializers.IntegerField(allow_null=True)


class AnalysisQuerySerializer(serializers.Serializer):
    saturation_threshold = serializers.FloatField(
        required=False, min_value=0.001, max_value=0.999, default=DEFAULT_SATURATION_THRESHOLD
    )
    decline_tolerance = serializers.FloatField(
        required=False, min_value=0, max_value=0.999, default=DEFAULT_DECLINE_TOLERANCE
    )
    variation_threshold = serializers.FloatField(required=False, min_value=0, default=DEFAULT_VARIATION_THRESHOLD)


class ScalingSeriesSummarySerializer(serializers.ModelSerializer):
    system = SystemSummarySerializer(allow_null=True)
    lustre_build = serializers.StringRelatedField(allow_null=True, help_text="the Lustre build, as text")
    point_count = serializers.IntegerField(read_only=True)
    log_count = serializers.IntegerField(read_only=True)
    min_mdt_count = serializers.IntegerField(read_only=True, allow_null=True)
    max_mdt_count = serializers.IntegerField(read_only=True, allow_null=True)
    page_url = serializers.CharField(source="get_absolute_url", read_only=True)
    study = serializers.SerializerMethodField(help_text="the id of the series' parameter study (/api/studies/<id>/)")

    class Meta:
        model = ScalingSeries
        fields = [
            "id",
            "name",
            "system",
            "lustre_build",
            "notes",
            "created_at",
            "point_count",
            "log_count",
            "min_mdt_count",
            "max_mdt_count",
            "page_url",
            "study",
        ]

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_study(self, series: ScalingSeries) -> int | None:
        study = getattr(series, "study", None)  # a series without one raises RelatedObjectDoesNotExist
        return study.pk if study else None


class ScalingSeriesDetailSerializer(ScalingSeriesSummarySerializer):
    points = ScalingPointSerializer(many=True)
    saturation = serializers.SerializerMethodField()
    analysis = serializers.SerializerMethodField()

    class Meta(ScalingSeriesSummarySerializer.Meta):
        fields = [*ScalingSeriesSummarySerializer.Meta.fields, "saturation", "analysis", "points"]

    def analysis_of(self, series: ScalingSeries) -> ScalingAnalysis:
        """Analysed once per series, however many fields read it."""
        cache = self.context.setdefault("analysis_cache", {})
        if series.pk not in cache:
            cache[series.pk] = analyse_points(series.points.all(), **self.context.get("analysis_options", {}))
        return cache[series.pk]

    @extend_schema_field(SaturationRowSerializer(many=True))
    def get_saturation(self, series: ScalingSeries) -> list[dict]:
        return self.analysis_of(series).saturation_table()

    @extend_schema_field(ScalingAnalysisSerializer)
    def get_analysis(self, series: ScalingSeries) -> dict:
        return ScalingAnalysisSerializer(self.analysis_of(series)).data
