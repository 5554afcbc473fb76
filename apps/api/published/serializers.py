"""io500.org's published record: its editions, their rows as published, their change log and their audit."""

from rest_framework import serializers

from apps.results.models import Edition, EditionEntry, PublishedChange


class PublishedEditionSerializer(serializers.ModelSerializer):
    entry_count = serializers.IntegerField(read_only=True)
    linked_count = serializers.IntegerField(read_only=True, help_text="entries whose raw files were ingested")

    class Meta:
        model = Edition
        fields = [
            "id",
            "name",
            "list_kind",
            "title",
            "source",
            "description",
            "released_on",
            "entry_count",
            "linked_count",
        ]


class PublishedEntrySerializer(serializers.ModelSerializer):
    release = serializers.CharField(source="edition.name", read_only=True)
    list_kind = serializers.CharField(source="edition.list_kind", read_only=True)
    run = serializers.IntegerField(source="run_id", allow_null=True, help_text="the run of its submission-N folder")
    submission_id = serializers.IntegerField(source="submission_number", allow_null=True)
    published = serializers.JSONField(help_text="its phase values and declared system information, as published")

    class Meta:
        model = EditionEntry
        fields = [
            "id",
            "edition",
            "release",
            "list_kind",
            "rank",
            "submission_id",
            "score",
            "score_bw",
            "score_md",
            "system_name",
            "institution_name",
            "storage_vendor",
            "filesystem",
            "client_nodes",
            "client_procs",
            "run",
            "published",
        ]


class PublishedChangeSerializer(serializers.ModelSerializer):
    submission_id = serializers.IntegerField(source="submission_number", allow_null=True)

    class Meta:
        model = PublishedChange
        fields = ["file", "line", "action", "table", "submission_id", "field", "before", "after"]


class DifferenceSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="the score part, the phase or the node count")
    published = serializers.FloatField(allow_null=True)
    recomputed = serializers.FloatField(allow_null=True)
    cause = serializers.CharField(help_text="a recognised cause, else 'unexplained'")


class RankMoveSerializer(serializers.Serializer):
    published_place = serializers.IntegerField(help_text="among the list's linked entries, in published order")
    reconstructed_rank = serializers.IntegerField(allow_null=True, help_text="by the runs' recomputed scores")
    move = serializers.IntegerField(allow_null=True, help_text="places gained (+) or lost (-) when ranked by the files")
    reason = serializers.CharField(help_text="why there is no reconstructed rank")


class AuditedEntrySerializer(serializers.Serializer):
    rank = serializers.IntegerField(source="entry.rank")
    submission_id = serializers.IntegerField(source="entry.submission_number", allow_null=True)
    system_name = serializers.CharField(source="entry.system_name")
    score = serializers.FloatField(source="entry.score", allow_null=True)
    run = serializers.IntegerField(source="entry.run_id", allow_null=True)
    recomputed_score = serializers.SerializerMethodField()
    differences = DifferenceSerializer(many=True, allow_null=True, help_text="null: raw files not ingested")
    move = RankMoveSerializer(allow_null=True)

    def get_recomputed_score(self, row) -> float | None:
        return row.entry.run.score_total if row.entry.run_id else None


class AuditSummarySerializer(serializers.Serializer):
    release = serializers.CharField()
    list = serializers.CharField()
    title = serializers.CharField()
    entries = serializers.IntegerField()
    with_raw_files = serializers.IntegerField()
    agree = serializers.IntegerField()
    differ = serializers.IntegerField()
