"""A run in full (phases, scores, verification, build, files, citations) and the committee's review forms."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.inputs import BoundedTextMixin
from apps.api.common.serializers import ELIGIBLE_HELP, RANKED_HELP, CitationSerializer, SystemSummarySerializer
from apps.api.rules_editions.serializers import RulesEditionByName
from apps.results.judgements.reproducibility import LEVELS
from apps.results.models import (
    Anomaly,
    LustreBuild,
    LustrePatch,
    PhaseResult,
    ReviewNote,
    ReviewStatus,
    Run,
    RunFile,
    Striping,
    Tunable,
)
from apps.results.services.citations import run_citations
from apps.results.services.review import reproducibility_report


class PhaseSerializer(serializers.ModelSerializer):
    class Meta:
        model = PhaseResult
        fields = [
            "name",
            "position",
            "value",
            "unit",
            "seconds",
            "printed_value",
            "printed_unit",
            "score_group",
            "command",
            "invalid",
            "source_file",
            "source_line",
            "details",
        ]


class ScoreSerializer(serializers.Serializer):
    """The recomputed score as the run's export record has it (``apps.results.services.export.score_record``)."""

    bw = serializers.FloatField(source="score_bw", allow_null=True, help_text="GiB/s")
    md = serializers.FloatField(source="score_md", allow_null=True, help_text="kIOPS")
    total = serializers.FloatField(source="score_total", allow_null=True)


class ReportedScoreSerializer(serializers.Serializer):
    """The score the benchmark printed, in the same {bw, md, total} shape."""

    bw = serializers.FloatField(source="reported_bw", allow_null=True, help_text="GiB/s")
    md = serializers.FloatField(source="reported_md", allow_null=True, help_text="kIOPS")
    total = serializers.FloatField(source="reported_total", allow_null=True)


class VerificationSerializer(serializers.Serializer):
    valid = serializers.BooleanField()
    invalid_reasons = serializers.ListField(child=serializers.CharField())
    result_hash = serializers.CharField(source="verification")
    config_hash = serializers.CharField(source="config_hash_status")
    eligible = serializers.BooleanField(source="is_eligible", help_text=ELIGIBLE_HELP)
    ranked = serializers.BooleanField(source="is_ranked", help_text=RANKED_HELP)
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
        fields = [
            "id",
            "server_version",
            "client_version",
            "base_tag",
            "base_commit",
            "notes",
            "fingerprint",
            "patches",
        ]


class TunableSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tunable
        fields = ["parameter", "value", "scope", "source_file", "source_line"]


class StripingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Striping
        fields = [
            "path_role",
            "stripe_count",
            "stripe_size",
            "overstriping",
            "dir_stripe_count",
            "inherited",
            "command",
            "source_file",
            "source_line",
        ]


class AnomalySerializer(serializers.ModelSerializer):
    class Meta:
        model = Anomaly
        fields = ["rule", "severity", "phase", "message", "evidence"]


class RunFileSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunFile
        fields = ["name", "content"]


def _is_staff(serializer) -> bool:
    request = serializer.context.get("request")
    return bool(request and request.user.is_staff)


class RunDetailSerializer(serializers.ModelSerializer):
    """Everything known about one run: what the run page shows, as data."""

    system = SystemSummarySerializer()
    score = ScoreSerializer(source="*")
    reported_score = ReportedScoreSerializer(source="*")
    verification = VerificationSerializer(source="*")
    phases = PhaseSerializer(many=True)
    lustre_build = LustreBuildSerializer(allow_null=True)
    tunables = TunableSerializer(many=True)
    striping = StripingSerializer(source="stripings", many=True)
    anomalies = AnomalySerializer(many=True)
    files = RunFileSerializer(many=True)
    citations = serializers.SerializerMethodField()
    reproducibility = serializers.SerializerMethodField()
    edition = serializers.CharField(source="upload.edition", default="", help_text="the edition it was submitted to")
    embargo_until = serializers.DateTimeField(source="upload.embargo_until", default=None, allow_null=True)
    embargoed = serializers.BooleanField(help_text="private until released: seen by its account and staff only")

    class Meta:
        model = Run
        fields = [
            "id",
            "system",
            "kind",
            "submission_id",
            "source_path",
            "content_hash",
            "benchmark_version",
            "era",
            "generation",
            "year",
            "run_timestamp",
            "client_nodes",
            "client_procs",
            "procs_per_node",
            "score",
            "reported_score",
            "score_formula",
            "extended_scores",
            "verification",
            "phases",
            "config",
            "info",
            "lustre_build",
            "tunables",
            "striping",
            "anomalies",
            "files",
            "upload",
            "created_at",
            "updated_at",
            "review_status",
            "edition",
            "embargo_until",
            "embargoed",
            "citations",
            "reproducibility",
        ]

    @extend_schema_field(CitationSerializer(many=True))
    def get_citations(self, run) -> list[dict]:
        return [citation.to_dict() for citation in run_citations(run)]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_reproducibility(self, run) -> dict:
        """Completeness, proposed level, the submitter's targets and declaration; the committee's level for staff."""
        return reproducibility_report(run, staff=_is_staff(self))


class CompareQuerySerializer(BoundedTextMixin, serializers.Serializer):
    runs = serializers.RegexField(
        r"^\d{1,12}(,\d{1,12}){1,9}$",
        help_text="2 to 10 comma-separated run ids; the first is the baseline, e.g. runs=12,15",
        error_messages={"invalid": "expected 2 to 10 comma-separated run ids, e.g. runs=12,15"},
    )

    def validate_runs(self, value: str) -> list[int]:
        return [int(part) for part in value.split(",")]


class ReviewSerializer(BoundedTextMixin, serializers.Serializer):
    """The committee's decisions on a run (staff only); each field optional, a note recorded with them."""

    status = serializers.ChoiceField(choices=ReviewStatus.choices, required=False)
    level = serializers.ChoiceField(
        choices=list(LEVELS.items()), required=False, help_text="the reproducibility level the committee assigns"
    )
    production_accepted = serializers.BooleanField(required=False, allow_null=True, default=None)
    note = serializers.CharField(required=False, allow_blank=True, default="")
    for_submitter = serializers.BooleanField(
        required=False,
        default=False,
        help_text="the note is meant for the submitter (My submissions, the decision's mail); "
        "otherwise the committee's own",
    )


class ReviewNoteSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.get_username", allow_null=True, default=None)
    status = serializers.CharField(help_text="the review status set with this note; empty when none")

    class Meta:
        model = ReviewNote
        fields = ["author", "text", "status", "for_submitter", "created_at"]


class CheckSerializer(BoundedTextMixin, serializers.Serializer):
    rules_edition = RulesEditionByName()
    item = serializers.CharField(max_length=255)
    passed = serializers.BooleanField()
    note = serializers.CharField(required=False, allow_blank=True, default="")
