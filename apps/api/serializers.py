"""Serializers: the API's view of the results domain. Read-only except for the upload form."""

from functools import cached_property

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import Field, SkipField
from rest_framework.relations import PKOnlyObject

from apps.api.inputs import BoundedTextMixin, JSONTextField
from apps.ingest.core.metadata import METADATA_KEYS
from apps.ingest.models import IngestJob
from apps.ingest.tools import DEFAULT_KIND, upload_kind_choices, upload_kinds
from apps.ingest.tools.base import UploadField
from apps.results.judgements.reproducibility import LEVELS, QuestionnaireError, clean_reproducibility
from apps.results.models import (
    Anomaly,
    CustomList,
    Edition,
    EditionEntry,
    ListEntry,
    LustreBuild,
    LustrePatch,
    PhaseResult,
    ReviewNote,
    ReviewStatus,
    RulesEdition,
    Run,
    RunFile,
    StorageSystem,
    Striping,
    Tunable,
)
from apps.results.models.list_columns import NORMALISED_COLUMNS
from apps.results.models.list_kinds import LIST_KINDS
from apps.results.services.citations import cite, run_citations
from apps.results.services.review import reproducibility_report

#: The two verdicts every run answer carries (apps.results.models.list_kinds: one definition of each).
ELIGIBLE_HELP = "may be ranked by its files and verdicts (valid, scored, not excluded), whatever its review"
RANKED_HELP = "visible as ranked: eligible and accepted by the committee (submitted or rejected runs are not)"


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()


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


_ABSENT = object()


class ManyRowsSerializer(serializers.Serializer):
    """A serializer written many times into one answer (a list page's rows, their badges): its readable fields are
    looked up once per serializer, and a field whose source is one plain attribute (a model column or an
    annotation) is read with getattr instead of `Field.get_attribute`, whose generic path (a mapping check and a
    callable check per value, a try per field) was most of writing a page of rows. Any other field (a nested
    serializer, a method field, a dotted source), and any value that is absent or callable, takes DRF's own path,
    so the answer is the one DRF writes (tests/api/test_many_rows_serializer.py compares them)."""

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


class EntryScoreSerializer(ManyRowsSerializer):
    """An edition entry's frozen score, in the same {bw, md, total} shape."""

    bw = serializers.FloatField(source="score_bw", allow_null=True, help_text="GiB/s")
    md = serializers.FloatField(source="score_md", allow_null=True, help_text="kIOPS")
    total = serializers.FloatField(source="score", allow_null=True)


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


class CitationSerializer(serializers.Serializer):
    """A placement cited as the IO500 messaging policy asks: "#5 on the Production list at SC25", verified or not."""

    text = serializers.CharField()
    label = serializers.ChoiceField(choices=["verified", "unverified"])
    list = serializers.CharField()
    edition = serializers.CharField(allow_null=True)


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


class BadgeSerializer(ManyRowsSerializer, serializers.ModelSerializer):
    class Meta:
        model = Anomaly
        fields = ["rule", "severity", "phase", "message"]


#: The per-node and per-server scores of a list row: one field per normalised list column, named by its key.
NormalisedScoresSerializer = type(
    "NormalisedScoresSerializer",
    (serializers.Serializer,),
    {column.key: serializers.FloatField(allow_null=True, help_text=column.title) for column in NORMALISED_COLUMNS},
)


class ListEntrySerializer(ManyRowsSerializer, NormalisedScoresSerializer, serializers.ModelSerializer):
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


class CompareQuerySerializer(BoundedTextMixin, serializers.Serializer):
    runs = serializers.RegexField(
        r"^\d{1,12}(,\d{1,12}){1,9}$",
        help_text="2 to 10 comma-separated run ids; the first is the baseline, e.g. runs=12,15",
        error_messages={"invalid": "expected 2 to 10 comma-separated run ids, e.g. runs=12,15"},
    )

    def validate_runs(self, value: str) -> list[int]:
        return [int(part) for part in value.split(",")]


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
            "status",
            "progress",
            "error",
            "attempts",
            "started_at",
            "finished_at",
            "runs",
        ]


