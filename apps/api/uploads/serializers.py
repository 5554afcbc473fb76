"""The multipart upload form (each registered tool's own fields), and the job's status as it is read back."""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.api.common.inputs import BoundedTextMixin, JSONTextField
from apps.api.common.serializers import RunSummarySerializer
from apps.ingest.core.metadata import METADATA_KEYS
from apps.ingest.models import IngestJob
from apps.ingest.tools import DEFAULT_KIND, upload_kind_choices, upload_kinds
from apps.ingest.tools.base import UploadField
from apps.results.judgements.reproducibility import QuestionnaireError, clean_reproducibility
from apps.results.services.embargo import EmbargoError, embargo_of


class UploadFormSerializer(BoundedTextMixin, serializers.Serializer):
    """The multipart upload: the file, its kind, the ioboard.yaml sidecar fields every kind takes, and each
    tool's own fields (``Tool.ingest.upload_fields`` in ``apps.ingest.tools``: series, study, margin, stack).

    The kind's choices and the tools' fields are built for each serializer from the registry, never at
    import, so a tool registered later is offered here and in the schema."""

    file = serializers.FileField(
        allow_empty_file=False,
        help_text="a .tar.gz/.tgz/.zip of the kind's files (an IO500 result directory or submission folder, "
        "a bottom-up campaign, mdtest or IOR logs), or one bare log of a kind that takes one",
    )
    institution = serializers.CharField(required=False, max_length=255)
    system = serializers.CharField(required=False, max_length=255)
    filesystem = serializers.CharField(required=False, max_length=255)
    storage_vendor = serializers.CharField(required=False, max_length=255)
    client_nodes = serializers.IntegerField(required=False, min_value=1)
    server_count = serializers.IntegerField(required=False, min_value=1)
    year = serializers.IntegerField(required=False, min_value=2000, max_value=2100)
    submission_id = serializers.CharField(required=False, max_length=50)
    notes = serializers.CharField(required=False)
    reproducibility = JSONTextField(
        required=False,
        binary=True,
        help_text="the reproducibility questionnaire, target level and list, production declaration and "
        "acknowledgements, as the `reproducibility:` mapping of ioboard.yaml (JSON)",
    )

    edition = serializers.SlugField(
        required=False,
        max_length=50,
        help_text="the edition (e.g. sc26) this is submitted to, not yet frozen: its runs are seen by your account "
        "and staff only until staff freeze that edition",
    )
    embargo_until = serializers.DateTimeField(
        required=False, help_text="ISO date-time: its runs are seen by your account and staff only until then"
    )

    def validate_edition(self, value: str) -> str:
        try:
            embargo_of(value, None)
        except EmbargoError as error:
            raise serializers.ValidationError(str(error)) from error
        return value

    def validate_reproducibility(self, value) -> dict:
        try:
            return clean_reproducibility(value, "reproducibility")
        except QuestionnaireError as error:
            raise serializers.ValidationError(str(error)) from error

    def get_fields(self):
        fields = super().get_fields()
        fields["kind"] = serializers.ChoiceField(
            choices=upload_kind_choices(),
            default=DEFAULT_KIND,
            help_text="the benchmark tool whose files these are: "
            + "; ".join(f"{name}: {tool.ingest.stores}" for name, tool in upload_kinds().items()),
        )
        fields.update({name: tool_field(declared) for name, declared in tool_upload_fields().items()})
        return fields

    def metadata(self) -> dict:
        """What the uploader said of the run, under the names ingest reads (``METADATA_KEYS``, the tools' fields)."""
        names = (*METADATA_KEYS, *tool_upload_fields(), "reproducibility")
        return {name: self.validated_data[name] for name in names if name in self.validated_data}


def tool_upload_fields() -> dict[str, UploadField]:
    """The upload fields the registered tools declare, by name (a name two tools declare is one field)."""
    return {field.name: field for tool in upload_kinds().values() for field in tool.ingest.upload_fields}


def tool_field(declared: UploadField) -> serializers.Field:
    """The API field of a tool's declared upload field."""
    if declared.value == "fraction":
        return serializers.FloatField(required=False, min_value=0.001, max_value=1.0, help_text=declared.help)
    if declared.value == "slug":
        return serializers.SlugField(required=False, max_length=100, help_text=declared.help)
    return serializers.CharField(required=False, max_length=255, help_text=declared.help)


class UploadAcceptedSerializer(serializers.Serializer):
    """The answer to an upload: where to poll for the ingest's outcome."""

    id = serializers.IntegerField(source="upload.pk")
    sha256 = serializers.CharField(source="upload.sha256")
    status = serializers.ChoiceField(source="job.status", choices=IngestJob.Status.choices)
    status_url = serializers.SerializerMethodField()

    @extend_schema_field(OpenApiTypes.URI)
    def get_status_url(self, received) -> str:
        return self.context["request"].build_absolute_uri(reverse("api:upload-detail", args=[received.upload.pk]))


class UploadRunSerializer(RunSummarySerializer):
    """A run an upload created, as its status lists it: the summary row's identity, scores and verdicts."""

    class Meta(RunSummarySerializer.Meta):
        fields = [
            "id",
            "system",
            "kind",
            "score_total",
            "score_bw",
            "score_md",
            "eligible",
            "ranked",
            "review_status",
            "flagged",
        ]


class UploadStatusSerializer(serializers.ModelSerializer):
    """An upload as its latest ingest job sees it: what was received and how processing went."""

    id = serializers.IntegerField(source="upload_id")
    sha256 = serializers.CharField(source="upload.sha256")
    original_name = serializers.CharField(source="upload.original_name")
    size = serializers.IntegerField(source="upload.size")
    kind = serializers.ChoiceField(source="upload.kind", choices=[])  # the registry's kinds: get_fields
    uploader = serializers.CharField(source="upload.uploader.get_username", allow_null=True, default=None)
    declared_metadata = serializers.JSONField(source="upload.declared_metadata")
    created_at = serializers.DateTimeField(source="upload.created_at")
    edition = serializers.CharField(source="upload.edition")
    embargo_until = serializers.DateTimeField(source="upload.embargo_until", allow_null=True)
    embargoed = serializers.BooleanField(
        source="upload.embargoed", help_text="private until released: seen by its account and staff only"
    )
    runs = UploadRunSerializer(many=True, source="created_runs")

    def get_fields(self):
        fields = super().get_fields()
        fields["kind"].choices = upload_kind_choices()
        return fields

    class Meta:
        model = IngestJob
        fields = [
            "id",
            "sha256",
            "original_name",
            "size",
            "kind",
            "uploader",
            "declared_metadata",
            "created_at",
            "edition",
            "embargo_until",
            "embargoed",
            "status",
            "progress",
            "error",
            "attempts",
            "started_at",
            "finished_at",
            "runs",
        ]
