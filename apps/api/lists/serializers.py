"""Ranked lists and frozen editions: their entries, scores, badges and awards."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.inputs import BoundedTextMixin
from apps.api.common.serializers import RANKED_HELP, CitationSerializer
from apps.api.rules_editions.serializers import RulesEditionByName
from apps.results.models import Anomaly, Edition, EditionEntry, ListEntry
from apps.results.models.list_columns import NORMALISED_COLUMNS
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.citations import cite


class EntryScoreSerializer(serializers.Serializer):
    """An edition entry's frozen score, in the same {bw, md, total} shape."""

    bw = serializers.FloatField(source="score_bw", allow_null=True, help_text="GiB/s")
    md = serializers.FloatField(source="score_md", allow_null=True, help_text="kIOPS")
    total = serializers.FloatField(source="score", allow_null=True)


class BadgeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Anomaly
        fields = ["rule", "severity", "phase", "message"]


#: The per-node and per-server scores of a list row: one field per normalised list column, named by its key.
NormalisedScoresSerializer = type(
    "NormalisedScoresSerializer",
    (serializers.Serializer,),
    {
        column.key: serializers.FloatField(allow_null=True, help_text=column.description)
        for column in NORMALISED_COLUMNS
    },
)


class ListEntrySerializer(NormalisedScoresSerializer, serializers.ModelSerializer):
    """One row of a ranked list, from its maintained entry. Runs kept off the list (historic view) have no rank."""

    rank = serializers.IntegerField(allow_null=True)
    ranked = serializers.BooleanField(help_text=RANKED_HELP + "; the historic list also shows runs it does not rank")
    run = serializers.IntegerField(source="run_id")
    system = serializers.IntegerField(source="system_id")
    institution = serializers.CharField(source="institution_name")
    score = EntryScoreSerializer(source="*")
    anomalies = BadgeSerializer(source="badges", many=True)
    citation = serializers.SerializerMethodField()

    class Meta:
        model = ListEntry
        fields = [
            "rank",
            "ranked",
            "run",
            "system",
            "system_name",
            "institution",
            "filesystem",
            "storage_vendor",
            "client_nodes",
            "client_procs",
            "score",
            *(column.key for column in NORMALISED_COLUMNS),
            "year",
            "flagged",
            "exclusion_reason",
            "anomalies",
            "citation",
        ]

    @extend_schema_field(CitationSerializer(allow_null=True))
    def get_citation(self, entry) -> dict | None:
        """The row's placement on this live list, cited; null for unranked rows."""
        citation = cite(entry.rank, self.context["list_kind"], "", entry.verification)
        return citation.to_dict() if citation else None


class EditionSerializer(serializers.ModelSerializer):
    entry_count = serializers.IntegerField()
    rules_edition = serializers.SlugRelatedField(slug_field="name", read_only=True, allow_null=True)

    class Meta:
        model = Edition
        fields = ["id", "name", "list_kind", "title", "description", "frozen_at", "entry_count", "rules_edition"]


class EditionEntrySerializer(serializers.ModelSerializer):
    score = EntryScoreSerializer(source="*")
    citation = serializers.SerializerMethodField()

    class Meta:
        model = EditionEntry
        fields = [
            "rank",
            "run",
            "system",
            "institution_name",
            "system_name",
            "filesystem",
            "storage_vendor",
            "client_nodes",
            "client_procs",
            "score",
            "exclusion_reason",
            "citation",
        ]

    @extend_schema_field(CitationSerializer(allow_null=True))
    def get_citation(self, entry) -> dict | None:
        """The entry's placement on the frozen list, cited; verified when its run's score hash verified."""
        citation = cite(entry.rank, entry.edition.list_kind, entry.edition.name, entry.run_verification or "")
        return citation.to_dict() if citation else None


class EditionDetailSerializer(EditionSerializer):
    entries = EditionEntrySerializer(many=True)

    class Meta(EditionSerializer.Meta):
        fields = [*EditionSerializer.Meta.fields, "entries"]


class FreezeSerializer(BoundedTextMixin, serializers.Serializer):
    """Freeze an edition (a BoF) of every list frozen by default, or of the lists named."""

    name = serializers.SlugField(max_length=50)
    lists = serializers.ListField(child=serializers.ChoiceField(choices=list(LIST_KINDS)), required=False)
    title = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=Edition._meta.get_field("title").max_length
    )
    description = serializers.CharField(required=False, allow_blank=True, default="")
    rules_edition = RulesEditionByName(required=False, allow_null=True, default=None)


class AwardWinnerSerializer(serializers.Serializer):
    run = serializers.IntegerField(allow_null=True)
    system = serializers.CharField()
    institution = serializers.CharField()
    rank = serializers.IntegerField()
    score = serializers.FloatField(allow_null=True)
    score_bw = serializers.FloatField(allow_null=True)
    score_md = serializers.FloatField(allow_null=True)
    value = serializers.FloatField()


class AwardSerializer(serializers.Serializer):
    edition = serializers.CharField()
    list = serializers.CharField()
    list_title = serializers.CharField()
    category = serializers.ChoiceField(choices=["overall", "bandwidth", "metadata"])
    winner = AwardWinnerSerializer(allow_null=True)