class ReviewSerializer(BoundedTextMixin, serializers.Serializer):
    """The committee's decisions on a run (staff only); each field optional, a note recorded with them."""

    status = serializers.ChoiceField(choices=ReviewStatus.choices, required=False)
    level = serializers.ChoiceField(
        choices=list(LEVELS.items()), required=False, help_text="the reproducibility level the committee assigns"
    )
    production_accepted = serializers.BooleanField(required=False, allow_null=True, default=None)
    note = serializers.CharField(required=False, allow_blank=True, default="")


class ReviewNoteSerializer(serializers.ModelSerializer):
    author = serializers.CharField(source="author.get_username", allow_null=True, default=None)
    status = serializers.CharField(help_text="the review status set with this note; empty when none")

    class Meta:
        model = ReviewNote
        fields = ["author", "text", "status", "created_at"]


@extend_schema_field(
    {
        "type": "string",
        "maxLength": RulesEdition._meta.get_field("name").max_length,
        "description": RulesEdition._meta.get_field("name").help_text,
    }
)
class RulesEditionByName(serializers.SlugRelatedField):
    """A rules edition named by its slug; a name longer than any slug is unknown without a query."""

    def __init__(self, **kwargs):
        super().__init__(slug_field="name", queryset=RulesEdition.objects.all(), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and len(data) > RulesEdition._meta.get_field("name").max_length:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data[:60] + "…")
        return super().to_internal_value(data)


class CheckSerializer(BoundedTextMixin, serializers.Serializer):
    rules_edition = RulesEditionByName()
    item = serializers.CharField(max_length=255)
    passed = serializers.BooleanField()
    note = serializers.CharField(required=False, allow_blank=True, default="")


class RulesEditionSerializer(BoundedTextMixin, serializers.ModelSerializer):
    checklist = serializers.ListField(
        child=serializers.CharField(max_length=255),
        required=False,
        default=list,
        help_text="what a reviewer checks for a run under these rules",
    )

    class Meta:
        model = RulesEdition
        fields = ["name", "since", "until", "notes", "checklist"]

    def validate(self, attrs):
        since = attrs.get("since", getattr(self.instance, "since", None))
        until = attrs.get("until", getattr(self.instance, "until", None))
        if since and until and until <= since:
            raise serializers.ValidationError({"until": ["must be after since"]})
        return attrs


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


class CustomListSerializer(BoundedTextMixin, serializers.ModelSerializer):
    """A saved custom list: its equation ranks the members of `base_list`; `token` is its stable link."""

    name = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")
    # No max_length of its own: the grammar refuses an over-long equation itself, with the position
    # (apps.results.judgements.equations); BoundedTextMixin's bound only stops a body the grammar should never
    # have to read.
    equation = serializers.CharField(trim_whitespace=False)
    base_list = serializers.ChoiceField(choices=list(LIST_KINDS), default="full")
    url = serializers.SerializerMethodField()

    class Meta:
        model = CustomList
        fields = ["token", "name", "equation", "base_list", "created_at", "url"]
        read_only_fields = ["token", "created_at"]

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, custom) -> str:
        request = self.context.get("request")
        path = custom.get_absolute_url()
        return request.build_absolute_uri(path) if request else path


class CustomRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    value = serializers.FloatField(allow_null=True)
    run = serializers.IntegerField(source="run.pk")
    system_name = serializers.CharField(source="run.system.name")
    institution = serializers.CharField(source="run.system.institution.name")
    score = ScoreSerializer(source="run")


class EquationErrorSerializer(serializers.Serializer):
    equation = serializers.CharField(help_text="what is wrong")
    position = serializers.IntegerField(help_text="0-based character offset of the fault")
