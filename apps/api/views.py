"""API viewsets: fetch with one queryset method, serialize, done. The rules live in apps.results and apps.ingest."""

from django.db.models import Count, F, OuterRef, Prefetch, Subquery
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated, IsAuthenticatedOrReadOnly
from rest_framework.response import Response

from apps.api import serializers
from apps.api.filters import EditionFilter, RankedListFilter, RunFilter, SystemFilter, UploadFilter
from apps.api.permissions import IsUploaderOrStaff
from apps.api.schema import ApiSchema
from apps.api.throttles import READ_THROTTLES, UploadRateThrottle
from apps.ingest.models import IngestJob
from apps.ingest.uploads import UploadRefused, delete_upload, receive_upload, refuse_oversized_request
from apps.results.diff import diff_runs, load_runs
from apps.results.freshness import cache_page_until_data_changes
from apps.results.models import Edition, EditionEntry, Run, StorageSystem

BY_SCORE_NULLS_LAST = [F("score_total").desc(nulls_last=True), "pk"]
LARGE_RUN_FIELDS = ["config", "info", "facts", "extended_scores"]


class ApiDefaults:
    """What every ioboard endpoint shares: documented errors, django-filter, read throttles."""

    schema = ApiSchema()
    filter_backends = [DjangoFilterBackend]
    throttle_classes = READ_THROTTLES


