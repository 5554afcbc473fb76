"""Serializers several API features share: the rows many answers repeat (a system, a run in summary), errors
and citations."""

from functools import cached_property

from rest_framework import serializers
from rest_framework.fields import Field, SkipField
from rest_framework.relations import PKOnlyObject

from apps.results.models import Run, StorageSystem

#: The two verdicts every run answer carries (apps.results.models.list_kinds: one definition of each).
ELIGIBLE_HELP = "may be ranked by its files and verdicts (valid, scored, not excluded), whatever its review"
RANKED_HELP = "visible as ranked: eligible and accepted by the committee (submitted or rejected runs are not)"


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


_ABSENT = object()


class ManyRowsSerializer(serializers.Serializer):
    """A serializer written many times into one answer (a list page's rows, their badges): its readable fields are
    looked up once per serializer, and a field whose source is one plain attribute (a model column or an
    annotation) is read with getattr instead of `Field.get_attribute`, whose generic path (a mapping check and a
    callable check per value, a try per field) was most of writing a page of rows. Any other field (a nested
    serializer, a method field, a dotted source), and any value that is absent or callable, takes DRF's own path,
    so the answer is the one DRF writes (tests/api/common/test_many_rows_serializer.py compares them)."""

    @cached_property
    def _plain_attributes(self) -> list[tuple[Field, str | None]]:
        """(field, the attribute it reads when that is one plain name, else None), in the fields' order."""
        return [
            (field, field.source_attrs[0] if len(field.source_attrs) == 1 and type(field) in PLAIN_FIELDS else None)
            for field in self._readable_fields
        ]

    def to_representation(self, instance):
        row = {}
        for field, attribute in self._plain_attributes:
            value = _ABSENT if attribute is None else getattr(instance, attribute, _ABSENT)
            if value is _ABSENT or callable(value):
                try:
                    value = field.get_attribute(instance)
                except SkipField:
                    continue
                if isinstance(value, PKOnlyObject):
                    row[field.field_name] = None if value.pk is None else field.to_representation(value)
                    continue
            row[field.field_name] = None if value is None else field.to_representation(value)
        return row


#: Fields whose value is one attribute written as it is (ManyRowsSerializer reads them directly).
PLAIN_FIELDS = (
    serializers.BooleanField,
    serializers.CharField,
    serializers.ChoiceField,
    serializers.FloatField,
    serializers.IntegerField,
)


class SystemSummarySerializer(ManyRowsSerializer, serializers.ModelSerializer):
    institution = serializers.CharField(source="institution.name")

    class Meta:
        model = StorageSystem
        fields = ["id", "name", "institution", "filesystem", "storage_vendor"]


class RunSummarySerializer(ManyRowsSerializer, serializers.ModelSerializer):
    """A run as a row of a table (the runs collection, a page of fifty): identity, size, scores and verdicts, no
    children."""

    system = SystemSummarySerializer()
    eligible = serializers.BooleanField(source="is_eligible", help_text=ELIGIBLE_HELP)
    ranked = serializers.BooleanField(source="is_ranked", help_text=RANKED_HELP)

    class Meta:
        model = Run
        fields = [
            "id",
            "system",
            "kind",
            "submission_id",
            "benchmark_version",
            "era",
            "year",
            "run_timestamp",
            "client_nodes",
            "client_procs",
            "procs_per_node",
            "score_total",
            "score_bw",
            "score_md",
            "reported_total",
            "reported_bw",
            "reported_md",
            "valid",
            "verification",
            "eligible",
            "ranked",
            "review_status",
            "exclusion_reason",
            "flagged",
            "upload",
            "created_at",
        ]


class CitationSerializer(serializers.Serializer):
    """A placement cited as the IO500 messaging policy asks: "#5 on the Production list at SC25", verified or not."""

    text = serializers.CharField()
    label = serializers.ChoiceField(choices=["verified", "unverified"])
    list = serializers.CharField()
    edition = serializers.CharField(allow_null=True)
