"""Serializers several API features share: the rows many answers repeat (a system, a run in summary), errors
and citations."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.results.models import Run, StorageSystem

#: The two verdicts every run answer carries (apps.results.models.list_kinds: one definition of each).
ELIGIBLE_HELP = "may be ranked by its files and verdicts (valid, scored, not excluded), whatever its review"
RANKED_HELP = "visible as ranked: eligible and accepted by the committee (submitted or rejected runs are not)"


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


class SystemSummarySerializer(serializers.ModelSerializer):
    institution = serializers.CharField(source="institution.name")

    class Meta:
        model = StorageSystem
        fields = ["id", "name", "institution", "filesystem", "storage_vendor"]


class RunSummarySerializer(serializers.ModelSerializer):
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


@extend_schema_field({"type": "string", "nullable": True})
class AccountNameField(serializers.Field):
    """The user name of the account behind a write (a triage, a review note): staff's user names are sign-in
    names, so an anonymous reader gets null; a signed-in reader sees the name."""

    def __init__(self, **kwargs):
        kwargs.setdefault("read_only", True)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_representation(self, user) -> str | None:
        request = self.context.get("request")
        if user is None or request is None or not request.user.is_authenticated:
            return None
        return user.get_username()
