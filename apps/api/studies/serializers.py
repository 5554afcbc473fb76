"""API for parameter studies: the studies, their points (values as IOR printed them) and comparisons.

Printed values are strings ("3378.82", "NA") so no digit is lost. The comparisons are computed on
request from the stored points (``apps.results.judgements.studies``), with the same shape as
``export_study --format json``.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.serializers import SystemSummarySerializer
from apps.results.judgements.studies.analysis import Verdict, axis_names, comparisons_of
from apps.results.models import Study, StudyPoint


class StudyPointSerializer(serializers.ModelSerializer):
    class Meta:
        model = StudyPoint
        fields = [
            "id",
            "axes",
            "operation",
            "max",
            "min",
            "mean",
            "stddev",
            "iterations",
            "source",
            "source_line",
            "test_index",
            "log_hash",
        ]


class ComparisonSerializer(serializers.Serializer):
    """One pair of values of one axis with the other axes fixed: Welch on log bandwidths, Holm-corrected."""

    operation = serializers.CharField()
    axis = serializers.CharField()
    a = serializers.JSONField()
    b = serializers.JSONField()
    fixed = serializers.JSONField()
    p_value = serializers.FloatField(allow_null=True, help_text="Holm-adjusted within the group (Welch on job means)")
    ratio = serializers.FloatField(allow_null=True, help_text="ratio of the geometric means of a's and b's job means")
    ratio_ci = serializers.ListField(
        child=serializers.FloatField(),
        allow_null=True,
        min_length=2,
        max_length=2,
        help_text="95 % confidence interval of the ratio; null when not testable",
    )
    jobs = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=2,
        max_length=2,
        help_text="jobs (logs) on each side; fewer than 2 on a side is not testable",
    )
    significant = serializers.BooleanField(help_text="whether the verdict is different")
    verdict = serializers.ChoiceField(choices=[v.value for v in Verdict])
    verdict_sentence = serializers.CharField(help_text="the comparison in words")


class StudySummarySerializer(serializers.ModelSerializer):
    system = SystemSummarySerializer(allow_null=True)
    lustre_build = serializers.StringRelatedField(allow_null=True)
    point_count = serializers.IntegerField(read_only=True)
    log_count = serializers.IntegerField(read_only=True)
    page_url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = Study
        fields = [
            "id",
            "name",
            "system",
            "filesystem",
            "lustre_build",
            "notes",
            "created_at",
            "point_count",
            "log_count",
            "page_url",
            "unit",
            "margin",
            "scaling_series",
        ]
        extra_kwargs = {"scaling_series": {"help_text": "the DNE scaling series this study is written from, if any"}}


class StudyDetailSerializer(StudySummarySerializer):
    axes = serializers.SerializerMethodField()
    points = StudyPointSerializer(many=True)
    comparisons = serializers.SerializerMethodField()

    class Meta(StudySummarySerializer.Meta):
        fields = [*StudySummarySerializer.Meta.fields, "axes", "comparisons", "points"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_axes(self, study: Study) -> list[str]:
        return axis_names(study.ordered_points())

    @extend_schema_field(ComparisonSerializer(many=True))
    def get_comparisons(self, study: Study) -> list[dict]:
        return [
            {**comparison.as_dict(), "verdict_sentence": comparison.verdict}
            for comparison in comparisons_of(study.compare())
        ]