class RunViewSet(ApiDefaults, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    """Every ingested run. The detail carries phases, scores, verification, configuration, Lustre build,
    tunables, striping, anomalies and the configuration files kept with the run."""

    permission_classes = [IsAuthenticatedOrReadOnly, IsUploaderOrStaff]
    filterset_class = RunFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        if self.action == "list":
            return (Run.objects.select_related("system__institution").defer(*LARGE_RUN_FIELDS)
                    .order_by(*BY_SCORE_NULLS_LAST))
        if self.action == "retrieve":
            return Run.objects.with_details()
        return Run.objects.select_related("upload")

    def get_serializer_class(self):
        return serializers.RunSummarySerializer if self.action == "list" else serializers.RunDetailSerializer

    @extend_schema(parameters=[serializers.CompareQuerySerializer], responses=OpenApiTypes.OBJECT)
    @action(detail=False, filter_backends=[], pagination_class=None)
    def compare(self, request):
        """What differs between runs, the first being the baseline: score and phase deltas next to every
        input that changed (versions, configuration, Lustre build and patches, tunables, striping, files)."""
        query = serializers.CompareQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        try:
            runs = load_runs(query.validated_data["runs"])
        except Run.DoesNotExist as missing:
            raise NotFound(str(missing)) from missing
        return Response(diff_runs(runs).to_dict())


class SystemViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Storage systems (institution + system + file system), with their run count and best ranked score.
    The detail lists the system's runs, best first."""

    filterset_class = SystemFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        best_score = Run.objects.filter(system=OuterRef("pk")).eligible().order_by(*BY_SCORE_NULLS_LAST)
        systems = StorageSystem.objects.select_related("institution").annotate(
            run_count=Count("runs"), best_score=Subquery(best_score.values("score_total")[:1])
        ).order_by("institution__name", "name", "pk")
        if self.action == "retrieve":
            runs = Run.objects.defer(*LARGE_RUN_FIELDS).order_by(*BY_SCORE_NULLS_LAST)
            systems = systems.prefetch_related(Prefetch("runs", queryset=runs))
        return systems

    def get_serializer_class(self):
        return serializers.SystemDetailSerializer if self.action == "retrieve" else serializers.SystemSerializer


class RankedListViewSet(ApiDefaults, mixins.ListModelMixin, viewsets.GenericViewSet):
    """A ranked list; anonymous reads are served from the page cache until the data changes."""

    serializer_class = serializers.ListEntrySerializer
    filterset_class = RankedListFilter
    list_kind: str

    @classmethod
    def as_view(cls, actions=None, **initkwargs):
        return cache_page_until_data_changes(super().as_view(actions, **initkwargs))

    def get_queryset(self):
        return Run.objects.listing(self.list_kind)


class IO500ListViewSet(RankedListViewSet):
    """The IO500 list: each storage system's best eligible run, ranked by total score."""

    list_kind = Edition.ListKind.IO500


class TenNodeListViewSet(RankedListViewSet):
    """The 10-node challenge: each system's best eligible run on exactly 10 client nodes."""

    list_kind = Edition.ListKind.TEN_NODE


class HistoricListViewSet(RankedListViewSet):
    """Every IO500 run, eligible or not; runs kept off the lists carry their reason and no rank."""

    list_kind = Edition.ListKind.HISTORIC


class EditionViewSet(ApiDefaults, viewsets.ReadOnlyModelViewSet):
    """Frozen lists ("ISC19"): their entries and scores never change after freezing."""

    filterset_class = EditionFilter
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        editions = Edition.objects.annotate(entry_count=Count("entries")).order_by("-frozen_at", "pk")
        if self.action == "retrieve":
            entries = EditionEntry.objects.order_by(F("rank").asc(nulls_last=True), F("score").desc(nulls_last=True),
                                                    "pk")
            editions = editions.prefetch_related(Prefetch("entries", queryset=entries))
        return editions

    def get_serializer_class(self):
        return serializers.EditionDetailSerializer if self.action == "retrieve" else serializers.EditionSerializer


class UploadViewSet(ApiDefaults, mixins.CreateModelMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                    mixins.DestroyModelMixin, viewsets.GenericViewSet):
    """Uploads of IO500 result archives and mdtest logs, and the state of their ingest.

    Listing shows your own uploads (staff see all); any upload can be read by id, because uploading
    bytes someone else sent before answers with their upload. Deleting an upload removes the runs it
    created; only the uploader or staff may do that.
    """

    permission_classes = [IsAuthenticated, IsUploaderOrStaff]
    parser_classes = [MultiPartParser]
    filterset_class = UploadFilter
    # Through the upload's own id field, so an id past the integer range is a 404, not a database error.
    lookup_field = "upload__id"
    lookup_url_kwarg = "id"
    lookup_value_regex = r"\d+"

    def get_queryset(self):
        latest_job = IngestJob.objects.filter(upload=OuterRef("upload")).order_by("-pk").values("pk")[:1]
        runs = Run.objects.select_related("system__institution").defer(*LARGE_RUN_FIELDS).order_by("pk")
        jobs = (IngestJob.objects.filter(pk=Subquery(latest_job)).select_related("upload__uploader")
                .prefetch_related(Prefetch("runs", queryset=runs)).order_by("-upload__created_at", "-pk"))
        if self.action == "list" and not self.request.user.is_staff:
            jobs = jobs.filter(upload__uploader_id=self.request.user.pk)
        return jobs

    def get_serializer_class(self):
        return serializers.UploadFormSerializer if self.action == "create" else serializers.UploadStatusSerializer

    def get_throttles(self):
        return [UploadRateThrottle()] if self.action == "create" else super().get_throttles()

    @extend_schema(responses={
        202: serializers.UploadAcceptedSerializer,
        200: OpenApiResponse(serializers.UploadAcceptedSerializer,
                             description="these bytes were uploaded before: the existing upload, not ingested again"),
    })
    def create(self, request, *args, **kwargs):
        """Upload a .tar.gz/.tgz/.zip of an IO500 result directory or submission folder (or mdtest logs with
        kind=mdtest). The file is checked and kept, then ingested in the background: poll status_url."""
        try:
            refuse_oversized_request(int(request.META.get("CONTENT_LENGTH") or 0))
            form = self.get_serializer(data=request.data)
            form.is_valid(raise_exception=True)
            uploaded = form.validated_data["file"]
            received = receive_upload(uploaded, name=uploaded.name, kind=form.validated_data["kind"],
                                      uploader=request.user, metadata=form.metadata())
        except UploadRefused as refusal:
            raise ValidationError({"file": [str(refusal)]}) from refusal
        answer = serializers.UploadAcceptedSerializer(received, context=self.get_serializer_context())
        return Response(answer.data, status=status.HTTP_202_ACCEPTED if received.created else status.HTTP_200_OK)

    def perform_destroy(self, job):
        delete_upload(job.upload)
