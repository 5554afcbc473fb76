"""Serializers: the API's view of the results domain. Read-only except for the upload form."""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.ingest.models import IngestJob
from apps.results.models import (
    Anomaly,
    Edition,
    EditionEntry,
    LustreBuild,
    LustrePatch,
    PhaseResult,
    Run,
    RunFile,
    StorageSystem,
    Striping,
    Tunable,
    Upload,
)


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class SystemSummarySerializer(serializers.ModelSerializer):
    institution = serializers.CharField(source="institution.name")

    class Meta:
        model = StorageSystem
        fields = ["id", "name", "institution", "filesystem", "storage_vendor"]


class RunSummarySerializer(serializers.ModelSerializer):
    """A run as a row of a table: identity, size, scores and verdicts, no children."""

    system = SystemSummarySerializer()
    ranked = serializers.BooleanField(source="is_ranked")

    class Meta:
        model = Run
        fields = [
            "id", "system", "kind", "submission_id", "benchmark_version", "era", "year", "run_timestamp",
            "client_nodes", "client_procs", "procs_per_node", "score_total", "score_bw", "score_md",
            "reported_total", "reported_bw", "reported_md", "valid", "verification", "ranked",
            "exclusion_reason", "flagged", "upload", "created_at",
        ]


class PhaseSerializer(serializers.ModelSerializer):
    class Meta:
        model = PhaseResult
        fields = [
            "name", "position", "value", "unit", "seconds", "printed_value", "printed_unit", "score_group",
            "command", "invalid", "source_file", "source_line", "details",
        ]


class ScoresSerializer(serializers.Serializer):
    """Recomputed and reported scores side by side, with the formula that combined them."""

    bw = serializers.FloatField(source="score_bw", allow_null=True)
    md = serializers.FloatField(source="score_md", allow_null=True)
    total = serializers.FloatField(source="score_total", allow_null=True)
    reported_bw = serializers.FloatField(allow_null=True)
    reported_md = serializers.FloatField(allow_null=True)
    reported_total = serializers.FloatField(allow_null=True)
    formula = serializers.CharField(source="score_formula")
    extended = serializers.JSONField(source="extended_scores")


class VerificationSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    invalid_reasons = serializers.ListField(child=serializers.CharField())
    result_hash = serializers.CharField(source="verification")
    config_hash = serializers.CharField(source="config_hash_status")
    ranked = serializers.BooleanField(source="is_ranked")
    exclusion_reason = serializers.CharField()
    flagged = serializers.BooleanField()


class LustrePatchSerializer(serializers.ModelSerializer):
    # Plain text rather than an enum: "status" names the ingest job's states elsewhere in the schema.
    status = serializers.CharField(help_text="applied or reverted")

    class Meta:
        model = LustrePatch
        fields = ["position", "commit", "ticket", "ticket_url", "component", "summary", "review_url", "status"]


class LustreBuildSerializer(serializers.ModelSerializer):
    patches = LustrePatchSerializer(many=True)

    class Meta:
        model = LustreBuild
        fields = ["id", "server_version", "client_version", "base_tag", "base_commit", "notes", "fingerprint",
                  "patches"]


class TunableSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tunable
        fields = ["parameter", "value", "scope", "source_file", "source_line"]


class StripingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Striping
        fields = ["path_role", "stripe_count", "stripe_size", "overstriping", "dir_stripe_count", "inherited",
                  "command", "source_file", "source_line"]


class AnomalySerializer(serializers.ModelSerializer):
    class Meta:
        model = Anomaly
        fields = ["rule", "severity", "phase", "message", "evidence"]


class RunFileSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunFile
        fields = ["name", "content"]


class RunDetailSerializer(serializers.ModelSerializer):
    """Everything known about one run: what the run page shows, as data."""

    system = SystemSummarySerializer()
    scores = ScoresSerializer(source="*")
    verification = VerificationSerializer(source="*")
    phases = PhaseSerializer(many=True)
    lustre_build = LustreBuildSerializer(allow_null=True)
    tunables = TunableSerializer(many=True)
    striping = StripingSerializer(source="stripings", many=True)
    anomalies = AnomalySerializer(many=True)
    files = RunFileSerializer(many=True)

    class Meta:
        model = Run
        fields = [
            "id", "system", "kind", "submission_id", "source_path", "content_hash", "benchmark_version", "era",
            "generation", "year", "run_timestamp", "client_nodes", "client_procs", "procs_per_node", "scores",
            "verification", "phases", "config", "info", "lustre_build", "tunables", "striping", "anomalies",
            "files", "upload", "created_at", "updated_at",
        ]


class SystemSerializer(serializers.ModelSerializer):
    institution = serializers.CharField(source="institution.name")
    country = serializers.CharField(source="institution.country")
    run_count = serializers.IntegerField()
    best_score = serializers.FloatField(allow_null=True, help_text="best total score among its ranked runs")

    class Meta:
        model = StorageSystem
        fields = ["id", "name", "institution", "country", "filesystem", "storage_vendor", "server_count",
                  "run_count", "best_score"]


class SystemRunSerializer(serializers.ModelSerializer):
    ranked = serializers.BooleanField(source="is_ranked")

    class Meta:
        model = Run
        fields = ["id", "kind", "year", "run_timestamp", "client_nodes", "score_total", "score_bw", "score_md",
                  "ranked", "flagged"]


class SystemDetailSerializer(SystemSerializer):
    runs = SystemRunSerializer(many=True)

    class Meta(SystemSerializer.Meta):
        fields = [*SystemSerializer.Meta.fields, "description", "runs"]


class BadgeSerializer(serializers.ModelSerializer):
    class Meta:
        model = Anomaly
        fields = ["rule", "severity", "phase", "message"]


class ListEntrySerializer(serializers.ModelSerializer):
    """One row of a ranked list. Runs kept off the list (historic view) have no rank."""

    rank = serializers.IntegerField(allow_null=True)
    run = serializers.IntegerField(source="pk")
    system = serializers.IntegerField(source="system_id")
    system_name = serializers.CharField(source="system.name")
    institution = serializers.CharField(source="system.institution.name")
    filesystem = serializers.CharField(source="system.filesystem")
    storage_vendor = serializers.CharField(source="system.storage_vendor")
    score = serializers.FloatField(source="score_total", allow_null=True)
    score_per_node = serializers.FloatField(allow_null=True)
    bw_per_node = serializers.FloatField(allow_null=True)
    md_per_node = serializers.FloatField(allow_null=True)
    score_per_server = serializers.FloatField(allow_null=True)
    bw_per_server = serializers.FloatField(allow_null=True)
    md_per_server = serializers.FloatField(allow_null=True)
    anomalies = BadgeSerializer(source="badges", many=True)

    class Meta:
        model = Run
        fields = ["rank", "run", "system", "system_name", "institution", "filesystem", "storage_vendor",
                  "client_nodes", "client_procs", "score", "score_bw", "score_md", "score_per_node", "bw_per_node",
                  "md_per_node", "score_per_server", "bw_per_server", "md_per_server", "year", "flagged",
                  "exclusion_reason", "anomalies"]


class EditionSerializer(serializers.ModelSerializer):
    entry_count = serializers.IntegerField()

    class Meta:
        model = Edition
        fields = ["id", "name", "list_kind", "title", "description", "frozen_at", "entry_count"]


class EditionEntrySerializer(serializers.ModelSerializer):
    class Meta:
        model = EditionEntry
        fields = ["rank", "run", "system", "institution_name", "system_name", "filesystem", "storage_vendor",
                  "client_nodes", "client_procs", "score", "score_bw", "score_md", "exclusion_reason"]


class EditionDetailSerializer(EditionSerializer):
    entries = EditionEntrySerializer(many=True)

    class Meta(EditionSerializer.Meta):
        fields = [*EditionSerializer.Meta.fields, "entries"]


class CompareQuerySerializer(serializers.Serializer):
    runs = serializers.RegexField(
        r"^\d{1,12}(,\d{1,12}){1,9}$",
        help_text="2 to 10 comma-separated run ids; the first is the baseline, e.g. runs=12,15",
        error_messages={"invalid": "expected 2 to 10 comma-separated run ids, e.g. runs=12,15"},
    )

    def validate_runs(self, value: str) -> list[int]:
        return [int(part) for part in value.split(",")]


class UploadFormSerializer(serializers.Serializer):
    """The multipart upload: the file, its kind, and the optional ioboard.yaml sidecar fields."""

    METADATA_FIELDS = ("institution", "system", "filesystem", "storage_vendor", "client_nodes", "server_count",
                       "year", "submission_id", "series", "notes")

    file = serializers.FileField(
        allow_empty_file=False,
        help_text="a .tar.gz/.tgz/.zip of an IO500 result directory or submission folder, or mdtest logs",
    )
    kind = serializers.ChoiceField(choices=Upload.Kind.choices, default=Upload.Kind.IO500)
    institution = serializers.CharField(required=False, max_length=255)
    system = serializers.CharField(required=False, max_length=255)
    filesystem = serializers.CharField(required=False, max_length=255)
    storage_vendor = serializers.CharField(required=False, max_length=255)
    client_nodes = serializers.IntegerField(required=False, min_value=1)
    server_count = serializers.IntegerField(required=False, min_value=1)
    year = serializers.IntegerField(required=False, min_value=2000, max_value=2100)
    submission_id = serializers.CharField(required=False, max_length=50)
    series = serializers.CharField(required=False, max_length=255, help_text="mdtest scaling series name")
    notes = serializers.CharField(required=False)

    def metadata(self) -> dict:
        return {name: self.validated_data[name] for name in self.METADATA_FIELDS if name in self.validated_data}


class UploadAcceptedSerializer(serializers.Serializer):
    """The answer to an upload: where to poll for the ingest's outcome."""

    id = serializers.IntegerField(source="upload.pk")
    sha256 = serializers.CharField(source="upload.sha256")
    status = serializers.ChoiceField(source="job.status", choices=IngestJob.Status.choices)
    status_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_status_url(self, received) -> str:
        return self.context["request"].build_absolute_uri(reverse("api:upload-detail", args=[received.upload.pk]))


class UploadRunSerializer(serializers.ModelSerializer):
    system = SystemSummarySerializer()
    ranked = serializers.BooleanField(source="is_ranked")

    class Meta:
        model = Run
        fields = ["id", "system", "kind", "score_total", "score_bw", "score_md", "ranked", "flagged"]


class UploadStatusSerializer(serializers.ModelSerializer):
    """An upload as its latest ingest job sees it: what was received and how processing went."""

    id = serializers.IntegerField(source="upload_id")
    sha256 = serializers.CharField(source="upload.sha256")
    original_name = serializers.CharField(source="upload.original_name")
    size = serializers.IntegerField(source="upload.size")
    kind = serializers.ChoiceField(source="upload.kind", choices=Upload.Kind.choices)
    uploader = serializers.CharField(source="upload.uploader.get_username", allow_null=True, default=None)
    declared_metadata = serializers.JSONField(source="upload.declared_metadata")
    created_at = serializers.DateTimeField(source="upload.created_at")
    runs = UploadRunSerializer(many=True)

    class Meta:
        model = IngestJob
        fields = ["id", "sha256", "original_name", "size", "kind", "uploader", "declared_metadata", "created_at",
                  "status", "progress", "error", "attempts", "started_at", "finished_at", "runs"]
